package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

func TestCSV(t *testing.T) {
	file := writeFiles(t, map[string]string{
		"redirectd.toml": "[[csv]]\nfile = \"bulk.csv\"\n",
		"bulk.csv": "source,target,status,preserve_query,include_subdomains,subpath_matching\n" +
			"/old,https://example.com/new,301\n" +
			"example.com/a,https://example.com/b,302,false\n" +
			"https://shop.example.com/cat,https://example.com/category,,true,true,true\n" +
			"# a comment\n" +
			"\"/with,comma\",/x,308\n",
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	csvFile := filepath.Join(filepath.Dir(file), "bulk.csv")
	want := []matcher.Rule{
		{Kind: matcher.Exact, From: "/old", To: "https://example.com/new", Status: 301, File: csvFile, Line: 2},
		{Kind: matcher.Exact, Host: "example.com", From: "/a", To: "https://example.com/b", Status: 302, QueryString: matcher.QueryReplace, File: csvFile, Line: 3},
		{Kind: matcher.Prefix, Host: "shop.example.com", From: "/cat/", To: "https://example.com/category/", Status: 301, TrailingSlash: true, File: csvFile, Line: 4},
		{Kind: matcher.Prefix, Host: "*.shop.example.com", From: "/cat/", To: "https://example.com/category/", Status: 301, TrailingSlash: true, File: csvFile, Line: 4},
		{Kind: matcher.Exact, From: "/with,comma", To: "/x", Status: 308, File: csvFile, Line: 6},
	}
	if diff := cmp.Diff(want, cfg.Set.Rules()); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	var m matcher.Match
	if !cfg.Set.Lookup([]byte("eu.shop.example.com"), []byte("/cat/shoes"), nil, &m) ||
		string(m.AppendLocation(nil, []byte("x=1"))) != "https://example.com/category/shoes?x=1" {
		t.Errorf("subpath and subdomain row does not answer as expected")
	}
}

func TestCSVErrors(t *testing.T) {
	for _, tt := range []struct{ csv, want string }{
		{"/a,/b,299\n", "bulk.csv:1: status \"299\" is not a redirect status"},
		{"/a,/b,301,maybe\n", "bulk.csv:1: preserve_query \"maybe\" is not true or false"},
		{"/a\n", "bulk.csv:1: a row is source,target,status"},
		{"/a,/b,301\n/c,/d,301,false,true\n", "bulk.csv:2: include_subdomains needs a source with a host"},
		{"/a,/b\n\"/c,/d\n", "bulk.csv:2: cannot read the row"},
		{"/a,/b\n/a,/c\n", "bulk.csv:2: from: duplicate exact rule for \"/a\""},
	} {
		_, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": "[[csv]]\nfile = \"bulk.csv\"\n", "bulk.csv": tt.csv}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.csv, err, tt.want)
		}
	}
}

// TestCSVInvalidSkip loads a [[csv]] with invalid = "skip": each bad row,
// whatever is wrong with it, is left out and listed with its line, and
// the good rows load. Without it the same file is an error of the config.
// (A duplicate source is found once the whole Set is built, and fails
// the load as it does for a [[map]] with invalid = "skip".)
func TestCSVInvalidSkip(t *testing.T) {
	rows := "source,target,status\n" +
		"/a,/b,301\n" +
		"/c,/d,299\n" + // not a redirect status
		"/e\n" + // too few fields
		"/f,/g,301,maybe\n" + // not a flag
		"/k,/l,302\n" +
		"\"/h,/i\n" // an unclosed quote, to the end of the file
	for _, tt := range []struct {
		invalid string
		skipped []string // with the folder left out
		err     string
	}{
		{invalid: `invalid = "skip"`, skipped: []string{
			`bulk.csv:3: status "299" is not a redirect status`,
			`bulk.csv:4: a row is source,target,status[,preserve_query,include_subdomains,subpath_matching]; this one has 1 field`,
			`bulk.csv:5: preserve_query "maybe" is not true or false`,
			`bulk.csv:7: cannot read the row`,
		}},
		{invalid: "", err: `bulk.csv:3: status "299" is not a redirect status`},
		{invalid: `invalid = "error"`, err: `bulk.csv:7: cannot read the row`},
		{invalid: `invalid = "drop"`, err: `invalid: "drop" is not a choice`},
	} {
		t.Run(tt.invalid, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": "[[csv]]\nfile = \"bulk.csv\"\n" + tt.invalid + "\n", "bulk.csv": rows})
			cfg, err := config.Load(file)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, e := range cfg.Skipped {
				msg := strings.ReplaceAll(e.Error(), filepath.Dir(file)+string(filepath.Separator), "")
				if i < len(tt.skipped) && strings.HasPrefix(msg, tt.skipped[i]) {
					msg = tt.skipped[i]
				}
				got = append(got, msg)
			}
			if diff := cmp.Diff(tt.skipped, got); diff != "" {
				t.Errorf("skipped rows (-want +got):\n%s", diff)
			}
			var froms []string
			for _, r := range cfg.Set.Rules() {
				froms = append(froms, r.From+" "+r.To)
			}
			if diff := cmp.Diff([]string{"/a /b", "/k /l"}, froms); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}
