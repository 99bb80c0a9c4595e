package engine_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// listening returns the TCP_DEFER_ACCEPT value of every listening socket
// of this process on port, IPv4 or IPv6.
func listening(t *testing.T, port int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		fd, _ := strconv.Atoi(e.Name())
		if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
			continue
		}
		sa, err := unix.Getsockname(fd)
		if err != nil {
			continue
		}
		switch a := sa.(type) {
		case *unix.SockaddrInet4:
			if a.Port != port {
				continue
			}
		case *unix.SockaddrInet6:
			if a.Port != port {
				continue
			}
		default:
			continue
		}
		v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestListenNames serves on "localhost:PORT" and ":PORT", forms net.Listen
// takes that are not literal addresses, and checks that defer_accept
// reaches both loops' listening sockets and that a drain closes them at
// once while an open connection is still answered (both
// were once silently skipped for such addresses).
func TestListenNames(t *testing.T) {
	for _, host := range []string{"localhost", ""} {
		t.Run("host="+host, func(t *testing.T) {
			ln, err := net.Listen("tcp", ":0")
			if err != nil {
				t.Fatal(err)
			}
			port := ln.Addr().(*net.TCPAddr).Port
			ln.Close()
			set, err := matcher.Compile(testRules)
			if err != nil {
				t.Fatal(err)
			}
			srv := engine.New(engine.Options{Listen: net.JoinHostPort(host, strconv.Itoa(port)), EventLoops: 2, DeferAccept: true}, set)
			done := make(chan error, 1)
			go func() { done <- srv.Run() }()
			select {
			case <-srv.Ready():
			case err := <-done:
				t.Fatalf("server did not start: %v", err)
			case <-time.After(5 * time.Second):
				t.Fatal("server did not start within 5s")
			}
			stopped := false
			t.Cleanup(func() {
				if !stopped {
					srv.Stop(context.Background())
					<-done
				}
			})
			addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

			var got []int
			testutil.Eventually(testutil.Patience, func() bool {
				got = listening(t, port)
				return len(got) == 2 && got[0] > 0 && got[1] > 0
			})
			if len(got) != 2 || got[0] == 0 || got[1] == 0 {
				t.Errorf("TCP_DEFER_ACCEPT on the listening sockets of port %d: %v, want two set", port, got)
			}

			c, err := net.DialTimeout("tcp", addr, testutil.Patience)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(testutil.Patience))
			br := bufio.NewReader(c)
			io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
			if a := readAnswer(t, br, "GET"); a.Status != 301 || a.Close {
				t.Fatalf("before the drain: %+v, want 301 kept open", a)
			}
			// A request under way keeps the connection from being closed
			// as idle by the drain.
			io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n")
			waitHeld(t, srv, len("GET /old HTTP/1.1\r\nHost: a\r\n"))

			shut := make(chan error, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				shut <- srv.Shutdown(ctx)
			}()
			if !testutil.Eventually(testutil.Patience, func() bool {
				nc, err := net.DialTimeout("tcp", addr, testutil.Patience)
				if err == nil {
					nc.Close()
				}
				return errors.Is(err, syscall.ECONNREFUSED)
			}) {
				t.Errorf("new connections to %s are still accepted while draining", addr)
			}

			io.WriteString(c, "\r\n")
			if a := readAnswer(t, br, "GET"); a.Status != 301 || !a.Close {
				t.Errorf("while draining: %+v, want 301 with Connection: close", a)
			}
			if err := <-shut; err != nil {
				t.Errorf("shutdown: %v", err)
			}
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
			stopped = true
		})
	}
}

// TestListenForms checks what Run accepts as a listen address: names and
// an empty host serve, anything but host:port is refused with the reason.
func TestListenForms(t *testing.T) {
	for _, listen := range []string{"localhost:0", ":0", "127.0.0.1:0", "[::1]:0"} {
		t.Run(listen, func(t *testing.T) {
			srv := startServerWith(t, engine.Options{Listen: listen})
			c := dial(t, srv)
			io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 301 {
				t.Errorf("answer %d, want 301", a.Status)
			}
		})
	}
	for _, listen := range []string{"8080", "localhost"} {
		set, _ := matcher.Compile(testRules)
		if err := engine.New(engine.Options{Listen: listen}, set).Run(); err == nil {
			t.Errorf("Run with listen %q: no error", listen)
		}
	}
}

// TestListenBesideTimeWait starts the server on a port whose last user,
// another program's listener, closed a connection moments ago: the
// connection's TIME_WAIT holds the port for a minute. nginx and Go set
// SO_REUSEADDR on their listeners, which lets a new listener bind beside
// such connections; without it the server refused to start with
// "address already in use" although nothing listened there.
func TestListenBesideTimeWait(t *testing.T) {
	addr := testport.Free(t)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close() // the server closes first: the TIME_WAIT is on its side
		}
	}()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(testutil.Patience))
	io.Copy(io.Discard, c)
	c.Close()
	ln.Close()
	set, err := matcher.Compile(testRules)
	if err != nil {
		t.Fatal(err)
	}
	srv := engine.New(engine.Options{Listen: addr, EventLoops: 2}, set)
	done := make(chan error, 1)
	go func() { done <- srv.Run() }()
	select {
	case <-srv.Ready():
		stopServer(t, srv, done)
	case err := <-done:
		t.Fatalf("the server did not start beside a TIME_WAIT connection: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("server did not start within 5s")
	}
}
