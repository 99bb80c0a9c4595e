package rewrite

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// diffFixture is one server of the differential test: its server-level
// steps, its locations, and the paths to ask (each also with a query,
// and with "//", "/./" and "/x/../" in front).
type diffFixture struct {
	name   string
	server string
	locs   []LocationSpec
	paths  []string
	// maps are written in the http block.
	maps []MapSpec
}

var diffFixtures = []diffFixture{
	{name: "kinds of location",
		locs: []LocationSpec{
			{Match: Exact, Path: "/a", Steps: "return 200 exact;"},
			{Match: Prefix, Path: "/a", Steps: "return 200 prefix-a;"},
			{Match: Prefix, Path: "/a/b/", Steps: "return 200 prefix-ab;"},
			{Match: PrefixNoRegex, Path: "/static/", Steps: "return 200 static;"},
			{Match: Regex, Path: `\.png$`, Steps: "return 200 png;"},
			{Match: RegexCI, Path: `\.JPG$`, Steps: "return 200 jpg;"},
			{Match: Prefix, Path: "/n/", Steps: "return 200 n;", Locations: []LocationSpec{
				{Match: Prefix, Path: "/n/deep/", Steps: "return 200 n-deep;"},
				{Match: PrefixNoRegex, Path: "/n/keep/", Steps: "return 200 n-keep;"},
				{Match: Regex, Path: `^/n/.*\.css$`, Steps: "return 200 n-css;"},
			}},
			{Match: Named, Path: "fallback", Steps: "return 200 named;"},
			{Match: Prefix, Path: "/", Steps: "return 200 root;"},
		},
		paths: []string{"/a", "/ab", "/a/b", "/a/b/c", "/a/b/c.png", "/static/x.png", "/x.png", "/x.Jpg",
			"/n/", "/n/deep/x", "/n/deep/x.css", "/n/keep/x.css", "/n/keep/x.png", "/n/x.png", "/fallback", "/",
			"/a%2Fb%2Fc", "/n%2Fdeep/x", "/%61", "/n/deep/%2e%2e/keep/x.css", "/static%2Fx.png"},
	},
	{name: "rewrite flags",
		locs: []LocationSpec{
			{Match: Prefix, Path: "/r/", Steps: `
rewrite ^/r/perm/(.*)$ /p/$1 permanent;
rewrite ^/r/temp/(.*)$ /t/$1 redirect;
rewrite ^/r/ext/(.*)$ https://other.example/$1;
rewrite ^/r/last/(.*)$ /landing/$1 last;
rewrite ^/r/q/(.*)$ /landing/$1?from=q;
rewrite ^/r/drop/(.*)$ /landing/$1? last;
rewrite ^/r/chain/a$ /r/chain/b;
rewrite ^/r/chain/b$ /landing/chained;
rewrite ^/r/loop/(.*)$ /r/loop/$1 last;
return 200 "r $uri";`},
			{Match: Prefix, Path: "/landing/", Steps: `return 200 "landing $uri $args";`},
			{Match: Prefix, Path: "/k/", Steps: `rewrite ^/k/x(x*)$ /k/$1 last; return 200 "k $uri";`},
			{Match: Prefix, Path: "/", Steps: "return 404;"},
		},
		paths: []string{"/r/perm/a", "/r/temp/a b", "/r/ext/x", "/r/last/x", "/r/q/x", "/r/drop/x", "/r/chain/a", "/r/loop/x", "/r/other", "/z",
			"/r/temp/a%2Bb", "/r/temp/caf%C3%A9", "/r/temp/a+b", "/r/ext/a%3Fb", "/r/last/a%20b", "/r/q/%41",
			"/k/xxxxxxxxx", "/k/xxxxxxxxxx", "/k/xxxxxxxxxxx",
			"/r/temp/%25%26%23%3B%22%27%3C%3E%5C%5E%60%7B%7C%7D%7F%01", "/r/temp/%C3%A9x%20y", "/r/temp/a+%C3%A9%3F",
			"/r/q/%26%3D%2B%23%3F%25", "/r/q/a+b"},
	},
	{name: "return and if",
		server: `if ($http_x_block) { return 403 "blocked"; }
set $site main;`,
		locs: []LocationSpec{
			{Match: Exact, Path: "/healthz", Steps: `return 200 "ok $site";`},
			{Match: Exact, Path: "/drop", Steps: "return 444;"},
			{Match: Exact, Path: "/gone", Steps: "return 410;"},
			{Match: Exact, Path: "/see", Steps: "return 303 /other;"},
			{Match: Exact, Path: "/url", Steps: "return https://example.org$request_uri;"},
			{Match: Regex, Path: `^/ret/(.*)$`, Steps: "if ($arg_t) { return 200 \"t $1\"; } return 301 /to/$1?u=$uri;"},
			{Match: Prefix, Path: "/if/", Steps: `
if ($arg_lang = de) { return 302 /de$uri; }
if ($arg_lang != "") { return 302 /lang/$arg_lang$uri; }
if ($request_uri ~ ^/if/(?<rest>[a-z]+)/(\d+)$) { return 301 /n/$2/$rest; }
if ($uri ~* ^/IF/CASE) { return 307 /case; }
if ($uri !~ ^/if/keep) { return 308 /moved$uri; }
if ($uri !~* \.HTML$) { return 200 "not html"; }
return 200 "html";`},
			{Match: Prefix, Path: "/", Steps: "return 404;"},
		},
		paths: []string{"/healthz", "/drop", "/gone", "/see", "/url",
			"/ret/a%20b", "/ret/a+b", "/ret/a%2Fb", "/ret/a%2Bb", "/ret/%3F%26%23", "/ret/caf%C3%A9", "/ret/a%25b", "/ret/a%20b?t=1", "/ret/a%2Fb+c?t=1", "/if/x", "/if/abc/12", "/if/case/x", "/if/keep/x", "/if/keep/x.html", "/if/x?lang=de", "/if/x?lang=fr"},
	},
	{name: "variables and captures",
		server: `rewrite ^/srv/(.*)$ /vars/$1 last;
set $zero 0;`,
		locs: []LocationSpec{
			{Match: Regex, Path: `^/loc/(?<first>[a-z]+)/(\d+)`, Steps: `return 200 "$first $1 $2 $uri";`,
				Locations: []LocationSpec{{Match: Regex, Path: `^/loc/nested/`, Steps: `return 200 "nested $1";`}}},
			{Match: Prefix, Path: "/vars/", Steps: `
set $v "$scheme:$server_port:$request_method:$is_args:$args:$arg_b";
if ($zero) { return 500; }
if ($cookie_beta) { set $v "$v:beta=$cookie_beta"; }
if ($http_x_mode = on) { set $v "$v:mode"; }
rewrite ^/vars/(?<word>\w+)$ /vars/done/$word;
if ($uri ~ ^/vars/done/(.*)) { return 200 "$v done $1 $word"; }
break;
return 403;`},
			{Match: Prefix, Path: "/", Steps: `return 200 "root $request_uri";`},
		},
		paths: []string{"/loc/abc/12", "/loc/nested/x", "/loc/x", "/srv/y", "/vars/x", "/vars/x/y", "/vars/", "/other"},
	},
	{name: "PCRE",
		locs: []LocationSpec{
			{Match: Regex, Path: `^/p/(?!skip/)`, Steps: `
rewrite ^/p/(?<v>v\d+)(?=/)(.*)$ /q/$v$2 redirect;
rewrite ^/p/(?>ab|a)c$ /atomic redirect;
rewrite ^/p/(\w)\1$ /twice/$1 redirect;
rewrite ^/p/(?i)Mixed(?-i)Case$ /mixed redirect;
return 200 "p $uri";`},
			{Match: Prefix, Path: "/docs/", Steps: `rewrite ^/docs/(?!(v\d|latest)/)(?:.+) /docs/v2/ redirect; return 200 "docs $uri";`},
			{Match: Prefix, Path: "/", Steps: `return 200 "root $uri";`},
		},
		paths: []string{"/p/v2/x", "/p/v2", "/p/skip/x", "/p/ac", "/p/abc", "/p/aa", "/p/ab", "/p/mixedCase", "/p/MIXEDCase", "/p/mixedcase",
			"/docs/guide", "/docs/v1/guide", "/docs/latest/x", "/docs/latest", "/x"},
	},
	{name: "PCRE's readings of what RE2 also accepts",
		locs: []LocationSpec{
			{Match: Prefix, Path: "/tags/", Steps: `rewrite ^/tags/(?<first>.*)+(?<second>.*)$ /$first%20$second permanent;`},
			{Match: Prefix, Path: "/x", Steps: `if ($uri ~ ^/x((?:\B|[^a])*)) { return 200 "x[$1]"; } return 404;`},
			{Match: Regex, Path: `^/nl$`, Steps: `return 200 "nl";`},
			{Match: Prefix, Path: "/b/", Steps: `if ($uri ~ ^/b/(.)(.*)$) { return 200 "b[$1|$2]"; } return 404;`},
			{Match: RegexCI, Path: `^/kelvin/k$`, Steps: `return 200 "kelvin";`},
			{Match: Prefix, Path: "/sp/", Steps: `if ($uri ~ ^/sp/a\s$) { return 200 "space"; } if ($uri ~ ^/sp/(\S+)$) { return 200 "nonspace $1"; } return 404;`},
			{Match: Regex, Path: `^/opt/xé?$`, Steps: `return 200 "optional";`},
			{Match: Prefix, Path: "/vt/", Steps: `if ($uri ~ "^/vt/a\v") { return 200 "vertical"; } return 404;`},
			{Match: Prefix, Path: "/", Steps: `return 200 "root $uri";`},
		},
		paths: []string{"/tags/xx", "/tags/", "/x00", "/xa0", "/x", "/nl", "/nl%0A", "/nl%0A%0A", "/b/%C3%A9", "/b/ab", "/kelvin/K", "/kelvin/%E2%84%AA",
			"/sp/a%20", "/sp/a%0B", "/sp/ab", "/vt/a%0A", "/vt/a%0B", "/vt/a%0C", "/opt/x", "/opt/x%C3", "/opt/x%C3%A9"},
	},
	{name: "maps",
		maps: mapFixture,
		locs: []LocationSpec{
			{Match: Prefix, Path: "/go/x", Steps: `set $a "$kept $vol"; rewrite ^/go/x$ /go/y; return 200 "$a | $kept $vol";`},
			{Match: Prefix, Path: "/", Steps: `
if ($moved) { return 301 $moved; }
if ($lang = de) { return 302 /de$uri; }
set $where "$section:$lang:$by_host";
rewrite ^/go/(.*)$ $section? redirect;
return 200 $where;`},
		},
		paths: []string{"/old", "/OLD", "/old/", "/docs/a/b", "/Docs/x", "/shop/item-12", "/shop/ITEM-7", "/x", "/go/old", "/go/y",
			"/lang/de", "/a%20b", "/blog/2020/x", "/go/x"},
	},
	{name: "error_page",
		server: `error_page 404 @notfound;
error_page 403 /landing;
if ($arg_deny) { return 403; }`,
		locs: []LocationSpec{
			{Match: Named, Path: "notfound", Steps: `return 301 /search?q=$uri;`},
			{Match: Named, Path: "up", Pass: true},
			{Match: Prefix, Path: "/", Steps: `return 404;`},
			{Match: Prefix, Path: "/landing", Steps: `return 200 "landing $uri $args";`},
			{Match: Prefix, Path: "/own/", Steps: `error_page 404 =200 /landing; error_page 410 = /landing?x=1;
if ($arg_gone) { return 410; }
return 404;`},
			{Match: Prefix, Path: "/red/", Steps: `error_page 403 https://example.org/denied; return 403;`},
			{Match: Prefix, Path: "/red301/", Steps: `error_page 403 404 =301 https://example.org/moved$uri; return 403;`},
			{Match: Prefix, Path: "/text/", Steps: `return 404 "own text";`},
			{Match: Prefix, Path: "/nested/", Steps: `error_page 404 /landing; return 200 outer;`, Locations: []LocationSpec{
				{Match: Prefix, Path: "/nested/inner/", Steps: `return 404;`},
			}},
			{Match: Prefix, Path: "/twice/", Steps: `error_page 404 /twice/again; return 404;`},
			{Match: Prefix, Path: "/fwd/", Steps: `error_page 404 = @up; return 404;`},
			{Match: Prefix, Path: "/fwd404/", Steps: `error_page 404 @up; return 404;`},
			{Match: Prefix, Path: "/redirected/", Steps: `error_page 302 /landing; return 302 /elsewhere;`},
			{Match: Prefix, Path: "/icpt/", Pass: true, InterceptErrors: true, Steps: `error_page 404 @notfound; error_page 502 =200 /landing;`},
			{Match: Prefix, Path: "/noicpt/", Pass: true, Steps: `error_page 404 @notfound;`},
			{Match: Prefix, Path: "/rwred/", Steps: `error_page 302 301 /landing; rewrite ^ /elsewhere redirect;`},
			{Match: Prefix, Path: "/ret/", Steps: `error_page 302 301 404 /landing; return 302;`},
		},
		paths: []string{"/", "/x", "/a b", "/landing", "/own/a", "/own/a?gone=1", "/red/a", "/red301/a", "/text/a", "/nested/a", "/nested/inner/a",
			"/twice/a", "/fwd/a", "/fwd404/a%20b", "/x?deny=1", "/own/a?deny=1", "/redirected/a", "/rwred/a", "/ret/a",
			"/icpt/a", "/icpt/up-404", "/icpt/up-502", "/noicpt/up-404"},
	},
	{name: "proxy_pass",
		locs: []LocationSpec{
			{Match: Prefix, Path: "/", Pass: true},
			{Match: Prefix, Path: "/docs/", Pass: true, URI: "/v2/", HasURI: true, Steps: `
rewrite ^/docs/b/(.*)$ /kept/$1 break;
rewrite ^/docs/l/(.*)$ /other/$1 last;`},
			{Match: Prefix, Path: "/other/", Pass: true, URI: "/o/", HasURI: true},
			{Match: Exact, Path: "/api", Pass: true, URI: "/backend", HasURI: true},
			{Match: Regex, Path: `^/re/`, Pass: true, Steps: `rewrite ^/re/(.*)$ /rx/$1 break;`},
		},
		paths: []string{"/x", "/x y", "/docs", "/docs/", "/docs/a/b", "/docs/b/c%20d", "/docs/l/x", "/api", "/re/a", "/other/z",
			"/x%41", "/docs/a%2Bb", "/docs/b/a+b", "/docs/b/caf%C3%A9", "/re/%41?x"},
	},
	// set $args changes the query string that later steps read and a
	// redirecting rewrite appends; a rewrite whose result starts with
	// "//" keeps it (merge_slashes applies to the request's path only).
	{name: "set args, rewrite to a double slash",
		server: `set $args "${args}&s=1";`,
		locs: []LocationSpec{
			{Match: Prefix, Path: "/clear/", Steps: `set $args ''; rewrite ^/clear/(.*)$ /to/$1 permanent;`},
			{Match: Prefix, Path: "/arg/", Steps: `set $args "k=$arg_a"; if ($arg_k) { return 200 "k $arg_k $args$is_args"; } return 200 "none $args";`},
			{Match: Prefix, Path: "/last/", Steps: `set $args "n=2"; rewrite ^/last/(.*)$ /land/$1 last;`},
			{Match: Prefix, Path: "/land/", Steps: `return 200 "land $uri $args";`},
			{Match: Regex, Path: `^/[A-Z]`, Steps: `rewrite ^/[A-Z].*(?<rest>/tags/.*) /$rest permanent; return 200 "upper $uri";`},
			{Match: Prefix, Path: "/", Steps: `rewrite ^/keep/(.*)$ /to/$1 redirect; return 200 "root $args";`},
		},
		paths: []string{"/clear/x", "/arg/x", "/arg/x?a=5", "/last/x", "/A/tags/", "/B/x/tags/y", "/C/none", "/keep/x", "/z"},
	},
}

// nginxLocations writes locs in nginx's syntax, each forwarding to
// upstream when it passes.
func nginxLocations(b *strings.Builder, locs []LocationSpec, upstream string) {
	for _, l := range locs {
		if l.Match == Named {
			fmt.Fprintf(b, "location @%s {\n%s\n", l.Path, l.Steps)
		} else {
			fmt.Fprintf(b, "location %s %s {\n%s\n", l.Match.String(), l.Path, l.Steps)
		}
		if l.Pass {
			fmt.Fprintf(b, "proxy_pass http://%s%s;\n", upstream, l.URI)
		}
		if l.InterceptErrors {
			b.WriteString("proxy_intercept_errors on;\n")
		}
		nginxLocations(b, l.Locations, upstream)
		b.WriteString("}\n")
	}
}

// nginxServer is the nginx config of f on addr, forwarding to upstream.
func nginxServer(dir, addr, upstream string, f diffFixture) string {
	var b strings.Builder
	b.WriteString(testutil.NginxHTTPHead(dir))
	for _, m := range f.maps {
		fmt.Fprintf(&b, "map %s $%s {\n%s\n", m.Source, m.Variable, m.Entries)
		if m.Default != "" {
			fmt.Fprintf(&b, "default %q;\n", m.Default)
		}
		b.WriteString("}\n")
	}
	fmt.Fprintf(&b, "server {\nlisten %[2]s default_server;\nserver_name example.com;\n"+
		"absolute_redirect off;\nroot %[1]s/html;\n%[3]s\n", dir, addr, f.server)
	nginxLocations(&b, f.locs, upstream)
	b.WriteString("}\n}\n")
	return b.String()
}

// echoUpstream answers each request with its request line as the body.
func echoUpstream(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil || l == "\r\n" {
			break
		}
	}
	line = strings.TrimRight(line, "\r\n")
	fmt.Fprintf(c, "HTTP/1.1 %d X\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", upstreamStatus(line), len(line), line)
}

// upstreamStatus is what echoUpstream answers for a request line (or a
// URI): 404 or 502 where it names one, else 200.
func upstreamStatus(line string) int {
	switch {
	case strings.Contains(line, "up-404"):
		return 404
	case strings.Contains(line, "up-502"):
		return 502
	}
	return 200
}

// nginxAnswer is what nginx answered target, in the form diffAnswer
// gives.
func nginxAnswer(t *testing.T, addr, target string) string {
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	host := "example.com"
	if h, t, ok := strings.Cut(target, " "); ok {
		host, target = h, t // "HOST TARGET": a request for another server
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nCookie: a=1; beta=yes\r\nX-Mode: on\r\nConnection: close\r\n\r\n", target, host)
	all, _ := io.ReadAll(c)
	if len(all) == 0 {
		return "444"
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(all))), nil)
	if err != nil {
		t.Fatalf("%s: %v in %q", target, err, all)
	}
	body, _ := io.ReadAll(resp.Body)
	// The one intended difference: bytes a Location cannot carry are
	// percent-encoded (appendLocationSafe).
	loc := string(appendLocationSafe(nil, []byte(resp.Header.Get("Location"))))
	return answerText(resp.StatusCode, loc, string(body), resp.StatusCode >= 400 && !strings.Contains(string(body), "<html>") || resp.StatusCode < 300)
}

func answerText(status int, location, body string, withBody bool) string {
	s := fmt.Sprint(status)
	if location != "" {
		s += " Location: " + location
	}
	if withBody {
		s += " body: " + body
	}
	return s
}

// diffAnswer is Run's answer in the form nginxAnswer gives.
func diffAnswer(p *Program, target, port string) string {
	var s Scratch
	var res Result
	req := request("example.com", target, fields{"Cookie": "a=1; beta=yes", "X-Mode": "on"})
	req.Port = []byte(port)
	p.Run(&s, req, &res)
	switch res.Action {
	case Close:
		return "444"
	case Redirect:
		return answerText(res.Status, string(res.Location), "", false)
	case Answer:
		return answerText(res.Status, "", string(res.Body), res.Body != nil || res.Status < 300)
	}
	if !res.Pass {
		return "404" // nginx looks for a file, and there are none
	}
	if up := upstreamStatus(string(res.URI)); res.Intercept && p.RunIntercepted(&s, req, &res, up) {
		return diffResult(p, &res, up)
	} else if up != 200 && res.Status == 0 {
		return answerText(up, "", "GET "+string(res.URI)+" HTTP/1.0", true)
	}
	return diffResult(p, &res, 200)
}

// diffResult is diffAnswer of a Result, a forward answered with up.
func diffResult(p *Program, res *Result, up int) string {
	switch res.Action {
	case Close:
		return "444"
	case Redirect:
		return answerText(res.Status, string(res.Location), "", false)
	case Answer:
		return answerText(res.Status, "", string(res.Body), res.Body != nil || res.Status < 300)
	}
	if !res.Pass {
		return "404"
	}
	status := up
	if res.Status != 0 {
		status = res.Status // an error page's status on the upstream's answer
	}
	return answerText(status, "", "GET "+string(res.URI)+" HTTP/1.0", true)
}

// TestAgainstNginx serves each fixture by a real nginx and by Run, and
// fails on every request they answer differently.
func TestAgainstNginx(t *testing.T) {
	bin := testutil.FindNginx(t)
	for _, f := range diffFixtures {
		t.Run(f.name, func(t *testing.T) {
			p, err := Compile(Spec{Steps: []Text{{Src: f.server, Line: 1}}, Locations: f.locs, Maps: f.maps})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			up := testutil.Serve(t, echoUpstream)
			addr := testport.Free(t)
			conf := filepath.Join(dir, "nginx.conf")
			if err := os.WriteFile(conf, []byte(nginxServer(dir, addr, up, f)), 0o644); err != nil {
				t.Fatal(err)
			}
			testutil.RunNginx(t, bin, dir, conf, addr)
			for _, path := range f.paths {
				for _, target := range diffVariants(path) {
					want, got := nginxAnswer(t, addr, target), diffAnswer(p, target, addr[strings.LastIndexByte(addr, ':')+1:])
					if want != got {
						t.Errorf("%s:\n nginx     %s\n redirectd %s", target, want, got)
					}
				}
			}
		})
	}
}

// diffVariants are the requests asked for path: as it is, with a query,
// and with the path spelt so that nginx's $uri is the same.
func diffVariants(path string) []string {
	enc := strings.ReplaceAll(path, " ", "%20")
	out := []string{enc, enc + "?a=1&b=2"}
	if len(enc) > 1 {
		out = append(out, "/"+enc, "/."+enc, "/x/.."+enc)
	}
	return out
}
