package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestCSVSourceQuery: a source's path is a [[rule]]'s from, with or
// without a host: a '?' or '#' in it is refused at its row by every
// reader of the form ([[csv]], import csv's ReadCSV, the upload's
// StreamCSV), and so is a query right after the host; with
// path = "decoded", which compares the decoded path, both forms keep them
// as bytes of the path.
func TestCSVSourceQuery(t *testing.T) {
	t.Parallel()
	const why = "holds '?' or '#': a source matches the request's path, without its query"
	for _, tt := range []struct {
		name, csv, defaults string
		want                []string // host|from@line
		err                 string
	}{
		{"path", "/a?b,/t\n", "", nil, `bulk.csv:1: source "/a?b" ` + why},
		{"host and path", "/ok,/t\nexample.com/a?b,/t\n", "", nil, `bulk.csv:2: source "example.com/a?b" ` + why},
		{"URL with a fragment", "https://example.com/a#f,/t\n", "", nil, `bulk.csv:1: source "https://example.com/a#f" ` + why},
		{"path with a fragment", "/a#f,/t\n", "", nil, `bulk.csv:1: source "/a#f" ` + why},
		{"query after the host", "example.com?b,/t\n", "", nil, `bulk.csv:1: source "example.com?b" holds a query or fragment after its host`},
		{"escaped", "/a%3Fb,/t\nexample.com/c%3Fd,/t\n", "", []string{"|/a%3Fb@1", "example.com|/c%3Fd@2"}, ""},
		{"decoded path", "/a?b,/t\nexample.com/c?d,/t\n", "path = \"decoded\"\n", []string{"|/a?b@1", "example.com|/c?d@2"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			show := func(rs []matcher.Rule) []string {
				var out []string
				for _, r := range rs {
					out = append(out, fmt.Sprintf("%s|%s@%d", r.Host, r.From, r.Line))
				}
				return out
			}
			check := func(reader string, rs []matcher.Rule, err error) {
				t.Helper()
				if tt.err != "" {
					if err == nil || !strings.Contains(err.Error(), tt.err) {
						t.Errorf("%s: error %v, want one holding %q", reader, err, tt.err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v", reader, err)
				}
				if diff := cmp.Diff(tt.want, show(rs)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", reader, diff)
				}
			}
			toml := "[[csv]]\nfile = \"bulk.csv\"\n"
			if tt.defaults != "" {
				toml = "[rules.defaults]\n" + tt.defaults + toml
			}
			cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": toml, "bulk.csv": tt.csv}))
			var rs []matcher.Rule
			if err == nil {
				rs = cfg.Set.Rules()
			}
			check("[[csv]]", rs, err)
			if tt.defaults != "" {
				return // only a [[csv]] has the config's defaults
			}
			rs, bad := config.ReadCSV("bulk.csv", []byte(tt.csv))
			err = nil
			if len(bad) > 0 {
				err = bad[0]
			}
			check("ReadCSV", rs, err)
			rs = nil
			err = config.StreamCSV("bulk.csv", strings.NewReader(tt.csv), func(line int, got []matcher.Rule) error {
				for _, r := range got {
					r.Line = line
					rs = append(rs, r)
				}
				return nil
			})
			check("StreamCSV", rs, err)
		})
	}
}
