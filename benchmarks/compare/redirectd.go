package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// redirectd is this repository's server, or a build of another commit of
// it (BASELINE). Rules go into three nginx-style map files, which load far
// faster than [[rule]] tables (TOML decoding is most of the start-up time).
type redirectd struct {
	name, bin string
}

func (r *redirectd) Name() string    { return r.name }
func (r *redirectd) Package() string { return "" }
func (r *redirectd) Program() string { return r.bin }

func (r *redirectd) Version() string {
	out, err := exec.Command(r.bin, "version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "redirectd ")
}

func (r *redirectd) Configure(in Instance) ([]string, []string, error) {
	if in.Sitemap > 0 {
		return r.sitemap(in)
	}
	exact, prefix, regex := byKind(in.Spec)
	// A map key starting with ~ is a regex, as in nginx.
	write := func(name, keyPrefix string, rs []matcher.Rule) error {
		return writeFile(join(in.Dir, name), func(w *bufio.Writer) error {
			for _, x := range rs {
				fmt.Fprintf(w, "%s%s %s;\n", keyPrefix, x.From, x.To)
			}
			return nil
		})
	}
	if err := write("exact.map", "", exact); err != nil {
		return nil, nil, err
	}
	if err := write("prefix.map", "", prefix); err != nil {
		return nil, nil, err
	}
	if err := write("regex.map", "~", regex); err != nil {
		return nil, nil, err
	}
	conf := serverTables(in) + fmt.Sprintf(`
[access_log]
enabled = %t
path = %q
`, in.AccessLog != "", orDash(in.AccessLog))
	if in.TLS != nil {
		// idle_timeout: 75 s, nginx's keepalive_timeout, so that tls-idle's
		// connections outlive the measurement (the default is 10 s).
		conf = strings.Replace(conf, "max_connections_per_ip = 100000\n", "max_connections_per_ip = 100000\nidle_timeout = \"75s\"\n", 1)
		conf += fmt.Sprintf("\n[tls]\nlisten = %q\n\n[[tls.certificate]]\ncert = %q\nkey = %q\n", tlsListen(in), in.TLS.Cert, in.TLS.Key)
	}
	if in.Origin != "" {
		// Every load generator connection comes from one loopback
		// address, as max_connections_per_ip above.
		conf += fmt.Sprintf("\n[upstream]\nservers = [%q]\nmax_conns_per_client = 100000\n", in.Origin)
	}
	conf += "\n[[map]]\nfile = \"exact.map\"\nstatus = 301\n"
	// The proxy scenario's rule set has no prefix or regex rules.
	if len(prefix) > 0 {
		conf += "\n[[map]]\nfile = \"prefix.map\"\nmatch = \"prefix\"\nstatus = 302\n"
	}
	if len(regex) > 0 {
		conf += "\n[[map]]\nfile = \"regex.map\"\nstatus = 308\n"
	}
	if in.Model {
		conf += modelTables
	}
	return r.serveConfig(in, conf)
}

// sitemap serves the site's include file as it is, as one [[map]]: every
// key is a ~ regex, tried in file order, first match wins, as in nginx.
func (r *redirectd) sitemap(in Instance) ([]string, []string, error) {
	if err := writeSitemap(in.Dir, in.Sitemap); err != nil {
		return nil, nil, err
	}
	conf := serverTables(in) + fmt.Sprintf(`
[access_log]
enabled = false

[[map]]
file = %q
status = 301
`, sitemapFile)
	return r.serveConfig(in, conf)
}

// serverTables is the [server] and [admin] tables of every config the
// harness writes for in: its port and event loops, a connection limit
// no load generator reaches (they all come from one loopback address),
// and no admin listener.
func serverTables(in Instance) string {
	return fmt.Sprintf(`[server]
listen = "127.0.0.1:%d"
event_loops = %d
max_connections_per_ip = 100000

[admin]
listen = "off"
`, in.Port, in.CPUs)
}

// serveConfig writes conf as in's redirectd.toml and returns the command
// and environment that serve it.
func (r *redirectd) serveConfig(in Instance, conf string) ([]string, []string, error) {
	path := join(in.Dir, "redirectd.toml")
	if err := writeFile(path, func(w *bufio.Writer) error { _, err := w.WriteString(conf); return err }); err != nil {
		return nil, nil, err
	}
	return []string{r.bin, "serve", "-config", path}, []string{fmt.Sprintf("GOMAXPROCS=%d", in.CPUs)}, nil
}

// checkTime runs `redirectd check -format json` on the config in dir, pinned to
// cpus with GOMAXPROCS=n as the server is, and returns its wall time (the
// process's, start to exit) and the load+compile time it reports.
func (r *redirectd) checkTime(dir, cpus string, n int) (wall, load time.Duration, err error) {
	cmd := exec.Command("taskset", "-c", cpus, r.bin, "check", "-format", "json", "-config", join(dir, "redirectd.toml"))
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", n))
	t0 := time.Now()
	out, err := cmd.Output()
	wall = time.Since(t0)
	var rep struct {
		OK     bool     `json:"ok"`
		Errors []string `json:"errors"`
		LoadMS float64  `json:"load_ms"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		return wall, 0, fmt.Errorf("redirectd check: %v: %q", err, out)
	}
	if len(rep.Errors) > 0 {
		return wall, 0, fmt.Errorf("redirectd check: %s", strings.Join(rep.Errors, "; "))
	}
	// Exit status 1 with no config error is a lint finding: still timed.
	return wall, time.Duration(rep.LoadMS * float64(time.Millisecond)), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
