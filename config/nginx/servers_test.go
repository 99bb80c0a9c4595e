package nginx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/matcher"
)

// answerOf answers one request from the import's rules as the matcher
// does: "404" for a miss, "STATUS LOCATION" for a redirect.
func answerOf(t *testing.T, set *matcher.Set, https bool, host, target string) string {
	t.Helper()
	path, query, hasQuery := strings.Cut(target, "?")
	var q []byte
	if hasQuery {
		q = []byte(query)
	}
	m := matcher.Match{Req: schemeReq(https)}
	if !set.Lookup([]byte(host), []byte(path), q, &m) {
		return "404"
	}
	return fmt.Sprintf("%d %s", m.Status(), m.AppendLocation(nil, q))
}

// schemeReq is a request seen by rule conditions: over TLS or not.
type schemeReq bool

func (schemeReq) Header([]byte) []byte { return nil }
func (schemeReq) Country() string      { return "" }
func (r schemeReq) HTTPS() bool        { return bool(r) }

// TestServerSelection checks that a request is answered by the rules of
// the one server nginx picks for it, on the port it came to, and by no
// other server's: each case is a config and requests with what nginx
// answers them.
func TestServerSelection(t *testing.T) {
	type ask struct {
		https        bool
		host, target string
		want         string
	}
	tests := []struct {
		name string
		conf string
		asks []ask
	}{
		{
			name: "a named host's misses end at its server, not at a wildcard server's catch-all",
			conf: `server { listen 80; server_name www.example.org;
					location = /old { return 301 /new; }
					location /blog/ { return 301 https://blog.example.org$request_uri; } }
				server { listen 80; server_name .example.org; return 301 https://www.example.org/news$request_uri; }`,
			asks: []ask{
				{host: "www.example.org", target: "/about", want: "404"},
				{host: "www.example.org", target: "/old", want: "301 /new"},
				{host: "www.example.org", target: "/blog/x?y=1", want: "301 https://blog.example.org/blog/x?y=1"},
				{host: "example.org", target: "/about", want: "301 https://www.example.org/news/about"},
				{host: "shop.example.org", target: "/", want: "301 https://www.example.org/news/"},
			},
		},
		{
			name: "a named host's misses end at its server, not at the default server's rules",
			conf: `server { listen 80 default_server; return 301 https://fallback.example/; }
				server { listen 80; server_name a.example; location = /x { return 301 /y; } }`,
			asks: []ask{
				{host: "a.example", target: "/x", want: "301 /y"},
				{host: "a.example", target: "/z", want: "404"},
				{host: "other.example", target: "/z", want: "301 https://fallback.example/"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dirs, err := Parse("nginx.conf", []byte(tt.conf))
			if err != nil {
				t.Fatal(err)
			}
			res := Translate(dirs)
			for _, n := range res.Notes {
				if n.Kind == NoteDiffers {
					t.Errorf("the self-check found a difference: %s", n)
				}
			}
			set, err := matcher.Compile(res.MatcherRules())
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, a := range tt.asks {
				line := fmt.Sprintf("https=%v %s%s: ", a.https, a.host, a.target)
				got = append(got, line+answerOf(t, set, a.https, a.host, a.target))
				want = append(want, line+a.want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("answers (-nginx +import):\n%s", diff)
			}
		})
	}
}
