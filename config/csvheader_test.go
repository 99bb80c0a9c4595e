package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestCSVHeader: a first row of column names is a header, whatever the
// names and however many, and every reader of the form (a [[csv]]
// table, import csv's ReadCSV, the upload's StreamCSV) skips it alike;
// a first row holding a path or URL is a rule, a bad one an error of
// line 1; a host source's path is kept as written.
func TestCSVHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, csv string
		want      []string // host|from|to|status@line
		err       string
	}{
		{"from,to", "from,to\n/a,/b\n", []string{"|/a|/b|301@2"}, ""},
		{"source,destination,status", "source,destination,status\n/a,/b,302\n", []string{"|/a|/b|302@2"}, ""},
		{"from,to,code", "from,to,code\n/a,/b,308\n", []string{"|/a|/b|308@2"}, ""},
		{"spaces and case", "Old URL , New URL\nexample.com/a,/b\n", []string{"example.com|/a|/b|301@2"}, ""},
		{"six columns", "source_url,target_url,status_code,preserve_query_string,include_subdomains,subpath_matching\n/a,/b,301\n", []string{"|/a|/b|301@2"}, ""},
		{"comment first", "# exported\nfrom,to\n/a,/b\n", []string{"|/a|/b|301@3"}, ""},
		{"Excel's byte order mark", "\ufeffsource,target\n/a,/b\n", []string{"|/a|/b|301@2"}, ""},
		{"byte order mark on a rule", "\ufeff/a,/b\n", []string{"|/a|/b|301@1"}, ""},
		{"no header", "/a,/b,301\n/c,/d\n", []string{"|/a|/b|301@1", "|/c|/d|301@2"}, ""},
		{"410 first", "/gone,,410\n", []string{"|/gone||410@1"}, ""},
		{"host path as written", "source,target\nexample.com/a b,/s\nhttps://example.com/café,/c\n", []string{"example.com|/a b|/s|301@2", "example.com|/café|/c|301@3"}, ""},
		{"column names after the first row are a rule", "/a,/b\nfrom,to\n", []string{"|/a|/b|301@1", "from|/|to|301@2"}, ""},
		{"a mistyped status on the first row", "/a,/b,30l\n/c,/d\n", nil, `bulk.csv:1: status "30l" is not a redirect status`},
		{"a header with a slash", "source (host/path),target\n/a,/b\n", nil, "bulk.csv:1: source \"http://source (host/path)\" is neither a path nor host/path (a first row of column names is a header when none of them holds a '/')"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkCSVReaders(t, tt.csv, "", tt.want, tt.err)
		})
	}
}

// checkCSVReaders reads csv with every reader of the form (a [[csv]]
// table, under [rules.defaults] defaults when given, then ReadCSV and
// StreamCSV, which take no defaults) and checks each gives want
// (host|from|to|status@line) or an error holding wantErr.
func checkCSVReaders(t *testing.T, csv, defaults string, want []string, wantErr string) {
	t.Helper()
	show := func(rs []matcher.Rule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s|%s|%s|%d@%d", r.Host, r.From, r.To, r.Status, r.Line))
		}
		return out
	}
	check := func(reader string, rs []matcher.Rule, err error) {
		t.Helper()
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("%s: error %v, want one holding %q", reader, err, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", reader, err)
		}
		if diff := cmp.Diff(want, show(rs)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", reader, diff)
		}
	}
	toml := "[[csv]]\nfile = \"bulk.csv\"\n"
	if defaults != "" {
		toml = "[rules.defaults]\n" + defaults + toml
	}
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": toml, "bulk.csv": csv}))
	var rs []matcher.Rule
	if err == nil {
		rs = cfg.Set.Rules()
	}
	check("[[csv]]", rs, err)
	if defaults != "" {
		return // only a [[csv]] has the config's defaults
	}
	rs, bad := config.ReadCSV("bulk.csv", []byte(csv))
	err = nil
	if len(bad) > 0 {
		err = bad[0]
	}
	check("ReadCSV", rs, err)
	rs = nil
	err = config.StreamCSV("bulk.csv", strings.NewReader(csv), func(line int, got []matcher.Rule) error {
		for _, r := range got {
			r.Line = line
			rs = append(rs, r)
		}
		return nil
	})
	check("StreamCSV", rs, err)
}
