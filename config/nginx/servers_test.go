package nginx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config/importer"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher/rewrite"
)

// answerOf answers one request from the import's tables as the engine
// runs them: "404" where they answer nothing, "STATUS LOCATION" for a
// redirect.
func answerOf(hosts *rewrite.Hosts, https bool, host, target string) string {
	path, query, _ := strings.Cut(target, "?")
	var scratch rewrite.Scratch
	got, _ := runStructural(hosts, &scratch, request{host: host, path: path, query: query, https: https}, false)
	if got == "no redirect" {
		return "404"
	}
	return got
}

// TestServerSelection checks that a request is answered by the tables of
// the one server nginx picks for it, on the port it came to, and by no
// other server's: each case is a config and requests with what nginx
// answers them.
func TestServerSelection(t *testing.T) {
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
		{
			name: "a certbot pair: the port-80 server sends its hosts to https, the TLS server answers them",
			conf: `server { server_name old.example www.old.example;
					location = /moved { return 301 /new; }
					listen 443 ssl;
					ssl_certificate /etc/letsencrypt/live/old.example/fullchain.pem;
					ssl_certificate_key /etc/letsencrypt/live/old.example/privkey.pem; }
				server {
					if ($host = www.old.example) { return 301 https://$host$request_uri; }
					if ($host = old.example) { return 301 https://$host$request_uri; }
					listen 80; server_name old.example www.old.example;
					return 404; }
				server { listen 80 default_server; server_name _; return 301 https://$host$request_uri; }`,
			asks: []ask{
				{host: "old.example", target: "/about?x=1", want: "301 https://old.example/about?x=1"},
				{host: "www.old.example", target: "/", want: "301 https://www.old.example/"},
				{host: "old.example", target: "/moved", want: "301 https://old.example/moved"},
				{https: true, host: "old.example", target: "/about", want: "404"},
				{https: true, host: "www.old.example", target: "/about", want: "404"},
				{https: true, host: "old.example", target: "/moved", want: "301 /new"},
				{host: "other.example", target: "/x", want: "301 https://other.example/x"},
				{https: true, host: "other.example", target: "/x", want: "404"},
			},
		},
		{
			name: "the old ssl on makes a server's listens TLS ones",
			conf: `server { listen 8443; ssl on; ssl_certificate c.pem; ssl_certificate_key k.pem; server_name a.example; location = /x { return 301 /y; } }
				server { listen 80; server_name a.example; return 301 https://a.example$request_uri; }`,
			asks: []ask{
				{https: true, host: "a.example", target: "/x", want: "301 /y"},
				{https: true, host: "a.example", target: "/z", want: "404"},
				{host: "a.example", target: "/x", want: "301 https://a.example/x"},
			},
		},
		{
			name: "if ($host = name) is a rule of that host, before the server's locations",
			conf: `server { listen 80; server_name example.com www.example.com;
					if ($host = 'www.example.com') { return 301 https://example.com$request_uri; }
					location = /a { return 301 /b; }
					location /c/ { return 302 /d; } }
				server { listen 80 default_server; return 301 https://elsewhere.example/; }`,
			asks: []ask{
				{host: "www.example.com", target: "/a?q=1", want: "301 https://example.com/a?q=1"},
				{host: "WWW.example.com", target: "/c/x", want: "301 https://example.com/c/x"},
				{host: "example.com", target: "/a", want: "301 /b"},
				{host: "example.com", target: "/c/x", want: "302 /d"},
				{host: "example.com", target: "/z", want: "404"},
				{host: "x.example", target: "/z", want: "301 https://elsewhere.example/"},
			},
		},
		{
			name: "a server ending in return 404 ends its hosts",
			conf: `server { listen 80; server_name a.example; location = /x { return 301 /y; } return 404; }
				server { listen 80 default_server; return 301 https://elsewhere.example/; }`,
			asks: []ask{
				// The server's return runs before nginx picks a location.
				{host: "a.example", target: "/x", want: "404"},
				{host: "a.example", target: "/z", want: "404"},
				{host: "b.example", target: "/z", want: "301 https://elsewhere.example/"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkAnswers(t, tt.conf, tt.asks) })
	}
}

// ask is a request and what nginx answers it.
type ask struct {
	https        bool
	host, target string
	want         string
}

// checkAnswers imports conf and checks that its tables answer each
// request as nginx does, and that the import's self-check found no difference.
func checkAnswers(t *testing.T, conf string, asks []ask) {
	t.Helper()
	dirs, err := Parse("nginx.conf", []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	res := Translate(dirs)
	for _, n := range res.Notes {
		if n.Kind == importer.Differs {
			t.Errorf("the self-check found a difference: %s", n)
		}
	}
	hosts, err := rewrite.CompileHosts(hostSpecs(res.Structural))
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, a := range asks {
		line := fmt.Sprintf("https=%v %s%s: ", a.https, a.host, a.target)
		got = append(got, line+answerOf(hosts, a.https, a.host, a.target))
		want = append(want, line+a.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-nginx +import):\n%s", diff)
	}
}

// TestNestedLocations checks nginx's whole location search: exact, the
// longest prefix and the locations nested in it, ^~, regexes in order at
// each level, and a location that answers itself ending its paths.
func TestNestedLocations(t *testing.T) {
	conf := `server { listen 80;
		location /docs/ {
			location /docs/old/ { return 301 /docs/new/; }
			location ~ ^/docs/.*\.pdf$ { return 301 /pdf$uri; }
			location = /docs/index { return 301 /docs/; }
			return 302 /docs-home;
		}
		location ^~ /static/ {
			location /static/legacy/ { return 301 /assets/legacy/; }
		}
		location /served/ { root /srv; }
		location ~ \.png$ { return 301 /images$uri; }
		location / { return 301 https://new.example$request_uri; }
	}`
	checkAnswers(t, conf, []ask{
		{host: "a", target: "/docs/old/a", want: "301 /docs/new/"},
		{host: "a", target: "/docs/old/a.pdf", want: "301 /pdf/docs/old/a.pdf"},
		{host: "a", target: "/docs/x.pdf?v=1", want: "301 /pdf/docs/x.pdf"},
		{host: "a", target: "/docs/x.png", want: "301 /images/docs/x.png"},
		{host: "a", target: "/docs/old/x.png", want: "301 /images/docs/old/x.png"},
		{host: "a", target: "/docs/index", want: "301 /docs/"},
		{host: "a", target: "/docs/", want: "302 /docs-home"},
		{host: "a", target: "/docs/other", want: "302 /docs-home"},
		{host: "a", target: "/static/legacy/x.png", want: "301 /assets/legacy/"},
		{host: "a", target: "/static/x.png", want: "404"},
		{host: "a", target: "/served/x.html", want: "404"},
		{host: "a", target: "/served/x.png", want: "301 /images/served/x.png"},
		{host: "a", target: "/elsewhere", want: "301 https://new.example/elsewhere"},
	})
}

// TestListenAndCertificates checks what listen and ssl_certificate
// become: redirectd's plain and TLS addresses, [[tls.certificate]] pairs
// (each once), and notes for what cannot be kept.
func TestListenAndCertificates(t *testing.T) {
	tests := []struct {
		name   string
		conf   string
		listen [2]string
		certs  []Certificate
		notes  []string
	}{
		{
			name:   "no listen is nginx's port 80",
			conf:   `server { return 301 https://x.example/; }`,
			listen: [2]string{"0.0.0.0:80", ""},
		},
		{
			name: "certbot's listens, one certificate for two servers",
			conf: `server { listen [::]:443 ssl ipv6only=on; listen 443 ssl; server_name a; ssl_certificate /c.pem; ssl_certificate_key /k.pem; }
				server { listen 443 ssl http2; server_name b; ssl_certificate /c.pem; ssl_certificate_key /k.pem; }
				server { listen 80; listen [::]:80; server_name a b; return 301 https://$host$request_uri; }`,
			listen: [2]string{"0.0.0.0:80", "[::]:443"},
			certs:  []Certificate{{Cert: "/c.pem", Key: "/k.pem"}},
		},
		{
			name:   "a second port of a kind, an address, a socket, a certificate without its key",
			conf:   `server { listen 127.0.0.1:8080; listen 8081; listen 10.0.0.1:8443 ssl; listen unix:/run/x.sock; server_name a; ssl_certificate /c.pem; }`,
			listen: [2]string{"127.0.0.1:8080", "10.0.0.1:8443"},
			notes: []string{
				"nginx.conf:1: listen 8081: redirectd has one plain listener, and nginx's plain port 8080 comes first",
				"nginx.conf:1: listen unix:/run/x.sock: redirectd listens on TCP ports only",
				"nginx.conf:1: a server needs both ssl_certificate and ssl_certificate_key",
				"nginx listens with ssl, but no server names its ssl_certificate",
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
			if res.Listen != tt.listen {
				t.Errorf("listen %q, want %q", res.Listen, tt.listen)
			}
			var certs []Certificate
			for _, c := range res.Certificates {
				certs = append(certs, Certificate{Cert: c.Cert, Key: c.Key})
			}
			if diff := cmp.Diff(tt.certs, certs); diff != "" {
				t.Errorf("certificates (-want +got):\n%s", diff)
			}
			var got []string
			for _, n := range importer.UniqueNotes(res.Notes) {
				got = append(got, n.String())
			}
			for _, want := range tt.notes {
				found := false
				for _, g := range got {
					found = found || strings.Contains(g, want)
				}
				if !found {
					t.Errorf("no note holds %q; notes:\n%s", want, strings.Join(got, "\n"))
				}
			}
		})
	}
}
