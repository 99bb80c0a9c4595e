package tlsconf

import (
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/redirectd/redirectd/internal/safego"
)

// How storage is cleaned: every cleanEvery (once per fleet sharing the
// storage: certmagic records the last cleaning there), certificates
// expired for longer than cleanGrace are deleted, with their keys and
// metadata, and stale OCSP staples. Tests lower them.
var (
	cleanEvery = 24 * time.Hour
	cleanGrace = 24 * time.Hour
)

// Prune stops renewing the certificates of names the rules no longer
// name: on demand, those the decision function now refuses (all of them
// once on_demand is off); managed ahead of time, Reload already drops
// those the new hosts leave out.
// They leave the cache (so no handshake or maintenance renews them, and
// their expiry gauge goes) and stay in storage until the cleaning deletes
// them once expired, so that a name put back in the rules before then
// needs no new order. Call it after the serving rule set changed: the
// decision function reads the serving set.
func (m *Manager) Prune() {
	st := m.acme.Load()
	if st == nil {
		return
	}
	var gone []certmagic.SubjectIssuer
	var names []string
	m.acmeNames.Range(func(k, _ any) bool {
		name := k.(string)
		// With on_demand turned off by a reload, every on-demand name
		// goes: kept, the managed config would renew it.
		if !st.hosts[name] && (st.onDemand == nil || !m.covers(name)) {
			gone = append(gone, certmagic.SubjectIssuer{Subject: name})
			names = append(names, name)
			m.acmeNames.Delete(k)
		}
		return true
	})
	if len(gone) == 0 {
		return
	}
	st.cache.RemoveManaged(gone)
	m.log.Info("acme: names no longer in the rules are not renewed; their certificates stay in storage until they expire", "hosts", names)
}

// cleanLoop cleans the storage at Start and every cleanEvery until Close.
func (m *Manager) cleanLoop() {
	defer safego.Recover("acme storage clean")
	t := time.NewTicker(cleanEvery)
	defer t.Stop()
	for {
		m.cleanStorage()
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (m *Manager) cleanStorage() {
	st := m.acme.Load()
	if st == nil {
		return
	}
	err := certmagic.CleanStorage(m.ctx, st.managed.Storage, certmagic.CleanStorageOptions{
		Logger: st.managed.Logger,
		// Half the period: a node whose tick comes a little early
		// still cleans when another node cleaned a period ago.
		Interval:               cleanEvery / 2,
		OCSPStaples:            true,
		ExpiredCerts:           true,
		ExpiredCertGracePeriod: cleanGrace,
	})
	if err != nil && m.ctx.Err() == nil {
		m.log.Warn("acme: cannot clean the certificate storage", "err", err)
	}
}
