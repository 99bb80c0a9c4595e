package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/safego"
)

const (
	textType = "text/plain; charset=utf-8"
	jsonType = "application/json"
	hint     = "percent-encode it: curl -G --data-urlencode url=http://host/path?query"
)

// start runs a server for b on a loopback port, shut down when the test
// ends, and returns it.
func start(t *testing.T, opts Options, b Backend) *Server {
	t.Helper()
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	s, err := New(opts, b)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return s
}

// answer is what a test checks of a response.
type answer struct {
	Status int
	Type   string
	Allow  string
	Body   string
}

// do sends one request with a plain client and returns its answer.
func do(t *testing.T, method, url string, header http.Header) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), string(body)}
}

const rulesJSON = `[
  {
    "kind": "exact",
    "from": "/old",
    "to": "/new",
    "status": 301,
    "source": "rules.toml:3",
    "hits": 5
  },
  {
    "kind": "regex",
    "from": "^/a/(\\d+)&x$",
    "to": "/b/$1",
    "status": 308,
    "host": "example.com",
    "source": "rules.toml:7",
    "hits": 0
  }
]
`

const unusedJSON = `[
  {
    "kind": "regex",
    "from": "^/a/(\\d+)&x$",
    "to": "/b/$1",
    "status": 308,
    "host": "example.com",
    "source": "rules.toml:7",
    "hits": 0
  }
]
`

func TestEndpoints(t *testing.T) {
	tests := []struct {
		name   string
		method string
		path   string
		setup  func(f *fakeBackend)
		want   answer
	}{
		{"metrics", "GET", "/metrics", nil,
			answer{200, metricsType, "", "# TYPE redirectd_requests_total counter\nredirectd_requests_total 7\n"}},
		{"metrics head", "HEAD", "/metrics", nil, answer{200, metricsType, "", ""}},
		{"healthz", "GET", "/healthz", nil, answer{200, textType, "", "ok\n"}},
		{"healthz while not ready", "GET", "/healthz",
			func(f *fakeBackend) { f.notReady = errors.New("draining") },
			answer{200, textType, "", "ok\n"}},
		{"readyz", "GET", "/readyz", nil, answer{200, textType, "", "ready\n"}},
		{"readyz rules not loaded", "GET", "/readyz",
			func(f *fakeBackend) { f.notReady = errors.New("rules not loaded") },
			answer{503, textType, "", "rules not loaded\n"}},
		{"readyz draining", "GET", "/readyz",
			func(f *fakeBackend) { f.notReady = errors.New("draining") },
			answer{503, textType, "", "draining\n"}},
		{"rules", "GET", "/rules", nil, answer{200, jsonType, "", rulesJSON}},
		{"rules unused", "GET", "/rules?unused=1", nil, answer{200, jsonType, "", unusedJSON}},
		{"rules unused=true", "GET", "/rules?unused=true", nil, answer{200, jsonType, "", unusedJSON}},
		{"rules unused=0", "GET", "/rules?unused=0", nil, answer{200, jsonType, "", rulesJSON}},
		{"rules unused bad", "GET", "/rules?unused=maybe", nil,
			answer{400, textType, "", "cannot parse unused \"maybe\": want 1 or 0\n"}},
		{"rules none", "GET", "/rules",
			func(f *fakeBackend) { f.rules = nil }, answer{200, jsonType, "", "[]\n"}},
		{"rules unused none", "GET", "/rules?unused=1",
			func(f *fakeBackend) { f.rules = f.rules[:1] }, answer{200, jsonType, "", "[]\n"}},
		{"explain", "GET", "/explain?url=http%3A%2F%2Fexample.com%2Fold", nil,
			answer{200, textType, "", "host example.com, path /old: rule exact /old -> /new (rules.toml:3)\n"}},
		{"explain missing url", "GET", "/explain", nil,
			answer{400, textType, "", "missing url: " + hint + "\n"}},
		{"explain empty url", "GET", "/explain?url=", nil,
			answer{400, textType, "", "missing url: " + hint + "\n"}},
		{"explain unescaped url", "GET", "/explain?url=http://a/p?x=1&y=2", nil,
			answer{400, textType, "", "unexpected query parameter \"y\": if it belongs to the url, " + hint + "; header=Name:value and client=IP describe the request\n"}},
		{"explain with header fields and a client", "GET", "/explain?url=http%3A%2F%2Fa%2Fhome&header=Accept-Language%3A%20de&header=Cookie%3A%20lang%3Dfr&client=203.0.113.9", nil,
			answer{200, textType, "", "host a, path /home: rule exact /old -> /new (rules.toml:3)\nwith Accept-Language: de\nwith Cookie: lang=fr\nfrom 203.0.113.9\n"}},
		{"explain two clients", "GET", "/explain?url=http%3A%2F%2Fa%2F&client=1.2.3.4&client=5.6.7.8", nil,
			answer{400, textType, "", "more than one client: give one IP address\n"}},
		{"explain two urls", "GET", "/explain?url=http%3A%2F%2Fa%2F&url=http%3A%2F%2Fb%2F", nil,
			answer{400, textType, "", "more than one url: " + hint + "\n"}},
		{"explain url with query, escaped", "GET", "/explain?url=http%3A%2F%2Fa%2Fp%3Fx%3D1%26y%3D2", nil,
			answer{200, textType, "", "host a, path /p: rule exact /old -> /new (rules.toml:3)\n"}},
		{"explain backend error", "GET", "/explain?url=%2Fold", nil,
			answer{400, textType, "", "url has no host\n"}},
		{"explain unparsable url", "GET", "/explain?url=http%3A%2F%2F%5B%3A%3A1", nil,
			answer{400, textType, "", "cannot parse url \"http://[::1\": parse \"http://[::1\": missing ']' in host\n"}},
		{"explain bad query", "GET", "/explain?url=%zz", nil,
			answer{400, textType, "", "cannot parse query: invalid URL escape \"%zz\"\n"}},
		{"reload", "POST", "/reload", nil,
			answer{200, textType, "", "reloaded\n3 rules (1 added, 0 removed)\n"}},
		{"reload no summary", "POST", "/reload",
			func(f *fakeBackend) { f.reloadOut = "" }, answer{200, textType, "", "reloaded\n"}},
		{"reload config error", "POST", "/reload",
			func(f *fakeBackend) { f.reloadErr = errors.New("rules.toml:4: rule #2: cannot parse `to`") },
			answer{400, textType, "", "rules.toml:4: rule #2: cannot parse `to`\n"}},
		{"reload get", "GET", "/reload", nil,
			answer{405, textType, "POST", "Method Not Allowed\n"}},
		{"reload put", "PUT", "/reload", nil,
			answer{405, textType, "POST", "Method Not Allowed\n"}},
		{"metrics post", "POST", "/metrics", nil,
			answer{405, textType, "GET, HEAD", "Method Not Allowed\n"}},
		{"healthz delete", "DELETE", "/healthz", nil,
			answer{405, textType, "GET, HEAD", "Method Not Allowed\n"}},
		{"readyz post", "POST", "/readyz", nil,
			answer{405, textType, "GET, HEAD", "Method Not Allowed\n"}},
		{"rules put", "PUT", "/rules", nil,
			answer{405, textType, "GET, HEAD", "Method Not Allowed\n"}},
		{"explain post", "POST", "/explain?url=http%3A%2F%2Fa%2F", nil,
			answer{405, textType, "GET, HEAD", "Method Not Allowed\n"}},
		{"unknown path", "GET", "/nope", nil, answer{404, textType, "", "404 page not found\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			if tt.setup != nil {
				f.set(tt.setup)
			}
			s := start(t, Options{}, f)
			got := do(t, tt.method, "http://"+s.Addr()+tt.path, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.path, diff)
			}
		})
	}
}

// TestReloadOnlyOnPost checks that a refused method never reaches the
// Backend: a GET from a link preview must not reload.
func TestReloadOnlyOnPost(t *testing.T) {
	f := newFake()
	s := start(t, Options{}, f)
	base := "http://" + s.Addr()
	do(t, "GET", base+"/reload", nil)
	do(t, "HEAD", base+"/reload", nil)
	do(t, "POST", base+"/reload", nil)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reloads != 1 {
		t.Errorf("reloads = %d, want 1", f.reloads)
	}
}

// TestReloadCrossOrigin checks that a browser POST from another site is
// refused, so a web page cannot reload a token-less admin server.
func TestReloadCrossOrigin(t *testing.T) {
	f := newFake()
	s := start(t, Options{}, f)
	url := "http://" + s.Addr() + "/reload"
	tests := []struct {
		name   string
		header http.Header
		want   int
	}{
		{"curl", nil, 200},
		{"cross-site fetch", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
		{"foreign origin", http.Header{"Origin": {"https://evil.example"}}, 403},
		{"same origin", http.Header{"Sec-Fetch-Site": {"same-origin"}}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := do(t, "POST", url, tt.header).Status; got != tt.want {
				t.Errorf("status = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	s := start(t, Options{}, newFake())
	resp, err := http.Get("http://" + s.Addr() + "/explain?url=http%3A%2F%2Fa%2F%3Cscript%3E")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
	}
}

func TestServerLimits(t *testing.T) {
	s, err := New(Options{}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	type limits struct {
		ReadHeader, Read, Write, Idle time.Duration
		MaxHeaderBytes                int
	}
	want := limits{5 * time.Second, 10 * time.Second, 30 * time.Second, 60 * time.Second, 64 << 10}
	got := limits{s.srv.ReadHeaderTimeout, s.srv.ReadTimeout, s.srv.WriteTimeout, s.srv.IdleTimeout, s.srv.MaxHeaderBytes}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("http.Server limits (-want +got):\n%s", diff)
	}
}

func TestStartPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := New(Options{Listen: ln.Addr().String()}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	err = s.Start()
	if err == nil {
		s.Shutdown(context.Background())
		t.Fatal("Start on a taken port: no error")
	}
	// Once, without "admin" (the command names [admin]), and what to do.
	want := "cannot listen on " + ln.Addr().String() + ": address already in use (another redirectd, or another server, listens there): stop it first, or give this one another admin address with serve -admin-listen ADDR (with -upgrade to take over from a running redirectd without downtime)"
	if err.Error() != want {
		t.Errorf("Start error:\n got %s\nwant %s", err, want)
	}
}

func TestStartTwice(t *testing.T) {
	s := start(t, Options{}, newFake())
	if err := s.Start(); !errors.Is(err, errStarted) {
		t.Errorf("second Start = %v, want %v", err, errStarted)
	}
}

func TestAddr(t *testing.T) {
	s, err := New(Options{Listen: "127.0.0.1:0"}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Addr(); got != "127.0.0.1:0" {
		t.Errorf("Addr before Start = %q, want the configured address", got)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	host, port, err := net.SplitHostPort(s.Addr())
	if err != nil || host != "127.0.0.1" || port == "0" {
		t.Errorf("Addr after Start = %q, want 127.0.0.1 with a chosen port", s.Addr())
	}
}

func TestShutdownStopsServing(t *testing.T) {
	s, err := New(Options{Listen: "127.0.0.1:0"}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	addr := s.Addr()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	// Another test may already have been given the freed port, so a
	// successful dial alone proves nothing: this server must not answer.
	if resp, err := (&http.Client{Timeout: time.Second}).Get("http://" + addr + "/healthz"); err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && string(body) == "ok\n" {
			t.Errorf("the admin server still answers after Shutdown")
		}
	}
	if err := s.Start(); !errors.Is(err, errStarted) {
		t.Errorf("Start after Shutdown = %v, want %v", err, errStarted)
	}
}

// TestWait checks Options.Wait: a request is handled only once it is
// closed, and one whose client leaves first is dropped unanswered.
func TestWait(t *testing.T) {
	wait := make(chan struct{})
	s := start(t, Options{Wait: wait}, newFake())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequestWithContext(ctx, "GET", "http://127.0.0.1/healthz", nil))
	if w.Body.Len() != 0 {
		t.Errorf("a request whose client left before Wait closed was answered: %d %q", w.Code, w.Body)
	}
	got := make(chan string, 1)
	go func() {
		defer safego.Recover("test client")
		resp, err := http.Get("http://" + s.Addr() + "/healthz")
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	select {
	case a := <-got:
		t.Fatalf("answered before Wait closed: %q", a)
	default:
	}
	close(wait)
	if a := <-got; a != "200 ok\n" {
		t.Errorf("after Wait closed: %q, want 200 ok", a)
	}
}
