package apache

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHostName(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM":    "example.com",
		"*.example.com":  "*.example.com",
		"www.example.*":  `~^www\.example\..*$`,
		"w?.example.com": `~^w.\.example\.com$`,
	} {
		if got := hostName(in); got != want {
			t.Errorf("hostName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDirPattern: a per-directory pattern is anchored after the
// directory's prefix, each top-level alternative on its own; a '^'
// inside a group cannot be.
func TestDirPattern(t *testing.T) {
	c := &rwCtx{dir: "/blog/"}
	tests := []struct{ in, want string }{
		{"^old/(.*)$", `^/blog/old/(.*)$`},
		{`\.php$`, `^/blog/.*?\.php$`},
		{"^a|^b", `^/blog/a|^/blog/b`},
		{"^([^/]+)/$", `^/blog/([^/]+)/$`},
		{"(^a|b)", ""},
	}
	for _, tc := range tests {
		got, err := c.pattern(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("pattern(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("pattern(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestEscapeURI(t *testing.T) {
	for in, want := range map[string]string{
		"/a b":                 "/a%20b",
		"/caf\xc3\xa9":         "/caf%c3%a9",
		"/a?b#c%d":             "/a%3fb%23c%25d",
		"/ok-_.~!$&'()*+,;=:@": "/ok-_.~!$&'()*+,;=:@",
		"/[x]":                 "/%5bx%5d",
	} {
		if got := escapeURI(in); got != want {
			t.Errorf("escapeURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTranslateNotes: what each construct the import cannot say is
// reported as, with its line.
func TestTranslateNotes(t *testing.T) {
	tests := []struct {
		name, conf string
		want       []string
	}{
		{"forward", "RewriteEngine on\nRewriteRule ^/a http://b/ [P]\nRewriteRule ^/c http://$1/ [P]\nRewriteRule ^/d ftp://e/ [P]\n", []string{
			"translated with a caveat: f.conf:2: [P]: forwarded through the location /__apache_forward/apache-1/, which strips its prefix and to which a client's own request is answered 404",
			"left out: f.conf:3: a forward ([P]) to http://$1/: the backend's host is not a literal host name or address; left out",
			"left out: f.conf:4: a forward ([P]) to ftp://e/: not an http:// or https:// URL; left out"}},
		{"file test", "RewriteEngine on\nRewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule . /index.php [L]\n",
			[]string{"served by the original server itself: f.conf:3: RewriteCond %{REQUEST_FILENAME} !-f: a file test reads the site's files, which redirectd does not have: the rule is the site's own, not written"}},
		{"engine off", "RewriteRule ^/a /b [R]\n", []string{"translated with a caveat: f.conf:1: RewriteEngine is not on here: Apache does not run this rule, nor does redirectd"}},
		{"redirect goes on", "RewriteEngine on\nRewriteRule ^/a /b [R]\nRewriteRule ^/c /d [R=301]\nRewriteRule ^/e /f [NC,R,L]\nRewriteRule ^(.*)$ - [F]\n", []string{
			`translated with a caveat: f.conf:2: a redirect without [L]: Apache goes on with the rules, matching "redirect:URL", and f.conf:5 may match it and answer otherwise; the import answers the redirect`,
			`translated with a caveat: f.conf:3: a redirect without [L]: Apache goes on with the rules, matching "redirect:URL", and f.conf:5 may match it and answer otherwise; the import answers the redirect`}},
		{"flag", "RewriteEngine on\nRewriteRule ^/a - [N]\n", []string{"left out: f.conf:2: [N] on a rule that does not rewrite (Apache starts the rules again on the same URI until its bound); left out"}},
		{"int map", "RewriteMap lc int:tolower\nRewriteMap x int:rot13\n", []string{"left out: f.conf:2: RewriteMap x int:rot13: not one of Apache's int: functions (tolower, toupper, escape, unescape); the rules that read it are left out"}},
		{"prg map", "RewriteMap p prg:/usr/bin/m\n", []string{"left out: f.conf:1: RewriteMap p prg:/usr/bin/m: a program answers this map at each lookup, which redirectd cannot run; the rules that read it are left out"}},
		{"backref flags", "RewriteEngine on\nRewriteRule ^/a(.*) /b$1 [R,B=?]\nRewriteRule ^/c(.*) /d$1 [R,backrefnoplus]\nRewriteRule ^/e(.*) /f?$1 [QSL]\nRewriteRule ^/g(.*) /h?$1?x [QSL]\nRewriteRule ^/i(.*) /j$1 [R,B,BNE]\n", []string{
			"left out: f.conf:3: RewriteRule: unknown flag \"BACKREFNOPLUS\": Apache refuses the rule; left out",
			"left out: f.conf:5: [QSL] with a '?' in the path of an internal rewrite: the steps' rewrite starts the query at the first; left out",
			"left out: f.conf:6: [BNE] without the characters not to escape: Apache refuses the rule; left out"}},
		{"location", "<Location /x>\nRedirect /x /y\nRewriteRule ^ /z [R]\nRedirect 301 %{REQUEST_URI}\n</Location>\n<Location /w*>\nRedirect /x /y\n</Location>\n", []string{
			"left out: f.conf:4: Redirect %{REQUEST_URI}: the URL is an expression (ap_expr) the import does not read; only literal text; left out",
			"left out: f.conf:3: RewriteRule inside <Location /x>: Apache matches it with the file-system path, and the main server has no DocumentRoot the import can write; left out",
			"left out: f.conf:6: <Location /w*> holds redirects or rewrites; left out: only server context and .htaccess files are translated"}},
		{"location rewrite", "DocumentRoot /srv/www\n<Location /x>\nRewriteEngine on\nRewriteRule ^ /z [L]\nRewriteRule ^ z [R,L]\nRewriteRule ^ /z [R,N]\n</Location>\n", []string{
			"left out: f.conf:4: an internal rewrite inside <Location> (Apache's per-directory round on the file-system path) is not translated, only redirects; left out",
			"left out: f.conf:5: a relative substitution inside <Location> (Apache puts a file-system path in front of it) is not translated; left out",
			"left out: f.conf:6: [N], [P] or [PT] inside <Location> (a per-directory round on the file-system path) is not translated; left out"}},
		{"proxy match", "ProxyPass /a/ http://b/c/\nProxyPassMatch ^/a/(.*)\\.png$ http://b/i/$1\nProxyPassMatch ^/x(.*)$ http://b/%1\nProxyPassMatch ^/y http://b/$x\nProxyPassMatch ^/z !\n", []string{
			"translated with a caveat: f.conf:2: ProxyPassMatch ^/a/(.*)\\.png$: a path that ProxyPass /a/ before it also takes goes here (redirectd's regex locations win over its prefix ones), where Apache takes the first",
			"left out: f.conf:3: ProxyPassMatch ^/x(.*)$ http://b/%1: only an http:// or https:// URL whose path has no query and no '%', groups as $0..$9, is translated; left out",
			"left out: f.conf:4: ProxyPassMatch ^/y http://b/$x: only an http:// or https:// URL whose path has no query and no '%', groups as $0..$9, is translated; left out",
			"served by the original server itself: f.conf:5: ProxyPassMatch ^/z !: the paths are the site's own"}},
		{"redirect status", "RewriteEngine on\nRewriteRule ^/a /b [R=gone]\nRewriteRule ^/c /d [R=Permanent]\nRewriteRule ^/e /f [R=410]\nRewriteRule ^/g /h [R=299]\nRewriteRule ^/i /j [redirect=3xx]\nRewriteRule ^/k /l [R=301x,L]\n", []string{
			"translated with a caveat: f.conf:2: [R=gone]: mod_rewrite's status words are permanent, temp and seeother; Apache answers another as a 302 redirect, and so does the import",
			"left out: f.conf:5: RewriteRule: [R=299]: invalid HTTP response code '299' for flag 'R': Apache refuses the rule; left out",
			"left out: f.conf:6: RewriteRule: [R=3xx]: invalid HTTP response code '3xx' for flag 'R': Apache refuses the rule; left out"}},
		{"error page", "ErrorDocument 404 /nf.html\n", []string{"served by the original server itself: f.conf:1: ErrorDocument 404 /nf.html: a page or a text of the site's own"}},
		{"redirect", "Redirect 301 /a /b\nRedirectMatch ^/c(.*) /d$1\n", nil},
		{"whole match", "RewriteEngine on\nRewriteRule ^/a(.*)$ /b$0 [R]\nRewriteRule ^/c /d$0 [R,L]\nRedirectMatch ^/e$ $0/\nRedirectMatch /f /g$0\n", []string{
			"left out: f.conf:3: $0 of a pattern not anchored at both ends (^...$) is not translated; left out",
			"left out: f.conf:5: RedirectMatch: the step written for it does not load ($0 of a regex not anchored at both ends (^...$) is not translated); left out"}},
		{"if module", "<IfModule mod_rewrite.c>\nRewriteEngine on\nRewriteRule ^/a$ /b [R,P]\n</IfModule>\n<IfModule !mod_rewrite.c>\nProxyPassMatch ^/x http://b/\n</IfModule>\n",
			[]string{"left out: f.conf:3: a forward ([P]) to /b: not an http:// or https:// URL; left out"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dirs, err := Parse("f.conf", []byte(tc.conf))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range Translate(dirs, nil).Notes {
				got = append(got, n.Kind+": "+n.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestBatchOwner: in a run of Redirects, each path's answer is the
// first line covering it, worked out at import.
func TestBatchOwner(t *testing.T) {
	var conf strings.Builder
	for i := range minBatch {
		conf.WriteString("Redirect 301 /p" + strings.Repeat("x", i) + " /t\n")
	}
	conf.WriteString("Redirect 302 /a /first\nRedirect 301 /a/b /never\nRedirect 301 /c/ /slash\nRedirect 301 /c/d /own\n")
	dirs, err := Parse("f.conf", []byte(conf.String()))
	if err != nil {
		t.Fatal(err)
	}
	res := Translate(dirs, nil)
	var runs []*LocMap
	for _, m := range res.Maps {
		if m.Function == "" {
			runs = append(runs, m)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("%d maps of entries, want the run as one", len(runs))
	}
	// "/c/" to "/slash" sends /c/d to /slashd: Apache appends what
	// follows the path to the URL as it is.
	for _, want := range []string{"/a/b \"/a/b\t302\t/first/b\";", "/c/d \"/c/d\t301\t/slashd\";", "/c/ \"/c/\t301\t/slash\";"} {
		if !strings.Contains(runs[0].Entries, want) {
			t.Errorf("the map lacks %q:\n%s", want, runs[0].Entries)
		}
	}
}

// TestLexical checks the regexes of <, <=, > and >= against
// mod_rewrite's compare_lexicography: length first, then bytes.
func TestLexical(t *testing.T) {
	cmp := func(a, b string) int {
		if len(a) != len(b) {
			if len(a) > len(b) {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	}
	values := []string{"", "a", "b", "m", "z", "aa", "ab", "mm", "abc", "abd", "abb", "zzz", "abcd", "A", "0", "~"}
	for _, op := range []string{"<", "<=", ">", ">="} {
		for _, s := range []string{"", "m", "abc", "b0"} {
			re, neg := lexical(op + s)
			rx := regexp.MustCompile(re)
			for _, v := range values {
				c := cmp(v, s)
				want := map[string]bool{"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
				if got := rx.MatchString(v) != neg; got != want {
					t.Errorf("%q %s%q: got %v, want %v (regex %s)", v, op, s, got, want, re)
				}
			}
		}
	}
}
