package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"strings"
)

// nginx serves exact rules from a map (a hash) read by a server-level
// `return`, prefix rules as `location ^~` blocks (a rewrite inside keeps
// the rest of the path) and regex rules as `location ~` blocks, with
// pcre_jit on.
type nginx struct{}

func (nginx) Name() string    { return "nginx" }
func (nginx) Package() string { return "nginx" }
func (nginx) Program() string { return "nginx" }

func (nginx) Version() string {
	out, _ := exec.Command("nginx", "-v").CombinedOutput() // nginx -v prints to stderr
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "nginx version: nginx/")
}

// nginxMain is the part of nginx.conf outside http{}, with pcre_jit on;
// workers run as the harness's user, so no file it writes needs other
// permissions.
func nginxMain(dir string, workers int) string {
	return "pcre_jit on;\n" + nginxMainNoJIT(dir, workers)
}

// nginxMainNoJIT is nginxMain with pcre_jit off, nginx's default.
func nginxMainNoJIT(dir string, workers int) string {
	return fmt.Sprintf(`daemon off;
master_process on;
worker_processes %d;
pid %s;
error_log %s warn;
events { worker_connections 8192; }
`, workers, join(dir, "nginx.pid"), join(dir, "error.log"))
}

func nginxTemps(dir string) string {
	return fmt.Sprintf("client_body_temp_path %[1]s; proxy_temp_path %[1]s; fastcgi_temp_path %[1]s; uwsgi_temp_path %[1]s; scgi_temp_path %[1]s;\n", dir)
}

func (nginx) Configure(in Instance) ([]string, []string, error) {
	if in.Sitemap > 0 {
		return nginxSitemap(in)
	}
	exact, prefix, regex := byKind(in.Spec)
	path := join(in.Dir, "nginx.conf")
	err := writeFile(path, func(w *bufio.Writer) error {
		w.WriteString(nginxMain(in.Dir, in.CPUs))
		w.WriteString("http {\n")
		if in.AccessLog == "" {
			w.WriteString("access_log off;\n")
		} else {
			fmt.Fprintf(w, "access_log %s;\n", in.AccessLog)
		}
		w.WriteString(nginxTemps(in.Dir))
		// The map's hash must fit every key in one build: at least as many
		// slots as keys, buckets wide enough for the longest key.
		fmt.Fprintf(w, "map_hash_max_size %d;\nmap_hash_bucket_size 128;\n", max(2048, 2*len(exact)))
		w.WriteString("map $uri $exact_to {\n")
		for _, r := range exact {
			fmt.Fprintf(w, "  %s %s;\n", r.From, r.To)
		}
		w.WriteString("}\n")
		if in.Origin != "" {
			// keepalive: idle upstream connections kept per worker. It
			// must exceed the client connections (CONCURRENCY, 100):
			// with 64, nginx closed and reopened upstream connections
			// under load (perf: connect, socket and close were 18 % of
			// its CPU in the proxy scenario), and "keep-alive both
			// sides" did not hold for it.
			fmt.Fprintf(w, "upstream origin { server %s; keepalive 1024; keepalive_requests 1000000; }\n", in.Origin)
		}
		fmt.Fprintf(w, "server {\n  listen 127.0.0.1:%d reuseport backlog=4096;\n  keepalive_requests 1000000;\n", in.Port)
		if in.TLS != nil {
			// Defaults otherwise: session tickets on, no session cache,
			// 16 KiB ssl_buffer_size, OpenSSL's cipher order. http2 on
			// the listen line (nginx 1.22; `http2 on` from 1.25) for the
			// h2-* scenarios.
			fmt.Fprintf(w, "  listen %s ssl http2 reuseport backlog=4096;\n  ssl_certificate %s;\n  ssl_certificate_key %s;\n  ssl_protocols TLSv1.2 TLSv1.3;\n",
				tlsListen(in), in.TLS.Cert, in.TLS.Key)
		}
		w.WriteString("  if ($exact_to) { return 301 $exact_to; }\n")
		for _, r := range prefix {
			fmt.Fprintf(w, "  location ^~ %s { rewrite ^%s(.*)$ %s$1 redirect; }\n", r.From, r.From, r.To)
		}
		for _, r := range regex {
			fmt.Fprintf(w, "  location ~ %s { return %d %s; }\n", quoteNginx(r.From), r.Status, r.To)
		}
		if in.Origin != "" {
			w.WriteString("  location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection \"\"; }\n")
		} else {
			w.WriteString("  location / { return 404; }\n")
		}
		w.WriteString("}\n}\n")
		return nil
	})
	return []string{"nginx", "-p", in.Dir, "-c", path}, nil, err
}

// nginxSitemap configures the sitemap corpus as the site deploys it: the
// include file in a map on $request_uri, a server-level if with a rewrite.
// absolute_redirect is off so that the Location is the map's value as
// written, as the other servers send it (nginx would otherwise prefix
// http://host:port). pcre_jit stays off, nginx's default: with it on,
// nginx 1.22 took 800 MiB (RSS of master and worker) for the 40,000 JIT
// programs and 166 ms of CPU for a miss, against about 2 ms without.
func nginxSitemap(in Instance) ([]string, []string, error) {
	if err := writeSitemap(in.Dir, in.Sitemap); err != nil {
		return nil, nil, err
	}
	path := join(in.Dir, "nginx.conf")
	err := writeFile(path, func(w *bufio.Writer) error {
		w.WriteString(nginxMainNoJIT(in.Dir, in.CPUs))
		w.WriteString("http {\naccess_log off;\nabsolute_redirect off;\n")
		w.WriteString(nginxTemps(in.Dir))
		fmt.Fprintf(w, "map $request_uri $new_uri {\n  include %s;\n}\n", join(in.Dir, sitemapFile))
		fmt.Fprintf(w, "server {\n  listen 127.0.0.1:%d reuseport backlog=4096;\n  keepalive_requests 1000000;\n", in.Port)
		w.WriteString("  if ($new_uri != \"\") { rewrite ^(.*)$ $new_uri permanent; }\n")
		w.WriteString("  location / { return 404; }\n}\n}\n")
		return nil
	})
	return []string{"nginx", "-p", in.Dir, "-c", path}, nil, err
}

// quoteNginx quotes a regex for nginx.conf: `{` and `}` would end a block.
func quoteNginx(re string) string {
	return `"` + strings.ReplaceAll(re, `"`, `\"`) + `"`
}

// originConfig is the nginx that answers forwarded misses: 200 with a
// 1 KiB body for any path.
func originConfig(dir string, port int) (argv []string, err error) {
	path := join(dir, "nginx.conf")
	body := strings.Repeat("x", originBody)
	err = writeFile(join(dir, "1k"), func(w *bufio.Writer) error { _, err := w.WriteString(body); return err })
	if err != nil {
		return nil, err
	}
	err = writeFile(path, func(w *bufio.Writer) error {
		w.WriteString(nginxMain(dir, 1))
		w.WriteString("http {\naccess_log off;\n" + nginxTemps(dir))
		fmt.Fprintf(w, "server { listen 127.0.0.1:%d backlog=4096; keepalive_requests 1000000; location / { root %s; default_type text/plain; try_files /1k =404; } }\n}\n", port, dir)
		return nil
	})
	return []string{"nginx", "-p", dir, "-c", path}, err
}
