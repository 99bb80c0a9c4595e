package apache

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMapComments: each [[location_map]] says where it comes from: a
// RewriteMap its line; a map the import writes of its own (no RewriteMap
// names it) the line and what there needs it, a flag where one does.
func TestMapComments(t *testing.T) {
	for _, tt := range []struct {
		name, conf string
		want       []string
	}{
		{"[B] and the Location", "RewriteEngine on\n\nRewriteRule ^/a(.*) /b$1 [R,B]\n", []string{
			"f.conf:3: [B] of RewriteRule",
			"f.conf:3: the Location of RewriteRule's redirect, escaped as Apache escapes it (no [NE])"}},
		{"[B=?] without escaping", "RewriteEngine on\nRewriteRule ^/a(.*) /b$1 [R,NE,B=?,BNP]\n", []string{"f.conf:2: [B=?,BNP] of RewriteRule"}},
		{"RedirectMatch", "RedirectMatch ^/c(.*) /d$1\n", []string{"f.conf:1: the Location of RedirectMatch, escaped as Apache escapes it"}},
		{"RewriteMap", "RewriteEngine on\nRewriteMap lc int:tolower\nRewriteRule ^/a(.*) /b${lc:$1} [R,NE]\n", []string{"f.conf:2: RewriteMap lc int:tolower"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dirs, err := Parse("f.conf", []byte(tt.conf))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range regexp.MustCompile(`(?m)^# (.*)\n\[\[location_map\]\]$`).FindAllStringSubmatch(Translate(dirs, nil).TOML(""), -1) {
				got = append(got, m[1])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the maps' comments (-want +got):\n%s", diff)
			}
		})
	}
}
