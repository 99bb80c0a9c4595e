package apache

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
)

// checkImport translates a server config and a DocumentRoot .htaccess,
// lets spoil change what was translated before it is written (an
// import's mistake), loads the config as the import does and runs the
// self-check.
func checkImport(t *testing.T, server, root string, spoil func(*Result)) (*Result, CheckStats) {
	t.Helper()
	conf, err := Parse("httpd.conf", []byte(server))
	if err != nil {
		t.Fatal(err)
	}
	var hts []HTAccess
	if root != "" {
		d, err := Parse(".htaccess", []byte(root))
		if err != nil {
			t.Fatal(err)
		}
		hts = append(hts, HTAccess{Dir: "/", File: ".htaccess", Dirs: d})
	}
	res := Translate(conf, hts)
	if spoil != nil {
		spoil(res)
	}
	dir := t.TempDir()
	written, err := Write(dir, res, "test")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(written)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.TOML("test"))
	}
	return res, res.SelfCheck(cfg.Locations)
}

const checkServer = `RewriteEngine On
RewriteRule ^/old/(.*)$ /new/$1 [R=301,L]
RewriteCond %{HTTP_HOST} ^www\.(.+)$ [NC]
RewriteRule ^/www/(.*)$ http://%1/$1 [R=301,L]
Redirect 302 /red http://ex.test/target
RedirectMatch 301 ^/rm/(.*)\.html$ /rm2/$1
RewriteCond %{QUERY_STRING} ^k=(.*)$
RewriteRule ^/e1$ /p1?%1 [R=302,L]
`

const checkRoot = `RewriteEngine On
RewriteBase /
RewriteRule ^ht/(.*)$ dest/$1 [R=301,L]
RewriteRule ^gone$ - [G]
Redirect 301 /hr /hr-target
`

// TestSelfCheckAgrees: the import's own translation of each construct
// answers every request the model answers as the model does.
func TestSelfCheckAgrees(t *testing.T) {
	res, st := checkImport(t, checkServer, checkRoot, nil)
	if st.Compared < 50 || st.Differ != 0 || res.Differs() {
		t.Errorf("self-check %+v, notes %v: want over 50 requests compared, none differing", st, res.Notes)
	}
}

// TestSelfCheckFindsDifference: a translation that answers otherwise
// than Apache (a step's status changed, as an import's mistake would)
// is noted with the directive's file:line, as a difference.
func TestSelfCheckFindsDifference(t *testing.T) {
	tests := []struct {
		name, from, to string
		where          string
	}{
		{"a server RewriteRule's status", "permanent;", "redirect;", "httpd.conf:2"},
		{"a Redirect's target", "target${a_rest}", "other${a_rest}", "httpd.conf:5"},
		{"a .htaccess rule's pattern", "^/ht/", "^/hx/", ".htaccess:3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, st := checkImport(t, checkServer, checkRoot, func(res *Result) {
				spoilSteps(t, res, tc.from, tc.to)
			})
			if st.Differ == 0 {
				t.Fatalf("self-check %+v: the spoiled translation is not found", st)
			}
			var where []string
			for _, n := range res.Notes {
				if n.Kind == importer.Differs {
					where = append(where, filepath.Base(n.File)+":"+itoa(n.Line))
				}
			}
			for _, w := range where {
				if w != tc.where {
					t.Errorf("difference noted at %s, want %s (%v)", w, tc.where, res.Notes)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// spoilSteps replaces from with to in the first step that holds it.
func spoilSteps(t *testing.T, res *Result, from, to string) {
	t.Helper()
	for _, s := range res.Servers {
		for i, l := range s.Steps {
			if strings.Contains(l, from) {
				s.Steps[i] = strings.Replace(l, from, to, 1)
				return
			}
		}
		for _, loc := range s.Locations {
			for i, l := range loc.Steps {
				if strings.Contains(l, from) {
					loc.Steps[i] = strings.Replace(l, from, to, 1)
					return
				}
			}
		}
	}
	t.Fatalf("no step holds %q", from)
}

// TestModelAnswers: the model's answers to requests of the constructs
// it follows, each as a real Apache 2.4 gives it (the differential
// tests in cmd/redirectd compare the model with one on every fixture).
func TestModelAnswers(t *testing.T) {
	conf, _ := Parse("httpd.conf", []byte(checkServer))
	root, _ := Parse(".htaccess", []byte(checkRoot+"RewriteRule ^internal$ /elsewhere [L]\n"))
	m := newModel(conf, []HTAccess{{Dir: "/", Dirs: root}})
	tests := map[string]string{
		"/old/a%20b?x=1":  "301 http://example.test/new/a%20b?x=1",
		"/old/caf%C3%A9":  "301 http://example.test/new/caf%c3%a9",
		"/old/a%25b":      "301 http://example.test/new/a%25b",
		"/red/x/y?q":      "302 http://ex.test/target/x/y?q",
		"/redx":           "no redirect",
		"//red//x":        "302 http://ex.test/target/x",
		"/rm/a.html?z=1":  "301 http://example.test/rm2/a?z=1",
		"/ht/a":           "301 http://example.test/dest/a",
		"/gone":           "410",
		"/hr/x":           "301 http://example.test/hr-target/x",
		"/a%2Fb":          "no redirect",
		"/internal":       "unknown",
		"/old/./x/../y":   "301 http://example.test/new/y",
		"/nothing/at/all": "no redirect",
		"/e1?k=":          "302 http://example.test/p1",
		"/e1?k=v":         "302 http://example.test/p1?v",
	}
	got := map[string]string{}
	for target := range tests {
		a := m.answer(probe{host: "example.test", target: target})
		got[target] = a.String()
		if !a.known {
			got[target] = "unknown"
		}
	}
	if d := cmp.Diff(tests, got); d != "" {
		t.Errorf("model answers (-want +got):\n%s", d)
	}
}
