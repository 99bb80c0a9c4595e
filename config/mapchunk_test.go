package config

import (
	"bytes"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// mapChunkTexts are map files whose entries, words, quotes, escapes,
// comments and errors a piece may cut anywhere.
var mapChunkTexts = []string{
	"/a /b;\n/c /d;\n",
	"# c\n\"/a b\" '/c';\n~^/x/(\\d+)$ /y/$1;\n~*^/Z$ /z;\n",
	"/a /b /c;\n/d /e;\n/f",
	"volatile;\ndefault \"\";\n\"~^/GPT-3\\).*$\" \"/gpt-3\";\n\"~*^/x.*$\" \"\";\n\\/e /f;\n",
	"~^/a{2}$ /b;\n}\n\"/c\"/d /e;\n/f\\ g /h#i;\n",
	"/a /b; /c /d; # x;y\n\"/multi\nline\" /m;\n/q \"/unclosed;\n/r /s;\n",
	"/a /b;\n/a /c;\n/d\t/e ;\n\n\n/f /g;",
}

// loadMap loads text as a [[map]] file read chunk bytes at a time, on a
// goroutine of its own when async.
func loadMap(text string, chunk int, async bool) (string, []string) {
	defer func(c, a int) { mapChunk, mapAsync = c, a }(mapChunk, mapAsync)
	mapChunk = chunk
	if async {
		mapAsync = 0
	}
	cfg, err := LoadFS(fstest.MapFS{
		"c.toml": {Data: []byte("[[map]]\nfile = \"r.map\"\ninvalid = \"skip\"\n[[map]]\nfile = \"s.map\"\nhost = \"h.test\"\n")},
		"r.map":  {Data: []byte(text)},
		"s.map":  {Data: []byte(text)},
	}, "c.toml")
	if err != nil {
		return err.Error(), nil
	}
	var rules []string
	for _, r := range cfg.Set.Rules() {
		rules = append(rules, fmt.Sprintf("%s:%d %v %q %q %q %d %v", r.File, r.Line, r.Kind, r.Host, r.From, r.To, r.Status, r.Pass))
	}
	for _, e := range cfg.Skipped {
		rules = append(rules, "skipped "+e.Error())
	}
	return "", rules
}

// TestMapChunks checks that reading a map file a piece at a time gives
// the rules and errors of reading it whole, wherever the pieces cut it.
func TestMapChunks(t *testing.T) {
	for i, text := range mapChunkTexts {
		wantErr, want := loadMap(text, 1<<20, false)
		for chunk := 1; chunk <= len(text)+1; chunk++ {
			for _, async := range []bool{false, true} {
				gotErr, got := loadMap(text, chunk, async)
				if gotErr != wantErr {
					t.Errorf("text %d, pieces of %d (async %v): error\n%s\nwant\n%s", i, chunk, async, gotErr, wantErr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("text %d, pieces of %d (async %v): rules (-whole +pieces):\n%s", i, chunk, async, diff)
				}
			}
		}
	}
}

// FuzzMapChunks is TestMapChunks on any text, in pieces of 1 to 64 bytes.
func FuzzMapChunks(f *testing.F) {
	for _, text := range mapChunkTexts {
		f.Add(text, uint8(3))
	}
	f.Fuzz(func(t *testing.T, text string, chunk uint8) {
		if len(text) > 2048 {
			return
		}
		wantErr, want := loadMap(text, 1<<20, false)
		for _, async := range []bool{false, true} {
			gotErr, got := loadMap(text, int(chunk%64)+1, async)
			if gotErr != wantErr {
				t.Fatalf("pieces of %d (async %v): error\n%s\nwant\n%s", chunk%64+1, async, gotErr, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("pieces of %d (async %v): rules (-whole +pieces):\n%s", chunk%64+1, async, diff)
			}
		}
	})
}

// TestRegexLines holds regexLines, which searches for '~' alone, to what
// it counts: the lines after the first that start with ~, "~ or '~.
func TestRegexLines(t *testing.T) {
	for _, s := range []string{"", "~a", "\n~a\n\"~b\n'~c\n~~\nx~\n\"x~", "a\n~\n~", "\n\"~", "\n'", "~\n\n'~'~\n\"\"~", "/a /b;\n/c /d;\n"} {
		b := []byte(s)
		want := bytes.Count(b, []byte("\n~")) + bytes.Count(b, []byte("\n\"~")) + bytes.Count(b, []byte("\n'~"))
		if got := regexLines(b); got != want {
			t.Errorf("regexLines(%q) = %d, want %d", s, got, want)
		}
	}
}
