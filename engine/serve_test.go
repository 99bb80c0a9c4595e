package engine

import (
	"net/http"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// serveFixture runs conn.serve without sockets, over the reference rule set.
type serveFixture struct {
	srv  *Server
	conn *conn
}

func newServeFixture(tb testing.TB) *serveFixture {
	tb.Helper()
	return newServeFixtureWith(tb, Options{})
}

func newServeFixtureWith(tb testing.TB, opts Options) *serveFixture {
	tb.Helper()
	set, err := matcher.Compile(rules.Rules(rules.Reference))
	if err != nil {
		tb.Fatal(err)
	}
	srv := New(opts, set)
	return &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil)}}
}

// serve answers every request in buf and checks that all were consumed.
func (f *serveFixture) serve(tb testing.TB, buf []byte) []byte {
	used, res := f.conn.serve(buf, f.srv)
	if used != len(buf) || res != keepOpen {
		tb.Fatalf("serve used %d of %d bytes, result %v", used, len(buf), res)
	}
	return f.conn.loop.out
}

func TestServeAnswer(t *testing.T) {
	f := newServeFixture(t)
	got := string(f.serve(t, []byte(rules.BrowserRequest)))
	want := "HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.com/new/9999\r\nContent-Length: 0\r\n" +
		string(f.srv.date.get()) + "\r\n"
	if got != want {
		t.Fatalf("answer:\n%q\nwant:\n%q", got, want)
	}
}

// TestServeAnswerNewDate checks that a redirect carries the Date line of
// the moment it is answered: the end of the head after the Location is
// built once per Date line (redirectTail), and must follow it.
func TestServeAnswerNewDate(t *testing.T) {
	f := newServeFixture(t)
	req := []byte("GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	for _, at := range []time.Time{time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC), time.Date(2026, 12, 6, 9, 0, 1, 0, time.UTC)} {
		f.srv.date.update(at)
		got := string(f.serve(t, req))
		want := "HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.com/new/9999\r\nContent-Length: 0\r\n" +
			"Date: " + at.Format(http.TimeFormat) + "\r\n\r\n"
		if got != want {
			t.Errorf("answer at %v:\n%q\nwant:\n%q", at, got, want)
		}
	}
}

// BenchmarkServe measures answering requests from bytes in to bytes out
// (parse, match, write the answer) over the reference rule set, without
// the socket.
func BenchmarkServe(b *testing.B) {
	pipelined := ""
	for range 16 {
		pipelined += "GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n"
	}
	for _, bc := range []struct{ name, req string }{
		{"exact", "GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n"},
		{"prefix", "GET " + rules.PrefixHit + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n"},
		{"last-regex", "GET " + rules.LastRegex + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n"},
		{"miss", "GET " + rules.Miss + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n"},
		{"browser-650B", rules.BrowserRequest},
		{"pipelined-16", pipelined},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := newServeFixture(b)
			buf := []byte(bc.req)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				f.serve(b, buf)
			}
		})
	}
}
