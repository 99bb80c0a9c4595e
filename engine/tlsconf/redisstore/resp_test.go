package redisstore

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestRespGuard: well-formed replies pass however the stream is split;
// a header announcing more than the bounds, a negative length other than
// -1's null, or bytes that are not RESP are refused.
func TestRespGuard(t *testing.T) {
	good := "+OK\r\n-ERR x\r\n:42\r\n$5\r\nhello\r\n$-1\r\n$0\r\n\r\n*2\r\n$1\r\na\r\n*-1\r\n%1\r\n+k\r\n:1\r\n_\r\n#t\r\n,1.5\r\n(123\r\n!3\r\nerr\r\n=7\r\ntxt:abc\r\n~0\r\n>1\r\n+p\r\n|1\r\n+a\r\n+b\r\n" +
		"$" + itoa64(maxReplyBulk) + "\r\n" + strings.Repeat("x", maxReplyBulk) + "\r\n"
	for split := 0; split < 200; split++ {
		var g respGuard
		if err := g.scan([]byte(good[:split])); err != nil {
			t.Fatalf("split at %d: %v", split, err)
		}
		if err := g.scan([]byte(good[split:])); err != nil {
			t.Fatalf("split at %d: %v", split, err)
		}
		if g.state != guardType {
			t.Fatalf("split at %d: the guard ends in state %d, want between replies", split, g.state)
		}
	}
	for _, bad := range []string{
		"$9000000000000000000\r\n",
		"$" + itoa64(maxReplyBulk+1) + "\r\n",
		"*" + itoa64(maxReplyCount+1) + "\r\n",
		"%99999999999\r\n",
		"$-3\r\n",
		"$\r\n",
		"$1x\r\n",
		"$99999999999999999999\r\n",
		"?\r\n",
		"+" + strings.Repeat("a", maxReplyLine+1),
	} {
		var g respGuard
		if err := g.scan([]byte(bad)); err == nil {
			t.Errorf("%.40q: passed", bad)
		}
	}
}

func itoa64(n int) string { return itoa(time.Duration(n) * time.Millisecond) }

// TestHostileRedis: a server that answers every command with a reply
// announcing 9e18 bytes (go-redis would make([]byte, n+2) and panic, on
// certmagic's storage-clean goroutine) or a few GB costs the node
// nothing: each call fails with an error, reads fall back to the local
// copy, and the process goes on.
func TestHostileRedis(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{"$9000000000000000000\r\n", "$3000000000\r\n", "*9000000000000000000\r\n"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer c.Close()
					br := bufio.NewReader(c)
					for {
						c.SetDeadline(time.Now().Add(testutil.Patience))
						cmd, err := readCommand(br)
						if err != nil {
							return
						}
						answer := reply
						if strings.EqualFold(cmd, "hello") {
							answer = "-ERR unknown command 'HELLO'\r\n" // so go-redis speaks RESP2
						}
						if _, err := c.Write([]byte(answer)); err != nil {
							return
						}
					}
				}()
			}
		}()
		dir := t.TempDir()
		l, err := NewLayered(Config{Addr: ln.Addr().String()}, dir, metrics.NewSet(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := l.local.Store(ctx, certKey, []byte("c")); err != nil {
			t.Fatal(err)
		}
		if got, err := l.Load(ctx, certKey); err != nil || string(got) != "c" {
			t.Errorf("%q: Load = %q, %v; want the local copy", reply, got, err)
		}
		r := l.Redis()
		if _, err := r.Load(ctx, certKey); err == nil {
			t.Errorf("%q: Redis.Load answered", reply)
		}
		if _, err := r.List(ctx, "certificates", true); err == nil {
			t.Errorf("%q: Redis.List answered", reply)
		}
		if _, err := r.Stat(ctx, certKey); err == nil {
			t.Errorf("%q: Redis.Stat answered", reply)
		}
		r.Exists(ctx, certKey)
		l.Close()
		ln.Close()
		wg.Wait()
	}
}

// readCommand reads one command a client sends (an array of bulk
// strings) and returns its name.
func readCommand(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	var name string
	for i := range n {
		if _, err := br.ReadString('\n'); err != nil { // $len
			return "", err
		}
		arg, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		if i == 0 {
			name = strings.TrimSpace(arg)
		}
	}
	return name, nil
}

// TestGuardedConnRestart: after Redis restarts, the first call does not
// fail on a pooled connection the old server closed. go-redis checks an
// idle connection before reusing it by peeking at its socket, which the
// guard must keep possible (the fleet drill took Redis for down after a
// restart when it did not).
func TestGuardedConnRestart(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	r := newRedis(t, srv, Config{})
	ctx := context.Background()
	// Several connections in the pool, as a node's concurrent handshakes
	// leave it.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := r.Store(ctx, fmt.Sprintf("k%d", i), []byte("v")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	srv.Stop()
	srv.Start() // empty
	for i := range 8 {
		if ok, err := r.exists(ctx, fmt.Sprintf("k%d", i)); err != nil || ok {
			t.Errorf("call %d after a restart: %v, %v; want not found (no EOF of a stale connection)", i, ok, err)
		}
	}
}
