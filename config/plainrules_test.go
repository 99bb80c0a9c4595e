package config

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

// decodeBoth decodes src with decodeConfig and with toml.Decode alone.
func decodeBoth(src string) (fast, full rawConfig, fastMD, fullMD toml.MetaData, fastErr, fullErr error) {
	headers, _ := scanTOML("c.toml", []byte(src))
	fastMD, fastErr = decodeConfig([]byte(src), headers, &fast)
	fullMD, fullErr = toml.Decode(src, &full)
	return
}

// sameDecoding fails t unless decodeConfig decoded src as toml.Decode
// does: the same error, or the same values and the same keys but those
// of the rule tables it read itself. The decoder is not deterministic
// everywhere (it fills a map of tables, [upstreams], and matches keys to
// fields without case, from and From, in Go's map order), so a result
// passes when the decoder gives it in one of up to 100 tries.
func sameDecoding(t *testing.T, src string) {
	t.Helper()
	var fast rawConfig
	headers, _ := scanTOML("c.toml", []byte(src))
	fastMD, fastErr := decodeConfig([]byte(src), headers, &fast)
	var why string
	for range 100 {
		var full rawConfig
		fullMD, fullErr := toml.Decode(src, &full)
		if why = differs(fast, full, fastMD, fullMD, fastErr, fullErr); why == "" {
			return
		}
	}
	t.Fatalf("%q: %s", src, why)
}

// differs says how decodeConfig's result differs from the decoder's, or
// returns "".
func differs(fast, full rawConfig, fastMD, fullMD toml.MetaData, fastErr, fullErr error) string {
	if (fastErr == nil) != (fullErr == nil) || fastErr != nil && fastErr.Error() != fullErr.Error() {
		return fmt.Sprintf("error %v, the decoder's %v", fastErr, fullErr)
	}
	if fastErr != nil {
		return ""
	}
	if !reflect.DeepEqual(fast, full) {
		return fmt.Sprintf("decoded\n%#v\nthe decoder's\n%#v", fast.Rule, full.Rule)
	}
	keys := func(md toml.MetaData, dropRules bool) []string {
		var out []string
		for _, k := range md.Keys() {
			if !dropRules || k[0] != "rule" {
				out = append(out, k.String())
			}
		}
		return out
	}
	hand := len(fast.Rule) > 0 && !slices.ContainsFunc(fastMD.Keys(), func(k toml.Key) bool { return k[0] == "rule" })
	if diff := cmp.Diff(keys(fullMD, hand), keys(fastMD, false)); diff != "" {
		return "keys (-decoder +decodeConfig):\n" + diff
	}
	if hand {
		for _, k := range fullMD.Keys() {
			if k[0] == "rule" && len(k) == 2 && !isKnown("rule", k[1]) {
				return fmt.Sprintf("rule key %q read by hand is not a known key", k[1])
			}
		}
	}
	return ""
}

func TestDecodeConfigPlainRules(t *testing.T) {
	tests := []struct {
		name, src string
		hand      bool // the rule tables are read by hand
	}{
		{"plain", "[server]\nlisten = \"127.0.0.1:80\"\n\n[[rule]]\nfrom = \"/a\"\nto = 'https://x/b' # c\nstatus = 301\n\n[[rule]] # second\n  match = \"prefix\"\n\tfrom=\"/p/\"\nto = \"/q/\"\ncase_insensitive = true\n", true},
		{"escapes", "[[rule]]\nfrom = \"^/a/(\\\\d+)\\\"$\"\nto = \"/b/$1\"\n", true},
		{"crlf", "[[rule]]\r\nfrom = \"/a\"\r\nto = \"/b\"\r\n# c\r\n", true},
		{"interleaved", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n[[map]]\nfile = \"x.map\"\n[[rule]]\nfrom = \"/c\"\nto = \"/d\"\n[admin]\nlisten = \"off\"\n", true},
		{"zero and false", "[[rule]]\nstatus = 0\nfallback = false\nfrom = ''\nto = \"\"\n", true},
		// Not plain: the whole document goes to the decoder.
		{"subtable", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n[rule.when]\ncountry = \"DE\"\n", false},
		{"inline table", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nwhen = { country = \"DE\" }\n", false},
		{"array", "[[rule]]\nfrom = \"/a\"\nhost = [\"a\", \"b\"]\n", false},
		{"unicode escape", "[[rule]]\nfrom = \"/\\u00e9\"\nto = \"/b\"\n", false},
		{"twice", "[[rule]]\nfrom = \"/a\"\nfrom = \"/b\"\n", false},
		{"unknown key", "[[rule]]\nfrom = \"/a\"\nFrom = \"/b\"\n", false},
		{"dotted key", "[[rule]]\nwhen.country = \"DE\"\n", false},
		{"leading zero", "[[rule]]\nstatus = 0301\n", false},
		{"underscore", "[[rule]]\nstatus = 3_01\n", false},
		{"signed", "[[rule]]\nstatus = +301\n", false},
		{"float", "[[rule]]\nstatus = 301.0\n", false},
		{"text after", "[[rule]]\nfrom = \"/a\" x\n", false},
		{"unterminated", "[[rule]]\nfrom = \"/a\n", false},
		{"control", "[[rule]]\nfrom = \"/a\x01\"\n", false},
		{"bad utf-8", "[[rule]]\nfrom = \"/a\xff\"\n", false},
		{"array of rules too", "rule = [{from = \"/x\"}]\n[[rule]]\nfrom = \"/a\"\n", false},
		{"rule table", "[[rule]]\nfrom = \"/a\"\n[rule]\nfrom = \"/b\"\n", false},
		{"in a string", "[server]\nx = \"\"\"\n[[rule]]\nfrom = 1\n\"\"\"\n", false},
		{"spaced header", "[[ rule ]]\nfrom = \"/a\"\n", false},
		{"bad elsewhere", "[[rule]]\nfrom = \"/a\"\n[server\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameDecoding(t, tt.src)
			rules, _ := plainRules([]byte(tt.src), must(scanTOML("c.toml", []byte(tt.src))))
			fast, _, md, _, err, _ := decodeBoth(tt.src)
			hand := rules != nil && err == nil && len(fast.Rule) > 0 && !slices.ContainsFunc(md.Keys(), func(k toml.Key) bool { return k[0] == "rule" })
			if hand != tt.hand {
				t.Errorf("read by hand: %v, want %v", hand, tt.hand)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Lines keep their numbers, so the decoder's errors and the locator's
// lines for the rest of the document are those of the file.
func TestPlainRulesKeepLines(t *testing.T) {
	src := "[[rule]]\nfrom = \"/a\"\r\nto = \"/b\"\n\n[server]\nlisten = 1\n"
	_, rest := plainRules([]byte(src), must(scanTOML("c.toml", []byte(src))))
	if got, want := string(rest), "\n\n\n\n[server]\nlisten = 1\n"; got != want {
		t.Errorf("rest = %q, want %q", got, want)
	}
}

// realConfigs are the repository's TOML configs and the READMEs' TOML
// examples: text written by people, as the fast path will meet it.
func realConfigs(tb testing.TB) []string {
	var out []string
	for _, file := range []string{"../deploy/redirectd.toml", "../cmd/redirectd/example/redirectd.toml",
		"../cmd/redirectd/testdata/testcmd/site.toml", "../cmd/redirectd/testdata/testcmd/routes.toml",
		"../cmd/redirectd/testdata/testcmd/upstream.toml", "../cmd/redirectd/testdata/testcmd/baseline-old.toml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	block := regexp.MustCompile("(?s)```toml\n(.*?)```")
	for _, readme := range []string{"README.md", "../matcher/README.md", "../README.md"} {
		b, err := os.ReadFile(readme)
		if err != nil {
			tb.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(b), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// The repository's configs and examples decode as the decoder decodes
// them, and those with rule tables are read by hand.
func TestDecodeConfigRealFiles(t *testing.T) {
	hand, all := 0, realConfigs(t)
	defer func() { t.Logf("%d of %d read by hand", hand, len(all)) }()
	for _, src := range all {
		sameDecoding(t, src)
		if rules, _ := plainRules([]byte(src), must(scanTOML("c.toml", []byte(src)))); rules != nil {
			hand++
		}
	}
	if hand == 0 {
		t.Error("no config's rule tables were read by hand")
	}
}

// FuzzDecodeConfig holds decodeConfig to toml.Decode: the same values
// and errors, on any text.
func FuzzDecodeConfig(f *testing.F) {
	for _, s := range realConfigs(f) {
		f.Add(s)
	}
	for _, s := range []string{
		"[[rule]]\nfrom = \"/a\"\nto = 'b'\nstatus = 301\n",
		"[server]\nlisten = \":80\"\n[[rule]]\nmatch = \"prefix\" # c\nfrom = \"/p/\"\ncase_insensitive = true\n[[map]]\nfile = \"m\"\n",
		"[[rule]]\nfrom = \"a\\\\\\\"b\"\n[rule.when]\nx = 1\n",
		"x = 1\n[[rule]]\r\nfrom = ''\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Count(src, "\n") > 200 || CheckNesting("c.toml", []byte(src)) != nil {
			return // load refuses deep nesting before decoding
		}
		sameDecoding(t, src)
	})
}
