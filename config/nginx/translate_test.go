package nginx

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/matcher"
)

const (
	exact   = matcher.Exact
	regex   = matcher.Regex
	keep    = matcher.QueryKeep
	replace = matcher.QueryReplace
)

func TestTranslate(t *testing.T) {
	tests := []struct {
		name  string
		conf  string
		want  []Rule
		notes []string // fragments, one per expected note, in order
	}{
		{
			name: "return: exact, ^~ and plain prefixes, regexes with captures",
			conf: `server {
				location = /a { return 301 /b; }
				location /p/ { return 302 https://x.example/; }
				location ^~ /c/ { return 301 /d; }
				location ~* ^/r/(\d+)$ { return 308 /s/$1?x=$args; }
			}`,
			want: []Rule{
				{Kind: exact, From: "/a", To: "/b", Status: 301, QueryString: replace, Form: "location ="},
				{Kind: regex, From: `^/c/`, To: "/d", Status: 301, QueryString: replace, Form: "location ^~"},
				{Kind: regex, From: `^/r/(\d+)$`, To: "/s/${1}?x=${query}", Status: 308, CaseInsensitive: true, QueryString: replace, Form: "location ~*"},
				{Kind: regex, From: `^/p/`, To: "https://x.example/", Status: 302, QueryString: replace, Form: "location (prefix)"},
			},
		},
		{
			name: "rewrite: arguments kept, joined with &, or dropped",
			conf: `server {
				rewrite ^/a/(.*)$ /b/$1 permanent;
				rewrite ^/q$ /r?x=1 redirect;
				rewrite ^/n$ /m? permanent;
				rewrite ^/abs$ https://x.example$request_uri?;
			}`,
			want: []Rule{
				{Kind: regex, From: `^/a/(.*)$`, To: "/b/${1}", Status: 301, QueryString: keep, Form: "rewrite"},
				{Kind: regex, From: `^/q$`, To: "/r?x=1", Status: 302, QueryString: keep, Form: "rewrite"},
				{Kind: regex, From: `^/n$`, To: "/m", Status: 301, QueryString: replace, Form: "rewrite"},
				{Kind: regex, From: `^/abs$`, To: "https://x.example${path}", Status: 302, QueryString: keep, Form: "rewrite"},
			},
		},
		{
			name: "rewrite inside a regex location of the same regex",
			conf: `server {
				location ~* ^/item/(\d+)$ { rewrite ^/item/(\d+)$ /items/$1 permanent; }
				location ~ ^/x/(\d+)$ { rewrite ^/x/(\d+)$ /y/$1 permanent; }
			}`,
			want: []Rule{
				{Kind: regex, From: `^/item/(\d+)$`, To: "/items/${1}", Status: 301, QueryString: keep, Form: "rewrite"},
				// The rewrite compares with case, the location without:
				// /ITEM/1 is the location's own, no redirect.
				{Kind: regex, From: `^/item/(\d+)$`, CaseInsensitive: true, Pass: true, Form: FormLocationEnd, Map: "no-redirect@t.conf:1/regex"},
				{Kind: regex, From: `^/x/(\d+)$`, To: "/y/${1}", Status: 301, QueryString: keep, Form: "rewrite"},
			},
		},
		{
			name: "server_name hosts and a server-level return",
			conf: `server { server_name a.test .b.test; return 301 https://$host$request_uri; }
			       server { server_name *.c.test; location = /x { return 301 /y; } }`,
			want: []Rule{
				{Kind: regex, From: "^", To: "https://${host}${path}", Status: 301, Hosts: []string{"a.test", "b.test", "*.b.test"}, QueryString: keep, Form: "return (server)"},
				{Kind: exact, From: "/x", To: "/y", Status: 301, Hosts: []string{"*.c.test"}, QueryString: replace, Form: "location ="},
			},
			notes: []string{"default server"},
		},
		{
			name: "map on $uri used by if at server level",
			conf: `map $uri $new { default ""; /Old /new; ~^/r/(\d+)$ /s/$1; }
			       server { if ($new) { return 301 $new; } location = /old { return 301 /shadowed; } }`,
			want: []Rule{
				{Kind: exact, From: "/old", To: "/new", Status: 301, CaseInsensitive: true, QueryString: replace, Form: "map entry", Map: "new@t.conf:2/exact"},
				{Kind: regex, From: `^/r/(\d+)$`, To: "/s/${1}", Status: 301, QueryString: replace, Form: "map entry", Map: "new@t.conf:2/regex"},
			},
		},
		{
			name: "exact location answered by an earlier server-level rewrite",
			conf: `server { rewrite ^/x/(.*)$ /y/$1 permanent; location = /x/1 { return 301 /never; } }`,
			want: []Rule{
				{Kind: exact, From: "/x/1", To: "/y/1", Status: 301, QueryString: keep, Form: "rewrite"},
				{Kind: regex, From: `^/x/(.*)$`, To: "/y/${1}", Status: 301, QueryString: keep, Form: "rewrite"},
			},
		},
		{
			name: "hostnames map on $host",
			conf: `map $host $to { hostnames; default ""; .old.test new.example; x.test y.example; ~^a ignored; }
			       server { server_name main.test .old.test x.test; if ($to) { return 301 https://$to$request_uri; } location = /p { return 301 /q; } }`,
			want: []Rule{
				{Kind: exact, From: "/p", To: "/q", Status: 301, QueryString: replace, Form: "location ="},
				{Kind: regex, From: "^", To: "https://y.example${path}", Status: 301, Hosts: []string{"x.test"}, QueryString: keep, Form: "map entry (host)"},
				{Kind: regex, From: "^", To: "https://new.example${path}", Status: 301, Hosts: []string{"old.test", "*.old.test"}, QueryString: keep, Form: "map entry (host)"},
			},
			notes: []string{"regex key ~^a has no redirectd equivalent"},
		},
		{
			name: "regexes RE2 cannot express are kept, to run as PCRE",
			conf: `server {
				rewrite ^/docs/(?!(v\d|latest)/)(.+)$ /docs/v2/$2 redirect;
				location ~* ^/(?<w>[a-z]+)/\k<w>$ { return 301 /twice/$w; }
			}`,
			want: []Rule{
				{Kind: regex, From: `^/docs/(?!(v\d|latest)/)(.+)$`, To: "/docs/v2/${2}", Status: 302, QueryString: keep, Form: "rewrite"},
				{Kind: regex, From: `^/(?<w>[a-z]+)/\k<w>$`, To: "/twice/${w}", Status: 301, CaseInsensitive: true, QueryString: replace, Form: "location ~*"},
			},
		},
		{
			name: "what is not translated is listed",
			conf: `server {
				rewrite ^/int$ /other last;
				if ($scheme = http) { return 301 https://$host$request_uri; }
				location /a/ { rewrite ^/(.*)$ /b/$1 permanent; }
				location ~ ^/(x(?1)?) { return 301 /y; }
				location = /v { return 301 /w$http_user_agent; }
				location = /keep { return 200 "ok"; }
				location / { return 301 https://new.example$request_uri; }
			}`,
			want: []Rule{
				{Kind: exact, From: "/keep", Pass: true, Form: FormLocationEnd, Map: "no-redirect@t.conf:1/exact"},
				{Kind: regex, From: `^/a/`, Pass: true, Form: FormLocationEnd, Map: "no-redirect@t.conf:1/regex"},
				{Kind: regex, From: `^/`, To: "https://new.example${path}", Status: 301, QueryString: keep, Form: "location (prefix)"},
			},
			notes: []string{
				"t.conf:2: rewrite ^/int$ /other last: an internal rewrite",
				"t.conf:3: if $scheme = http: only `if ($map_variable)",
				"t.conf:5: location ~: regex ^/(x(?1)?) has no RE2 equivalent, and redirectd's PCRE engine does not run it",
				"t.conf:6: return 301 /w$http_user_agent: uses a variable redirectd has no equivalent for; left out",
				"t.conf:4: rewrite ^/(.*)$ inside location /a/: its regex can match paths outside the location",
				"differs: http://probe.invalid/a/: nginx gives 301 /b/a/ (t.conf:4), the written rules no redirect",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dirs, err := Parse("t.conf", []byte(tt.conf))
			if err != nil {
				t.Fatal(err)
			}
			res := Translate(dirs)
			if diff := cmp.Diff(tt.want, res.Rules, cmpopts.IgnoreFields(Rule{}, "Origin"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			var got []string
			for _, n := range res.Notes {
				got = append(got, n.String())
			}
			if len(got) != len(tt.notes) {
				t.Fatalf("notes:\n%s\nwant %d: %q", strings.Join(got, "\n"), len(tt.notes), tt.notes)
			}
			for i, want := range tt.notes {
				if !strings.Contains(got[i], want) {
					t.Errorf("note %d: %q lacks %q", i, got[i], want)
				}
			}
		})
	}
}
