package admin

import (
	"errors"
	"io"
	"net/http"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToken(t *testing.T) {
	const token = "s3cr3t-T0ken_~+/="
	s := start(t, Options{Token: token}, newFake())
	base := "http://" + s.Addr()
	bearer := func(v string) http.Header { return http.Header{"Authorization": {v}} }
	type result struct {
		Status int
		Auth   string // WWW-Authenticate
	}
	tests := []struct {
		name   string
		method string
		path   string
		header http.Header
		want   result
	}{
		{"healthz open", "GET", "/healthz", nil, result{200, ""}},
		{"healthz wrong token", "GET", "/healthz", bearer("Bearer nope"), result{200, ""}},
		{"metrics missing", "GET", "/metrics", nil, result{401, "Bearer"}},
		// Probes need no token; without one /readyz says only ready or
		// not (quietReadyz).
		{"readyz open", "GET", "/readyz", nil, result{200, ""}},
		{"livez open", "GET", "/livez", nil, result{200, ""}},
		{"readyz wrong method", "POST", "/readyz", nil, result{401, "Bearer"}},
		{"rules missing", "GET", "/rules", nil, result{401, "Bearer"}},
		{"explain missing", "GET", "/explain?url=http%3A%2F%2Fa%2F", nil, result{401, "Bearer"}},
		{"reload missing", "POST", "/reload", nil, result{401, "Bearer"}},
		{"wrong method missing", "DELETE", "/metrics", nil, result{401, "Bearer"}},
		{"unknown path missing", "GET", "/nope", nil, result{401, "Bearer"}},
		{"healthz dressed up", "GET", "/healthz/../metrics", nil, result{401, "Bearer"}},
		{"wrong", "GET", "/metrics", bearer("Bearer nope"), result{401, "Bearer"}},
		{"prefix of token", "GET", "/metrics", bearer("Bearer " + token[:5]), result{401, "Bearer"}},
		{"token plus more", "GET", "/metrics", bearer("Bearer " + token + "x"), result{401, "Bearer"}},
		{"basic scheme", "GET", "/metrics", bearer("Basic " + token), result{401, "Bearer"}},
		{"no scheme", "GET", "/metrics", bearer(token), result{401, "Bearer"}},
		{"empty bearer", "GET", "/metrics", bearer("Bearer "), result{401, "Bearer"}},
		{"right", "GET", "/metrics", bearer("Bearer " + token), result{200, ""}},
		{"right, scheme in lower case", "GET", "/rules", bearer("bearer " + token), result{200, ""}},
		{"right, readyz", "GET", "/readyz", bearer("Bearer " + token), result{200, ""}},
		{"right, explain", "GET", "/explain?url=http%3A%2F%2Fa%2F", bearer("Bearer " + token), result{200, ""}},
		{"right, reload", "POST", "/reload", bearer("Bearer " + token), result{200, ""}},
		{"right, wrong method", "DELETE", "/metrics", bearer("Bearer " + token), result{405, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, base+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The client sends "/healthz/../metrics" as written; the
			// server must not take it for /healthz.
			req.Header = tt.header
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := result{resp.StatusCode, resp.Header.Get("WWW-Authenticate")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.path, diff)
			}
		})
	}
}

// TestProbesRevealNothing checks that without the token the health
// probes answer their status and a fixed word, never the reason a node
// is not ready (a reload's error names files), nor any header a request
// with the token would not get.
func TestProbesRevealNothing(t *testing.T) {
	const token = "probe-token"
	f := newFake()
	f.set(func(f *fakeBackend) {
		f.notReady = errors.New("reload failed: /etc/redirectd/secret-rules.toml:3: bad")
	})
	s := start(t, Options{Token: token}, f)
	type answer struct {
		Status  int
		Body    string
		Headers []string
	}
	get := func(method, path string) answer {
		req, _ := http.NewRequest(method, "http://"+s.Addr()+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var names []string
		for k := range resp.Header {
			names = append(names, k)
		}
		sort.Strings(names)
		return answer{resp.StatusCode, string(body), names}
	}
	fields := []string{"Content-Length", "Content-Type", "Date", "X-Content-Type-Options"}
	for _, tt := range []struct {
		method, path string
		want         answer
	}{
		{"GET", "/readyz", answer{503, "not ready\n", fields}},
		{"HEAD", "/readyz", answer{503, "", fields}},
		{"GET", "/livez", answer{200, "ok\n", fields}},
		{"GET", "/healthz", answer{200, "ok\n", fields}},
		{"GET", "/readyz?verbose=1", answer{503, "not ready\n", fields}},
	} {
		if diff := cmp.Diff(tt.want, get(tt.method, tt.path)); diff != "" {
			t.Errorf("%s %s without the token (-want +got):\n%s", tt.method, tt.path, diff)
		}
	}
}

// TestSetToken checks that a replaced token takes effect at once, the old
// one being refused, and that a token cannot be turned on or off.
func TestSetToken(t *testing.T) {
	s := start(t, Options{Token: "old-token"}, newFake())
	status := func(token string) int {
		req, _ := http.NewRequest("GET", "http://"+s.Addr()+"/rules", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status("old-token"); got != 200 {
		t.Fatalf("old token before the swap: %d", got)
	}
	if err := s.SetToken("new-token"); err != nil {
		t.Fatal(err)
	}
	if got := []int{status("old-token"), status("new-token")}; !cmp.Equal(got, []int{401, 200}) {
		t.Errorf("old, new token after the swap: %v, want [401 200]", got)
	}
	if err := s.SetToken(""); err == nil {
		t.Error("SetToken(\"\") turned the token off")
	}
	if err := s.SetToken("bad token"); !errors.Is(err, ErrBadToken) {
		t.Errorf("SetToken with a space: %v, want ErrBadToken", err)
	}
	open := start(t, Options{}, newFake())
	if err := open.SetToken("x"); err == nil {
		t.Error("SetToken turned a token on")
	}
}
