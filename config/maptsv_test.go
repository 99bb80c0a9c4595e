package config

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// loadTSV loads text as a tab-separated [[map]] file read chunk bytes at a
// time (on a goroutine of its own when async), with invalid = "skip", and
// returns the load's error or its rules and skipped entries.
func loadTSV(text string, chunk int, async bool) (string, []string) {
	defer func(c, a int) { mapChunk, mapAsync = c, a }(mapChunk, mapAsync)
	mapChunk = chunk
	if async {
		mapAsync = 0
	}
	cfg, err := LoadFS(fstest.MapFS{
		"c.toml": {Data: []byte("[[map]]\nfile = \"r.tsv\"\nformat = \"tsv\"\npath = \"decoded\"\ncase_insensitive = \"unicode\"\ninvalid = \"skip\"\n")},
		"r.tsv":  {Data: []byte(text)},
	}, "c.toml")
	if err != nil {
		return err.Error(), nil
	}
	var rules []string
	for _, r := range cfg.Set.Rules() {
		rules = append(rules, fmt.Sprintf("%s:%d %q %q %v %v", r.File, r.Line, r.From, r.To, r.DecodedPath, r.UnicodeFold))
	}
	for _, e := range cfg.Skipped {
		rules = append(rules, "skipped "+e.Error())
	}
	return "", rules
}

func TestTSVMap(t *testing.T) {
	text := "# comment\r\n/a:b\t/x\r\n\n/c #; \"d\"\t/y#f\n/only-key\n/e\t\n\t/f\n/g\t/h\t/i\n~^/r\t/s"
	gotErr, got := loadTSV(text, 1<<20, false)
	want := []string{
		`r.tsv:2 "/a:b" "/x" true true`,
		`r.tsv:4 "/c #; \"d\"" "/y#f" true true`,
		"skipped r.tsv:5: an entry of a tab-separated map is `from<TAB>to`; this line has 1 fields",
		"skipped r.tsv:6: an entry of a tab-separated map needs both a from and a to; one is empty",
		"skipped r.tsv:7: an entry of a tab-separated map needs both a from and a to; one is empty",
		"skipped r.tsv:8: an entry of a tab-separated map is `from<TAB>to`; this line has 3 fields",
		// A key is a path as written: "~" starts no regex here.
		`skipped r.tsv:9: from: "~^/r" must be a path starting with '/'`,
	}
	if gotErr != "" {
		t.Fatal(gotErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	for chunk := 1; chunk <= len(text)+1; chunk++ {
		for _, async := range []bool{false, true} {
			if _, got := loadTSV(text, chunk, async); !cmp.Equal(want, got) {
				t.Errorf("pieces of %d (async %v): %s", chunk, async, cmp.Diff(want, got))
			}
		}
	}
	_, err := LoadFS(fstest.MapFS{
		"c.toml": {Data: []byte("[[map]]\nfile = \"r.map\"\nformat = \"csv\"\n")},
		"r.map":  {Data: []byte("/a\t/b\n")},
	}, "c.toml")
	if err == nil || !strings.Contains(err.Error(), `format: "csv" is not a choice`) {
		t.Errorf("format = \"csv\": %v", err)
	}
}

// FuzzTSVMap checks that a tab-separated map loads the same whole and in
// pieces, and that every rule is one line's two fields.
func FuzzTSVMap(f *testing.F) {
	f.Add("/a:b\t/x\r\n# c\n/c #;\t/y#f\n/only\n", 3)
	f.Add("/caf\u00e9\t/b\u00e9\n\n/%3Cx%3E\t/<embed>\n", 1)
	f.Fuzz(func(t *testing.T, text string, chunk int) {
		if len(text) > 2048 || chunk < 1 || chunk > 4096 {
			return
		}
		wantErr, want := loadTSV(text, 1<<20, false)
		gotErr, got := loadTSV(text, chunk, false)
		if gotErr != wantErr || !cmp.Equal(want, got) {
			t.Fatalf("pieces of %d differ: %q %v, whole %q %v", chunk, gotErr, got, wantErr, want)
		}
		if wantErr != "" {
			return
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			lines[strings.TrimSuffix(l, "\r")] = true
		}
		var it mapItem
		scanTSV("r.tsv", []byte(text), true, 1, matcher.Rule{}, &mapOut{Item: &it, Emit: func() bool {
			if it.err == nil && (strings.ContainsAny(it.r.From, "\t\n") || strings.ContainsAny(it.r.To, "\t\n") || !lines[it.r.From+"\t"+it.r.To]) {
				t.Fatalf("rule %q -> %q is not the two fields of a line", it.r.From, it.r.To)
			}
			return true
		}})
	})
}
