package nginx

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGroups translates small configs and compares the upstream groups
// written, the group each location forwards to, and the notes about
// them, with what nginx does with each.
func TestGroups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, conf string
		// groups are "name servers... host=H [sni=N]"; locs are
		// "location path group" for each location that forwards.
		groups, locs []string
		// notes are parts of the notes expected, each in some note.
		notes []string
	}{{
		name: "nginx sends $proxy_host: the address, without the scheme's port",
		conf: `server { server_name a.test; location / { proxy_pass http://10.0.0.1:80; } }
server { server_name b.test; location / { proxy_pass http://10.0.0.2:8080; } }`,
		groups: []string{"10-0-0-1 10.0.0.1:80 host=10.0.0.1", "10-0-0-2-8080 10.0.0.2:8080 host=10.0.0.2:8080"},
		locs:   []string{"/ 10-0-0-1", "/ 10-0-0-2-8080"},
	}, {
		name: "an upstream block's name is the Host, and the name nginx verifies",
		conf: `upstream app { server 10.0.0.1; server 10.0.0.2:81; }
server { server_name a.test; location / { proxy_ssl_verify on; proxy_pass https://app; } }`,
		groups: []string{"app https://10.0.0.1:80 https://10.0.0.2:81 host=app sni=app"},
		locs:   []string{"/ app"},
		notes:  []string{"redirectd sends the name it verifies in SNI"},
	}, {
		name: "proxy_set_header is inherited whole, and only where a level sets none",
		conf: `server { server_name a.test; proxy_set_header Host $host;
  location / { proxy_pass http://10.0.0.1; }
  location /x/ { proxy_set_header X-Real-IP $remote_addr; proxy_pass http://10.0.0.1; }
  location /y/ { proxy_pass http://10.0.0.1; location /y/z/ { proxy_pass http://10.0.0.1; } } }`,
		groups: []string{"10-0-0-1 10.0.0.1:80 host=preserve", "10-0-0-1-2 10.0.0.1:80 host=10.0.0.1"},
		locs:   []string{"/ 10-0-0-1", "/x/ 10-0-0-1-2", "/y/ 10-0-0-1", "/y/z/ 10-0-0-1"},
	}, {
		name: "each server's locations name their own groups",
		conf: `server { listen 80 default_server; location / { proxy_pass http://10.0.0.1; } }
server { server_name a.test; location /api/ { proxy_pass http://10.0.0.2; } }`,
		groups: []string{"10-0-0-1 10.0.0.1:80 host=10.0.0.1", "10-0-0-2 10.0.0.2:80 host=10.0.0.2"},
		locs:   []string{"/ 10-0-0-1", "/api/ 10-0-0-2"},
	}, {
		name: "the same host and prefix to two upstreams on the two kinds of port",
		conf: `server { listen 80; server_name a.test; location / { proxy_pass http://10.0.0.1; } }
server { listen 443 ssl; server_name a.test; ssl_certificate c; ssl_certificate_key k; location / { proxy_pass http://10.0.0.2; } }`,
		groups: []string{"10-0-0-1 10.0.0.1:80 host=10.0.0.1", "10-0-0-2 10.0.0.2:80 host=10.0.0.2"},
		locs:   []string{"/ 10-0-0-1", "/ 10-0-0-2"},
	}, {
		name:   "regex locations forward to their own groups",
		conf:   `server { location / { proxy_pass http://10.0.0.1; } location ~ \.php$ { proxy_pass http://10.0.0.9:9000; } location ~ ^/img/ { proxy_pass http://10.0.0.1; } }`,
		groups: []string{"10-0-0-1 10.0.0.1:80 host=10.0.0.1", "10-0-0-9-9000 10.0.0.9:9000 host=10.0.0.9:9000"},
		locs:   []string{"/ 10-0-0-1", `\.php$ 10-0-0-9-9000`, "^/img/ 10-0-0-1"},
	}, {
		name:   "a URI part in a regex location, which nginx refuses",
		conf:   `server { location ~ ^/api/(.*)$ { proxy_pass http://10.0.0.2/v2/; } location /api/v2/ { proxy_pass http://10.0.0.3/; } }`,
		groups: []string{"10-0-0-2 10.0.0.2:80 host=10.0.0.2", "10-0-0-3 10.0.0.3:80 host=10.0.0.3"},
		locs:   []string{"^/api/(.*)$ 10-0-0-2", "/api/v2/ 10-0-0-3"},
		notes:  []string{"proxy_pass http://10.0.0.2/v2/ in a regex or named location: nginx refuses a URI part there"},
	}, {
		name: "a server named by a regex",
		conf: `server { listen 80 default_server; return 444; }
server { server_name ~^(?<app>.+)\.apps\.test$; location / { proxy_pass http://10.0.0.1; } }`,
		groups: []string{"10-0-0-1 10.0.0.1:80 host=10.0.0.1"},
		locs:   []string{"/ 10-0-0-1"},
	}, {
		name: "a server named by a regex with a variable proxy_pass",
		conf: `server { listen 80 default_server; return 444; }
server { server_name ~^(?<app>.+)\.apps\.test$; location / { proxy_pass http://10.0.0.1/$app; } }`,
		notes: []string{"proxy_pass http://10.0.0.1/$app: redirectd forwards to the fixed servers of a group, not to an address a variable names; the forward is left out"},
	}, {
		name:   "a named location that try_files falls back to",
		conf:   `server { location / { try_files $uri @app; } location @app { proxy_pass http://10.0.0.1:8080; } }`,
		groups: []string{"10-0-0-1-8080 10.0.0.1:8080 host=10.0.0.1:8080"},
		locs:   []string{"/ 10-0-0-1-8080", "app 10-0-0-1-8080"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dirs, err := Parse("nginx.conf", []byte(tt.conf))
			if err != nil {
				t.Fatal(err)
			}
			res := Translate(dirs)
			var groups []string
			for _, g := range res.Groups {
				s := g.Name + " " + strings.Join(g.Servers, " ") + " host=" + g.HostHeader
				if g.TLSServerName != "" {
					s += " sni=" + g.TLSServerName
				}
				groups = append(groups, s)
			}
			var locs []string
			var walk func([]*StructLoc)
			walk = func(ls []*StructLoc) {
				for _, l := range ls {
					if l.Group != nil {
						locs = append(locs, l.Path+" "+l.Group.Name)
					}
					walk(l.Locations)
				}
			}
			for _, st := range res.Structural {
				walk(st.Locations)
			}
			if d := cmp.Diff(tt.groups, groups); d != "" {
				t.Errorf("groups (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.locs, locs); d != "" {
				t.Errorf("locations (-want +got):\n%s", d)
			}
			var notes []string
			for _, n := range res.Notes {
				notes = append(notes, n.String())
			}
			all := strings.Join(notes, "\n")
			for _, want := range tt.notes {
				if !strings.Contains(all, want) {
					t.Errorf("no note says %q; notes:\n%s", want, all)
				}
			}
		})
	}
}

// TestNginxLimits reads nginx's times and sizes as the group's keys take
// them.
func TestNginxLimits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, dur, size string
	}{
		{"30", "30s", "30"}, {"30s", "30s", ""}, {"1m30s", "1m30s", ""}, {"500ms", "500ms", ""},
		{"10m", "10m0s", "10485760"}, {"512k", "", "524288"}, {"1g", "", "1073741824"}, {"0", "", "0"},
		{"", "", ""}, {"-1", "", ""}, {"1d", "", ""}, {"1.5s", "", ""}, {"x", "", ""},
	} {
		dur, _ := nginxDuration(tt.in)
		size, _ := nginxSize(tt.in)
		if dur != tt.dur || size != tt.size {
			t.Errorf("%q: duration %q, size %q; want %q, %q", tt.in, dur, size, tt.dur, tt.size)
		}
	}
}
