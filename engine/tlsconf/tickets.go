package tlsconf

import (
	"crypto/rand"
	"crypto/tls"
	"sync"
	"time"

	"github.com/redirectd/redirectd/internal/safego"
)

// Session ticket keys. Go rotates its own keys every 24 hours and accepts
// them for 7 days; a key stolen from memory then decrypts a week of
// resumed sessions. Here a new key encrypts from every hour on and the
// last ticketKeysKept keys still decrypt, so a ticket resumes for 3 to 4
// hours (long enough for a browser's idle tab) and a stolen key reaches
// back at most that far.
const (
	ticketRotateEvery = time.Hour
	ticketKeysKept    = 4
)

// ticketKeys rotates the session ticket keys of one tls.Config.
type ticketKeys struct {
	cfg  *tls.Config
	mu   sync.Mutex
	keys [][32]byte // newest first; keys[0] encrypts
	stop chan struct{}
	done chan struct{}
}

// startTickets sets a first key on cfg and rotates every `every` until
// close.
func startTickets(cfg *tls.Config, every time.Duration) *ticketKeys {
	t := &ticketKeys{cfg: cfg, stop: make(chan struct{}), done: make(chan struct{})}
	t.rotate()
	go t.run(every)
	return t
}

func (t *ticketKeys) run(every time.Duration) {
	defer safego.Recover("tls ticket keys")
	defer close(t.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			t.rotate()
		}
	}
}

// rotate puts a fresh random key first and drops the oldest beyond
// ticketKeysKept.
func (t *ticketKeys) rotate() {
	var k [32]byte
	rand.Read(k[:]) // crypto/rand.Read never fails (Go 1.24+)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keys = append([][32]byte{k}, t.keys...)
	if len(t.keys) > ticketKeysKept {
		t.keys = t.keys[:ticketKeysKept]
	}
	t.cfg.SetSessionTicketKeys(t.keys)
}

func (t *ticketKeys) close() {
	close(t.stop)
	<-t.done
}
