package rewrite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// schemeSpec is a server that answers its name with a text.
func schemeSpec(host, scheme, text string) HostSpec {
	return HostSpec{Host: host, Scheme: scheme, Spec: Spec{Steps: []Text{{Src: `return 200 "` + text + `";`, Line: 1}}}}
}

// TestServersBySchemes: servers of plain and TLS listen ports, as
// certbot writes a site (a plain server that sends everything to https,
// the site on the TLS one), are chosen by the request's scheme.
func TestServersBySchemes(t *testing.T) {
	hosts, err := CompileHosts([]HostSpec{
		schemeSpec("example.com", "http", "plain example"),
		schemeSpec("example.com", "https", "tls example"),
		schemeSpec("", "http", "plain default"),
		schemeSpec("", "https", "tls default"),
		schemeSpec("both.example", "", "both"),
		schemeSpec("*.tls.example", "https", "tls wildcard"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !hosts.Schemed() {
		t.Error("Schemed() = false with servers of one scheme")
	}
	var got []string
	for _, host := range []string{"example.com", "both.example", "a.tls.example", "other"} {
		for _, https := range []bool{false, true} {
			var s Scratch
			var res Result
			req := request(host, "/", nil)
			hosts.ChooseOn(&s, req.Host, []byte("443"), https).Run(&s, req, &res)
			got = append(got, host+" "+map[bool]string{false: "http", true: "https"}[https]+": "+string(res.Body))
		}
	}
	want := []string{
		"example.com http: plain example", "example.com https: tls example",
		"both.example http: both", "both.example https: both",
		"a.tls.example http: plain default", "a.tls.example https: tls wildcard",
		"other http: plain default", "other https: tls default",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers chosen (-want +got):\n%s", diff)
	}
}

// TestServersBySchemesRefused: a name served on both schemes and on one
// of them is named twice there; a scheme is http or https.
func TestServersBySchemesRefused(t *testing.T) {
	for _, tt := range []struct {
		specs []HostSpec
		want  string
	}{
		{[]HostSpec{schemeSpec("a.example", "", "x"), schemeSpec("a.example", "https", "y")}, "named twice"},
		{[]HostSpec{schemeSpec("", "", "x"), schemeSpec("", "http", "y")}, "a second server"},
		{[]HostSpec{schemeSpec("a.example", "ftp", "x")}, "is no scheme"},
		{[]HostSpec{{Host: "a.example", Scheme: "https", Default: true, Spec: Spec{}}, {Host: "b.example", Scheme: "https", Default: true}}, "a second default server"},
	} {
		_, err := CompileHosts(tt.specs)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CompileHosts(%v) = %v, want an error with %q", tt.specs, err, tt.want)
		}
	}
	// A default server per scheme is no second one.
	if _, err := CompileHosts([]HostSpec{{Host: "a.example", Scheme: "http", Default: true}, {Host: "b.example", Scheme: "https", Default: true}}); err != nil {
		t.Errorf("a default server per scheme: %v", err)
	}
}
