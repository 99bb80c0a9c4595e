package engine_test

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawUpstream is an upstream server on a raw loopback socket: it records,
// per connection, every byte it received, in arrival order, and lets the
// test decide what to answer. Nothing of net/http sits between redirectd
// and what the test checks.
type rawUpstream struct {
	addr  string
	mu    sync.Mutex
	conns []*rawConn
	// heads gets every request head, whichever connection it came on.
	heads chan string
}

// rawConn is one connection to a rawUpstream.
type rawConn struct {
	c   net.Conn
	mu  sync.Mutex
	got []byte // every byte received
	pos int    // how many of them the handler has consumed
}

// startRawUpstream listens on loopback and runs handle for each
// connection on its own goroutine; the connection is closed when handle
// returns.
func startRawUpstream(t *testing.T, handle func(u *rawUpstream, rc *rawConn)) *rawUpstream {
	t.Helper()
	return startRawUpstreamOn(t, &net.ListenConfig{}, handle)
}

// startRawUpstreamOn is startRawUpstream listening with lc.
func startRawUpstreamOn(t *testing.T, lc *net.ListenConfig, handle func(u *rawUpstream, rc *rawConn)) *rawUpstream {
	t.Helper()
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &rawUpstream{addr: ln.Addr().String(), heads: make(chan string, 64)}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		u.mu.Lock()
		for _, rc := range u.conns {
			rc.c.Close()
		}
		u.mu.Unlock()
		wg.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			rc := &rawConn{c: c}
			u.mu.Lock()
			u.conns = append(u.conns, rc)
			u.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(u, rc)
			}()
		}
	}()
	return u
}

// answerOK answers every request head on the connection with a 200 of two
// bytes, keeping it open: a keep-alive origin.
func answerOK(u *rawUpstream, rc *rawConn) {
	for {
		head, err := rc.readHead(5 * time.Second)
		if err != nil {
			return
		}
		u.heads <- head
		if _, err := rc.c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
			return
		}
	}
}

// connections returns the connections accepted so far.
func (u *rawUpstream) connections() []*rawConn {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*rawConn(nil), u.conns...)
}

// nextHead waits for the next request head any connection received.
func (u *rawUpstream) nextHead(t *testing.T) string {
	t.Helper()
	select {
	case h := <-u.heads:
		return h
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream received no request head within 5s")
		return ""
	}
}

// readHead consumes one request head, through its empty line, reading
// from the socket as needed.
func (rc *rawConn) readHead(timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		rc.mu.Lock()
		if i := bytes.Index(rc.got[rc.pos:], []byte("\r\n\r\n")); i >= 0 {
			head := string(rc.got[rc.pos : rc.pos+i+4])
			rc.pos += i + 4
			rc.mu.Unlock()
			return head, nil
		}
		rc.mu.Unlock()
		if err := rc.fill(deadline); err != nil {
			return "", err
		}
	}
}

// fill reads once from the socket, waiting until deadline at most.
func (rc *rawConn) fill(deadline time.Time) error {
	var b [4096]byte
	rc.c.SetReadDeadline(deadline)
	n, err := rc.c.Read(b[:])
	rc.mu.Lock()
	rc.got = append(rc.got, b[:n]...)
	rc.mu.Unlock()
	return err
}

// unreadWithin reads whatever arrives during d and returns every byte
// received but not consumed yet.
func (rc *rawConn) unreadWithin(d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		if err := rc.fill(deadline); err != nil {
			break
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return string(rc.got[rc.pos:])
}

// consumeAll marks every byte received so far as consumed and returns
// them.
func (rc *rawConn) consumeAll() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := string(rc.got[rc.pos:])
	rc.pos = len(rc.got)
	return s
}

// received returns every byte the connection received.
func (rc *rawConn) received() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return string(rc.got)
}

// headerValues returns the values of every field called name in head, in
// order, as sent.
func headerValues(head, name string) []string {
	var vs []string
	for _, line := range strings.Split(head, "\r\n")[1:] {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(k, name) {
			vs = append(vs, strings.TrimSpace(v))
		}
	}
	return vs
}

// requestLine returns the first line of head.
func requestLine(head string) string {
	line, _, _ := strings.Cut(head, "\r\n")
	return line
}
