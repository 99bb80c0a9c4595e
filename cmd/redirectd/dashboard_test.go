package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// dashboardPanel is the part of a Grafana panel the test reads: rows hold
// their panels (collapsed rows) under panels.
type dashboardPanel struct {
	Title   string           `json:"title"`
	Type    string           `json:"type"`
	Panels  []dashboardPanel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// dashboardExprs returns "panel title" -> its PromQL expressions, from
// every panel, nested ones included.
func dashboardExprs(t *testing.T, file string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title  string           `json:"title"`
		UID    string           `json:"uid"`
		Panels []dashboardPanel `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("%s: no title, uid or panels", file)
	}
	out := map[string][]string{}
	var walk func([]dashboardPanel)
	walk = func(ps []dashboardPanel) {
		for _, p := range ps {
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", file, p.Title)
			}
			if _, dup := out[p.Title]; dup {
				t.Errorf("%s: two panels titled %q", file, p.Title)
			}
			for _, tg := range p.Targets {
				out[p.Title] = append(out[p.Title], tg.Expr)
			}
		}
	}
	walk(d.Panels)
	return out
}

// exportedNames returns every sample name in a Prometheus text exposition
// (histogram series under their _bucket, _sum and _count names).
func exportedNames(text string) map[string]bool {
	names := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		end := strings.IndexAny(l, "{ ")
		if end < 0 {
			continue
		}
		names[l[:end]] = true
	}
	return names
}

// TestGrafanaDashboard checks that every PromQL expression in
// deploy/grafana/redirectd.json parses (Prometheus's own parser) and names
// only metrics that /metrics of the real binary exports, run with every
// part a dashboard panel shows turned on: an upstream, TLS, a rule source
// and the access log, with a request of each kind counted.
func TestGrafanaDashboard(t *testing.T) {
	t.Parallel()
	exprs := dashboardExprs(t, "../../deploy/grafana/redirectd.json")

	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream")
	}))
	defer upstream.Close()
	origin := &ruleOrigin{}
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"})
	src := httptest.NewServer(origin)
	defer src.Close()

	addr, tlsAddr, adminAddr := testport.Free(t), testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "certs"), 0o755)
	writeCert(t, filepath.Join(dir, "certs"), "a", 90*24*time.Hour, "a.example")
	file := filepath.Join(dir, "r.toml")
	cfg := fmt.Sprintf(`[server]
listen = %q

[admin]
listen = %q

[access_log]
path = %q

[tls]
listen = %q
certificates_dir = "certs"

[upstream]
servers = [%q]

[rules]
source = "%s/site.tar.gz"
poll = "1s"
cache_dir = "cache"
source_header = "Authorization: Bearer fleet"
`, addr, adminAddr, filepath.Join(dir, "access.log"), tlsAddr, upstream.Listener.Addr().String(), src.URL)
	os.WriteFile(file, []byte(cfg), 0o644)
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	// A redirect (once the source's rules load), a forwarded miss and an
	// answer over TLS, so the labelled families have series.
	var status int
	var err error
	if !testutil.Eventually(testutil.Patience, func() bool {
		status, _, err = firstAnswer(addr, "/a", time.Now().Add(2*time.Second))
		return err == nil && status == 301
	}) {
		t.Fatalf("the source's rule never answered: %d %v\n%s", status, err, stderr)
	}
	if status, _, err := firstAnswer(addr, "/forwarded", time.Now().Add(2*time.Second)); err != nil || status != 200 {
		t.Fatalf("forwarded: %d %v\n%s", status, err, stderr)
	}
	httpsGet(t, tlsAddr, "a.example", "GET /a HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n")

	resp, err := http.Get("http://" + adminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	exported := exportedNames(string(body))

	titles := make([]string, 0, len(exprs))
	for title := range exprs {
		titles = append(titles, title)
	}
	sort.Strings(titles)
	checked := 0
	for _, title := range titles {
		for _, e := range exprs[title] {
			names, err := promqlMetricNames(e)
			if err != nil {
				t.Errorf("panel %q: expression %q does not parse: %v", title, e, err)
				continue
			}
			if len(names) == 0 {
				t.Errorf("panel %q: expression %q names no metric", title, e)
			}
			for _, n := range names {
				checked++
				if !exported[n] {
					t.Errorf("panel %q: metric %s is not in /metrics (expression %q)", title, n, e)
				}
			}
		}
	}
	if t.Failed() {
		all := make([]string, 0, len(exported))
		for n := range exported {
			all = append(all, n)
		}
		sort.Strings(all)
		t.Logf("/metrics exports: %s", strings.Join(all, " "))
	}
	t.Logf("%d panels, %d metric references checked", len(exprs), checked)
}

// promqlMetricNames returns the metric names an expression selects.
// Grafana's $__rate_interval and friends are replaced by a duration first,
// as Grafana does before sending the query.
func promqlMetricNames(expr string) ([]string, error) {
	r := strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h")
	e, err := parser.NewParser(parser.Options{}).ParseExpr(r.Replace(expr))
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			name := vs.Name
			for _, m := range vs.LabelMatchers {
				if m.Name == "__name__" {
					name = m.Value
				}
			}
			names = append(names, name)
		}
		return nil
	})
	return names, nil
}

// dashboardFile is the Grafana dashboard deploy/ ships.
const dashboardFile = "../../deploy/grafana/redirectd.json"

// TestGrafanaDashboardScope: the dashboard has job and instance
// variables, every query is scoped to them (a dashboard for one fleet
// must not add up every job that Prometheus scrapes), and panels show
// the metrics an operator is paged for: panics, misses and map entries
// left out.
func TestGrafanaDashboardScope(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Type       string `json:"type"`
				Definition string `json:"definition"`
				Multi      bool   `json:"multi"`
				IncludeAll bool   `json:"includeAll"`
				AllValue   string `json:"allValue"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		vars[v.Name] = v.Definition
		if !v.Multi || !v.IncludeAll || v.AllValue != ".*" {
			t.Errorf("variable %s: want multi-value with All (.*), so one node or the whole fleet can be shown", v.Name)
		}
	}
	if got, want := vars["job"], "label_values(redirectd_requests_total, job)"; got != want {
		t.Errorf("variable job: query %q, want %q", got, want)
	}
	if got, want := vars["instance"], `label_values(redirectd_requests_total{job=~"$job"}, instance)`; got != want {
		t.Errorf("variable instance: query %q, want %q (the nodes of the jobs chosen)", got, want)
	}

	shown := map[string]bool{}
	for title, exprs := range dashboardExprs(t, dashboardFile) {
		for _, e := range exprs {
			sels, err := promqlSelectors(e)
			if err != nil {
				t.Errorf("panel %q: %q: %v", title, e, err)
				continue
			}
			for _, s := range sels {
				if s.matchers["job"] != `=~$job` || s.matchers["instance"] != `=~$instance` {
					t.Errorf("panel %q: %s is not scoped with {job=~\"$job\",instance=~\"$instance\"}: %q", title, s.name, e)
				}
				shown[s.name] = true
				if v, ok := s.matchers["outcome"]; ok {
					shown[s.name+"{outcome"+v+"}"] = true
				}
			}
		}
	}
	for _, m := range []string{"redirectd_panics_total", `redirectd_requests_total{outcome=miss}`, "redirectd_misses_tracked", "redirectd_map_entries_skipped"} {
		if !shown[m] {
			t.Errorf("no panel shows %s", m)
		}
	}
}

// promqlSelector is one vector selector of an expression: the metric
// name and each other label's matcher, as "=~value".
type promqlSelector struct {
	name     string
	matchers map[string]string
}

func promqlSelectors(expr string) ([]promqlSelector, error) {
	r := strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h")
	e, err := parser.NewParser(parser.Options{}).ParseExpr(r.Replace(expr))
	if err != nil {
		return nil, err
	}
	var out []promqlSelector
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			s := promqlSelector{name: vs.Name, matchers: map[string]string{}}
			for _, m := range vs.LabelMatchers {
				if m.Name != "__name__" {
					s.matchers[m.Name] = m.Type.String() + m.Value
				}
			}
			out = append(out, s)
		}
		return nil
	})
	return out, nil
}
