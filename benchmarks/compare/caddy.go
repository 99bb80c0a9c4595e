package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// caddy serves exact rules from a `map` (Caddy 2.6 walks its entries in
// order), prefix rules as `handle_path` blocks (which strip the prefix, so
// {path} is the rest) and regex rules as `path_regexp` matchers inside the
// last, catch-all `handle`.
type caddy struct{}

func (caddy) Name() string    { return "caddy" }
func (caddy) Package() string { return "caddy" }
func (caddy) Program() string { return "caddy" }

func (caddy) Version() string {
	out, _ := exec.Command("caddy", "version").Output()
	return strings.TrimSpace(string(out))
}

func (caddy) Configure(in Instance) ([]string, []string, error) {
	if in.Sitemap > 0 {
		// 40,000 path_regexp matchers, tried in order at 2-3k req/s for 500:
		// tens of requests a second, minutes to start.
		return nil, nil, fmt.Errorf("caddy: %w (a path_regexp matcher per key, tried in order: minutes to load, about 30 req/s)", errNoSitemap)
	}
	exact, prefix, regex := byKind(in.Spec)
	path := join(in.Dir, "Caddyfile")
	err := writeFile(path, func(w *bufio.Writer) error {
		w.WriteString("{\n\tadmin off\n\tauto_https off\n}\n")
		// Any Host (the scenarios send www.example.com), bound to loopback.
		sites := []string{fmt.Sprintf("http://:%d", in.Port)}
		if in.TLS != nil {
			// The same site on the HTTPS port, with the run's certificate.
			sites = append(sites, fmt.Sprintf("https://:%d", in.TLSPort))
		}
		for _, site := range sites {
			if err := caddySite(w, in, site, exact, prefix, regex); err != nil {
				return err
			}
		}
		return nil
	})
	env := []string{fmt.Sprintf("GOMAXPROCS=%d", in.CPUs), "HOME=" + in.Dir,
		"XDG_DATA_HOME=" + join(in.Dir, "data"), "XDG_CONFIG_HOME=" + join(in.Dir, "config")}
	return []string{"caddy", "run", "--config", path, "--adapter", "caddyfile"}, env, err
}

// caddySite writes one site block serving the rules at address site.
func caddySite(w *bufio.Writer, in Instance, site string, exact, prefix, regex []matcher.Rule) error {
	fmt.Fprintf(w, "%s {\n\tbind 127.0.0.1\n", site)
	if strings.HasPrefix(site, "https://") {
		fmt.Fprintf(w, "\ttls %s %s\n", in.TLS.Cert, in.TLS.Key)
	}
	if in.AccessLog != "" {
		fmt.Fprintf(w, "\tlog {\n\t\toutput file %s\n\t}\n", in.AccessLog)
	}
	w.WriteString("\tmap {path} {exact_to} {\n")
	for _, r := range exact {
		fmt.Fprintf(w, "\t\t%s %s\n", r.From, r.To)
	}
	w.WriteString("\t\tdefault -\n\t}\n\t@exact not vars {exact_to} -\n\tredir @exact {exact_to} 301\n")
	for _, r := range prefix {
		if !strings.HasSuffix(r.From, "/") {
			return fmt.Errorf("caddy config: prefix rule %q does not end in /", r.From)
		}
		fmt.Fprintf(w, "\thandle_path %s* {\n\t\tredir %s{path} %d\n\t}\n", r.From, strings.TrimSuffix(r.To, "/"), r.Status)
	}
	w.WriteString("\thandle {\n")
	for i, r := range regex {
		fmt.Fprintf(w, "\t\t@r%d path_regexp r%d %s\n", i, i, r.From)
		to := strings.NewReplacer("$1", fmt.Sprintf("{re.r%d.1}", i), "$2", fmt.Sprintf("{re.r%d.2}", i)).Replace(r.To)
		fmt.Fprintf(w, "\t\tredir @r%d %s %d\n", i, to, r.Status)
	}
	if in.Origin != "" {
		fmt.Fprintf(w, "\t\treverse_proxy %s\n", in.Origin)
	} else {
		w.WriteString("\t\trespond \"not found\" 404\n")
	}
	w.WriteString("\t}\n}\n")
	return nil
}
