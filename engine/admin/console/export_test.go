package console

import (
	"archive/tar"
	"compress/gzip"
	"encoding/csv"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestExportCSV: the CSV export is read back, as the upload's parser
// reads it, as the exact rules, and names each rule a row cannot hold in
// a comment; a token limited to a host exports its host's rules only.
// (cmd/redirectd's TestConsoleCSVRoundTrip reads it with the upload's
// own parser, config.StreamCSV, which this package may not import.)
func TestExportCSV(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.rules = append(f.rules, admin.RuleInfo{Kind: "exact", Host: "a.example", From: "/secure", To: "/s", Status: 302, Conditions: []string{"scheme = https"}},
		admin.RuleInfo{Kind: "exact", From: "/gone", Status: 410},
		admin.RuleInfo{Kind: "exact", From: "/h", To: "/i", Status: 301, Headers: map[string]string{"X-Robots-Tag": "noindex"}})
	opts := admin.Options{Token: token, Tokens: []admin.Token{{Name: "amy", Role: edit.RoleViewer, Token: "amy-token", Hosts: []string{"a.example"}}}}
	base, _ := serve(t, opts, f)
	root, amy := newBrowser(t, base), newBrowser(t, base)
	root.signIn(token)
	amy.signIn("amy-token")
	type row struct {
		Host, From, To string
		Status         int
	}
	// Read as the upload's parser (config's CSV, which the engine may
	// not import) reads it: a header of source, target, status; '#'
	// lines are comments; a source that does not start with '/' starts
	// with its host.
	read := func(body string) []row {
		cr := csv.NewReader(strings.NewReader(body))
		cr.Comment, cr.FieldsPerRecord = '#', 3
		recs, err := cr.ReadAll()
		if err != nil || len(recs) == 0 || strings.Join(recs[0], ",") != "source,target,status" {
			t.Fatalf("the export does not read back (%v):\n%s", err, body)
		}
		var out []row
		for _, r := range recs[1:] {
			host, from := "", r[0]
			if i := strings.IndexByte(from, '/'); i > 0 {
				host, from = from[:i], from[i:]
			}
			status, err := strconv.Atoi(r[2])
			if err != nil {
				t.Fatalf("status %q: %v", r[2], err)
			}
			out = append(out, row{host, from, r[1], status})
		}
		return out
	}
	p := root.get("/ui/rules/export.csv")
	if p.Status != http.StatusOK {
		t.Fatalf("export.csv: %d %s", p.Status, p.Body)
	}
	want := []row{{"", "/gone", "", 410}, {"a.example", "/old-a", "/new-a", 301}, {"b.example", "/old-b", "/new-b", 301}}
	if diff := cmp.Diff(want, read(p.Body)); diff != "" {
		t.Errorf("the export read back (-want +got):\n%s", diff)
	}
	for _, c := range []string{`# left out (prefix rule): " prefix /docs/ -> https://docs.example/ 302"`, `# left out (conditions scheme = https): "a.example exact /secure -> /s 302"`,
		`# left out (headers X-Robots-Tag: noindex): " exact /h -> /i 301"`} {
		if !strings.Contains(p.Body, c+"\n") {
			t.Errorf("the export lacks %q:\n%s", c, p.Body)
		}
	}
	p = amy.get("/ui/rules/export.csv")
	if diff := cmp.Diff([]row{{"a.example", "/old-a", "/new-a", 301}}, read(p.Body)); diff != "" {
		t.Errorf("amy's export (-want +got):\n%s", diff)
	}
}

// TestExportTOML: the TOML export is the redirectd.toml of the node's
// rule-set archive; a host-limited token, which may not see every host,
// and a node whose rules are not edited get an error page saying why.
func TestExportTOML(t *testing.T) {
	t.Parallel()
	f := newEditFake()
	opts := admin.Options{Token: token, Tokens: []admin.Token{{Name: "amy", Role: edit.RoleViewer, Token: "amy-token", Hosts: []string{"a.example"}}}}
	base, _ := serve(t, opts, f)
	root, amy := newBrowser(t, base), newBrowser(t, base)
	root.signIn(token)
	amy.signIn("amy-token")
	if p := root.get("/ui/rules/export.toml"); p.Status != http.StatusNotFound || !strings.Contains(p.Body, "edits_dir") {
		t.Errorf("without an archive: %d %.300s", p.Status, p.Body)
	}
	const toml = "[[rule]]\nfrom = \"/old-a\"\nto = \"/new-a\"\nhost = \"a.example\"\n"
	file := filepath.Join(t.TempDir(), "ruleset.tar.gz")
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(out)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "redirectd.toml", Mode: 0o644, Size: int64(len(toml)), Typeflag: tar.TypeReg})
	tw.Write([]byte(toml))
	tw.Close()
	zw.Close()
	out.Close()
	f.ruleset = file
	if p := root.get("/ui/rules/export.toml"); p.Status != http.StatusOK || p.Body != toml {
		t.Errorf("export.toml: %d %q, want %q", p.Status, p.Body, toml)
	}
	if p := amy.get("/ui/rules/export.toml"); p.Status != http.StatusForbidden {
		t.Errorf("a host-limited token's export.toml: %d, want 403", p.Status)
	}
	if p := amy.get("/ui/rules"); strings.Contains(p.Body, "export.toml") || !strings.Contains(p.Body, "export.csv") {
		t.Errorf("amy's rules page offers the TOML export, or not the CSV")
	}
}
