package engine_test

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// TestVaryForwardedProto: behind a trusted TLS terminator without
// https_redirect, an answer decided by the scheme X-Forwarded-Proto gave
// (a rule's when.scheme, servers split by scheme, $scheme in the rewrite
// phase, an absolute Location's origin) carries Vary: X-Forwarded-Proto,
// so that a cache between the terminator and redirectd does not hand
// the http answer to https visitors; one that does not read the scheme,
// or from a client whose header is not believed, carries none. Raw
// requests over loopback, both schemes each.
func TestVaryForwardedProto(t *testing.T) {
	t.Parallel()
	schemeRules := []matcher.Rule{
		{From: "/a", To: "/on-https", Status: 301, When: &matcher.When{Scheme: "https"}},
		{From: "/a", To: "/on-http", Status: 301},
		{From: "/plain", To: "https://example.com/p", Status: 301},
	}
	split := []rewrite.HostSpec{
		{Host: "example.com", Scheme: "http", Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: `return 301 https://$host$request_uri;`}}}},
		{Host: "example.com", Scheme: "https", Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: `return 200 "site";`}}}},
	}
	schemeVar := []rewrite.HostSpec{{Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: `if ($scheme = http) { return 301 https://example.com$request_uri; } return 302 https://example.com/tls;`}}}}}
	plainModel := []rewrite.HostSpec{{Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: `return 301 https://example.com/x;`}}}}}
	headerVar := []rewrite.HostSpec{{Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: xfpSteps}}}}}
	headerMap := []rewrite.HostSpec{{Spec: rewrite.Spec{
		Maps:  []rewrite.MapSpec{{Source: "$http_x_forwarded_proto", Variable: "to_tls", Entries: "default 1; https 0;"}},
		Steps: []rewrite.Text{{Src: `if ($to_tls) { return 301 https://example.com$request_uri; }`}}}}}
	for _, tc := range []struct {
		name     string
		rules    []matcher.Rule
		hosts    []rewrite.HostSpec
		path     string
		trusted  bool
		absolute bool
		want     string // Vary on the plain and the forwarded request: "yes yes"
	}{
		{"when.scheme", schemeRules, nil, "/a", true, false, "yes yes"},
		{"a path no scheme rule reaches", schemeRules, nil, "/a/none", true, false, "no no"},
		{"when.scheme that fails: a 404", []matcher.Rule{{From: "/s", To: "/t", Status: 301, When: &matcher.When{Scheme: "https"}}}, nil, "/s", true, false, "yes yes"},
		{"rule without scheme", schemeRules, nil, "/plain", true, false, "no no"},
		{"when.scheme, header not believed", schemeRules, nil, "/a", false, false, "no no"},
		{"servers split by scheme", nil, split, "/x", true, false, "yes yes"},
		{"$scheme in a step", nil, schemeVar, "/x", true, false, "yes yes"},
		{"model without scheme", nil, plainModel, "/x", true, false, "no no"},
		{"$http_x_forwarded_proto in a step", nil, headerVar, "/x", true, false, "yes yes"},
		{"$http_x_forwarded_proto in a step, header not believed", nil, headerVar, "/x", false, false, "yes yes"},
		{"a step answers before the one reading it", nil, headerVar, "/early", false, false, "no no"},
		{"$http_x_forwarded_proto as a map's source", nil, headerMap, "/x", false, false, "yes yes"},
		{"absolute Location", []matcher.Rule{{From: "/r", To: "/to", Status: 301}}, nil, "/r", false, true, "yes yes"},
		{"absolute_redirect, a full URL", []matcher.Rule{{From: "/r", To: "https://example.com/to", Status: 301}}, nil, "/r", false, true, "yes yes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := matcher.Compile(tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			if tc.hosts != nil {
				hosts, err := rewrite.CompileHosts(tc.hosts)
				if err != nil {
					t.Fatal(err)
				}
				set.SetLocations(hosts)
			}
			opts := engine.Options{AbsoluteRedirect: tc.absolute}
			if tc.trusted {
				opts.Proxies = engine.ProxyOptions{Trusted: trustLoopback}
			}
			srv := startServerWith(t, opts)
			srv.Swap(set)
			var got []string
			for _, xfp := range []string{"", "X-Forwarded-Proto: https\r\n"} {
				head := rawHead(t, srv, "GET "+tc.path+" HTTP/1.1\r\nHost: example.com\r\n"+xfp+"\r\n")
				vary := "no"
				if strings.Contains(head, "\r\nVary: X-Forwarded-Proto\r\n") {
					vary = "yes"
				}
				got = append(got, vary)
			}
			if diff := cmp.Diff(tc.want, strings.Join(got, " ")); diff != "" {
				t.Errorf("Vary on the plain, the forwarded request (-want +got):\n%s", diff)
			}
		})
	}
}

// xfpSteps decide by X-Forwarded-Proto as sent, as a site behind a TLS
// terminator writes it, after a step that answers /early first.
const xfpSteps = `if ($uri = /early) { return 200 "early"; }
if ($http_x_forwarded_proto != "https") { return 301 https://example.com$request_uri; }
return 200 "tls";`

// TestVaryForwardedProtoTLS: on the TLS port, a step reading
// X-Forwarded-Proto itself varies its answer on it beside the HSTS
// field; one answered before that step carries HSTS alone.
func TestVaryForwardedProtoTLS(t *testing.T) {
	t.Parallel()
	set, err := matcher.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := rewrite.CompileHosts([]rewrite.HostSpec{{Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: xfpSteps}}}}})
	if err != nil {
		t.Fatal(err)
	}
	set.SetLocations(hosts)
	srv := startH2(t, engine.Options{})
	srv.Swap(set)
	base := "https://" + srv.TLSAddr()
	type fields struct{ Status, HSTS, Vary string }
	var got []fields
	for _, path := range []string{"/x", "/early"} {
		for _, c := range []*http.Client{h1Client(t), h2Client(t)} {
			a := doRequest(t, c, "GET", base+path, "example.com", "")
			got = append(got, fields{fmt.Sprint(a.Status), a.HSTS, a.Vary})
		}
	}
	want := []fields{{"301", "max-age=60", "X-Forwarded-Proto"}, {"301", "max-age=60", "X-Forwarded-Proto"}, {"200", "max-age=60", ""}, {"200", "max-age=60", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status, HSTS, Vary over HTTP/1.1 and h2 (-want +got):\n%s", diff)
	}
}

// rawHead sends req over a new connection to srv's plain port and
// returns the answer's head as sent, up to its blank line.
func rawHead(t *testing.T, srv *engine.Server, req string) string {
	t.Helper()
	c := dial(t, srv)
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the answer: %v (so far %q)", err, head.String())
		}
		head.WriteString(line)
		if line == "\r\n" {
			return head.String()
		}
	}
}
