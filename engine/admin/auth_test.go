package admin

import (
	"net/http"
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
