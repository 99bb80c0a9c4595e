package tlsconf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// The orders per registered domain are counted in the ACME storage, one
// small JSON file per domain (the order times of the last week), read
// and written under a storage lock: every instance sharing the storage
// (a folder, or [acme.redis]) counts the fleet's orders, and a restart
// keeps the count, as Let's Encrypt's limit of 50 certificates per
// registered domain per week does. certmagic's file and Redis cleaning
// leaves these keys alone (it lists only certificates/ and ocsp/).
const orderCountPrefix = "redirectd/on_demand_orders/"

// maxOrderTimes bounds one domain's file, whatever a corrupt or hostile
// storage holds: more orders than any limit can admit.
const maxOrderTimes = 10000

type orderTimes struct {
	Orders []int64 `json:"orders"` // unix seconds, oldest first
}

// countOrder runs in certmagic's "cert_obtaining" event, inside the
// issuance lock, just before it orders name: it records the order in the
// count of name's registered domain, and refuses it (errOnDemandDomain)
// when the domain already had on_demand_per_domain_week orders in the
// last 7 days and name is an on-demand name. Names managed ahead of time
// are counted but not refused: the bound is on-demand's. Renewals are not
// counted (certmagic emits "cert_renewing" for them), as Let's Encrypt
// exempts them from its limit.
func (st *acmeState) countOrder(ctx context.Context, name string) error {
	storage := st.managed.Storage
	domain := registeredDomain(name)
	lock := "redirectd_on_demand_orders_" + domain
	if err := storage.Lock(ctx, lock); err != nil {
		return fmt.Errorf("cannot lock the order count of %s: %w", domain, err)
	}
	defer storage.Unlock(context.WithoutCancel(ctx), lock)

	key := orderCountPrefix + domain + ".json"
	var ot orderTimes
	b, err := storage.Load(ctx, key)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("cannot read the order count of %s: %w", domain, err)
	default:
		// A file that does not parse counts as empty: it holds no order
		// this code wrote, and refusing every order for good would be
		// worse than one week's count lost.
		_ = json.Unmarshal(b, &ot)
	}
	now := st.m.gate.now()
	cut := now.Add(-week).Unix()
	kept := ot.Orders[:0]
	for _, t := range ot.Orders {
		if t > cut && len(kept) < maxOrderTimes {
			kept = append(kept, t)
		}
	}
	limit := st.m.gate.weekLimit()
	if !st.hosts[name] && len(kept) >= limit {
		st.m.log.Warn("acme: on-demand order refused: on_demand_per_domain_week reached",
			"host", name, "domain", domain, "orders_this_week", len(kept), "limit", limit)
		return errOnDemandDomain
	}
	ot.Orders = append(kept, now.Unix())
	b, _ = json.Marshal(ot)
	if err := storage.Store(ctx, key, b); err != nil {
		return fmt.Errorf("cannot write the order count of %s: %w", domain, err)
	}
	return nil
}

// countOrderEvent is onEvent's part for "cert_obtaining".
func (m *Manager) countOrderEvent(ctx context.Context, data map[string]any) error {
	st := m.acme.Load()
	name, _ := data["identifier"].(string)
	if st == nil || name == "" {
		return nil
	}
	// certmagic's timeout for the whole order is the caller's; the count
	// is a lock, a read and a write.
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := st.countOrder(cctx, name)
	if fail, ok := ctx.Value(failOnceKey{}).(context.CancelCauseFunc); ok && err != nil {
		// An on-demand order: no retries (obtainOnce); certmagic emits
		// no "cert_failed" for an order its event handler aborted.
		fail(err)
	}
	return err
}
