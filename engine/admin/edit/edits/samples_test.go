package edits

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/matcher"
)

// TestSamplesForwarded: a draft's sample answers say "forwarded" for a
// URL no rule takes when an upstream takes it (they said 404 on a site
// whose pages the upstream serves), and 404 where none does.
func TestSamplesForwarded(t *testing.T) {
	set, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, Host: "a.example", From: "/old", To: "/new", Status: 301}})
	if err != nil {
		t.Fatal(err)
	}
	upstream := func(host, path string) string {
		if host == "a.example" {
			return "forwarded"
		}
		return "404"
	}
	tests := []struct {
		name string
		e    edit.Entry
		want []edit.Sample
	}{
		{"an add over a forwarded page", edit.Entry{Op: edit.OpAdd, Host: "a.example", From: "/page", To: "/p", Status: 301},
			[]edit.Sample{{URL: "http://a.example/page", Old: "forwarded", New: "301 /p"}}},
		{"a delete hands the page to the upstream", edit.Entry{Op: edit.OpDelete, Host: "a.example", From: "/old"},
			[]edit.Sample{{URL: "http://a.example/old", Old: "301 /new", New: "forwarded"}}},
		{"no upstream for the host", edit.Entry{Op: edit.OpAdd, Host: "b.example", From: "/page", To: "/p", Status: 302},
			[]edit.Sample{{URL: "http://b.example/page", Old: "404", New: "302 /p"}}},
		{"an add with conditions says for whom", edit.Entry{Op: edit.OpAdd, Host: "a.example", From: "/old", To: "/de", Status: 302, When: map[string]any{"language": "de"}},
			[]edit.Sample{{URL: "http://a.example/old", Old: "301 /new", New: "302 /de when language = de"}}},
	}
	for _, tt := range tests {
		var m matcher.Match
		if diff := cmp.Diff(tt.want, samples(set, &m, &tt.e, nil, upstream)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
