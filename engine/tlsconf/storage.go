package tlsconf

import (
	"github.com/caddyserver/certmagic"

	"github.com/redirectd/redirectd/engine/tlsconf/redisstore"
)

// acmeStorage is where a's certificates live: the folder, or Redis over
// the folder with [acme.redis]. The Redis storage in use is kept when a
// reload changes neither its settings nor the folder, so that its
// connection and the locks it holds survive the reload. The caller holds
// m.mu (or is New).
func (m *Manager) acmeStorage(a *ACME) (certmagic.Storage, error) {
	if a.Redis == nil {
		return &certmagic.FileStorage{Path: a.Storage}, nil
	}
	if m.redis != nil && m.redisCfg == *a.Redis && m.redisDir == a.Storage {
		return m.redis, nil
	}
	return redisstore.NewLayered(*a.Redis, a.Storage, m.set, m.log)
}

// keepRedis records the storage now in use, s for [acme] a (nil when
// off), and closes the Redis storage it replaces, if any. The caller
// holds m.mu (or is New).
func (m *Manager) keepRedis(s certmagic.Storage, a *ACME) {
	l, _ := s.(*redisstore.Layered)
	if l != m.redis && m.redis != nil {
		m.redis.Close() // releases the locks it holds: the new one starts afresh
	}
	m.redis = l
	if l != nil {
		m.redisCfg, m.redisDir = *a.Redis, a.Storage
	}
}
