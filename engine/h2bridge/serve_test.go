package h2bridge

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/tlsport"
	"github.com/redirectd/redirectd/internal/safego"
	"github.com/redirectd/redirectd/internal/testutil"
)

// engine is a Conn that answers by path, and a tlsport.Handler that
// bridges every connection to itself: what the engine does, reduced to
// what the bridge can tell apart.
type engine struct {
	mu    sync.Mutex
	heads []string // each head Decide was given
	needs []string // each head NeedsBody was given
}

func (e *engine) Decide(st *h2.Stream, head []byte) ([]byte, Decision) {
	e.mu.Lock()
	e.heads = append(e.heads, string(head))
	e.mu.Unlock()
	switch string(st.Path) {
	case "/reset":
		return nil, Reset
	case "/panicked":
		return nil, Answer // as after a panic the engine recovered
	case "/forward":
		go func() {
			defer safego.Recover("test forward")
			st.Answer([]byte("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nforwarded"))
		}()
		return nil, Forwarded
	}
	return []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.com/new\r\nContent-Length: 0\r\n\r\n"), Answer
}

func (e *engine) NeedsBody(head, scratch []byte) (Body, []byte) {
	e.mu.Lock()
	e.needs = append(e.needs, string(head))
	e.mu.Unlock()
	return Body{}, append(scratch, "dry answer"...)
}

func (e *engine) TakeBody(int) bool { return true }
func (e *engine) PutBody(int)       {}

func (e *engine) OnOpen(c gnet.Conn) ([]byte, gnet.Action)              { c.SetContext(e); return nil, gnet.None }
func (e *engine) OnTraffic(gnet.Conn) gnet.Action                       { return gnet.Close }
func (e *engine) OnClose(gnet.Conn, error) gnet.Action                  { return gnet.None }
func (e *engine) WaitsProxyHeader(*tlsport.Conn) bool                   { return false }
func (e *engine) ProxyHeader(*tlsport.Conn, []byte) (bool, gnet.Action) { return true, gnet.None }
func (e *engine) Forwarding(*tlsport.Conn) bool                         { return false }
func (e *engine) IdleFrom(*tlsport.Conn, time.Duration)                 {}
func (e *engine) HeaderTimeout() time.Duration                          { return 5 * time.Second }
func (e *engine) SendTimeout() time.Duration                            { return 5 * time.Second }
func (e *engine) SendTimedOut()                                         {}
func (e *engine) ServeH2(c *tlsport.Conn) {
	Serve(c, e, Options(h2.Options{}, time.Minute, 5*time.Second), slog.New(slog.DiscardHandler))
}

// TestServeBridges drives the bridge over loopback TLS with x/net's
// HTTP/2 client: each stream reaches the engine as its HTTP/1.1 head and
// its answer comes back framed; a reset is a reset, an empty answer a
// 500, a forward answers on its own; a body to come is asked about from
// the head alone, and then the stream decided with the length declared.
func TestServeBridges(t *testing.T) {
	ca := testutil.NewCA(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &engine{}
	l := tlsport.New(ln, tlsport.Options{Config: &tls.Config{Certificates: []tls.Certificate{ca.TLSCert(t, "localhost")},
		NextProtos: []string{"h2"}}, HandshakeTimeout: 5 * time.Second, Loops: 1, Log: slog.New(slog.DiscardHandler)}, e)
	served := make(chan struct{})
	go func() {
		defer close(served)
		l.Serve()
	}()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		l.Stop(ctx)
		<-served
	}()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}, Protocols: new(http.Protocols)}
	tr.Protocols.SetHTTP2(true)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "https://" + l.Addr().String()
	do := func(method, path, body string) (string, error) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Cookie", "a=1; b=2")
		res, err := client.Do(req)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.Status + " " + res.Header.Get("Location") + " " + string(b), err
	}

	tests := []struct{ method, path, body, want string }{
		{"GET", "/old", "", "301 Moved Permanently https://example.com/new "},
		{"GET", "/panicked", "", "500 Internal Server Error  "},
		{"GET", "/forward", "", "200 OK  forwarded"},
		{"POST", "/old", "hello", "301 Moved Permanently https://example.com/new "},
	}
	for _, tt := range tests {
		got, err := do(tt.method, tt.path, tt.body)
		if err != nil || got != tt.want {
			t.Errorf("%s %s: %q, %v; want %q", tt.method, tt.path, got, err, tt.want)
		}
	}
	if _, err = do("GET", "/reset", ""); err == nil || !strings.Contains(err.Error(), "received from peer") {
		t.Errorf("GET /reset: %v, want the stream reset", err)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.heads) != 5 {
		t.Fatalf("Decide got %d heads, want 5: %q", len(e.heads), e.heads)
	}
	host := "Host: " + l.Addr().String() + "\r\n"
	if h := e.heads[0]; !strings.HasPrefix(h, "GET /old HTTP/1.1\r\n"+host) || !strings.Contains(h, "\r\ncookie: a=1; b=2\r\n") {
		t.Errorf("GET's head: %q", h)
	}
	post := e.heads[3]
	if !strings.HasPrefix(post, "POST /old HTTP/1.1\r\n"+host) || !strings.HasSuffix(post, "\r\nContent-Length: 5\r\n\r\n") {
		t.Errorf("POST's head: %q", post)
	}
	if diff := cmp.Diff([]string{post}, e.needs); diff != "" {
		t.Errorf("NeedsBody's heads (-want +got):\n%s", diff)
	}
}
