package nginx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProbesClientSends checks that the self-check asks only about
// requests a client can send: keys holding a space, a quote, '#', a
// backslash or bytes past ASCII (which a client percent-encodes, or never
// sends) give no probe with those bytes raw.
func TestProbesClientSends(t *testing.T) {
	conf := `map $request_uri $v {
		"/a b" /x;
		"~^/re gex/(.*)$" /y/$1;
		"/quo\"te" /x;
		"/ha#sh" /x;
		"/caf` + "\xc3\xa9" + `" /x;
		"/back\\slash" /x;
		"/plain" /z;
	}
	server {
		listen 80;
		if ($v) { return 301 $v; }
	}`
	dirs, err := Parse("nginx.conf", []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	tr := &translator{m: build(dirs)}
	probes := tr.probes()
	sawPlain := false
	for _, p := range probes {
		if strings.ContainsAny(p.path+p.query, " \"#\\") || strings.ContainsFunc(p.path, func(r rune) bool { return r > 0x7e }) {
			t.Errorf("probe %q holds a byte no client sends raw", p.path)
		}
		sawPlain = sawPlain || p.path == "/plain"
	}
	if !sawPlain {
		t.Errorf("the probes lack the plain key /plain: %v", probes)
	}
}

func TestValueHelpers(t *testing.T) {
	for _, tt := range []struct{ in, lower, key, key1 string }{
		// nginx lowers ASCII letters only, drops one leading backslash,
		// and a trailing dot only in a hostnames map.
		{"/CAFÉ", "/cafÉ", "/cafÉ", "/cafÉ"},
		{"/File.", "/file.", "/file.", "/file"},
		{`\Default`, `\default`, "default", "default"},
		{"already", "already", "already", "already"},
	} {
		if got := lowerASCII(tt.in); got != tt.lower {
			t.Errorf("lowerASCII(%q) = %q, want %q", tt.in, got, tt.lower)
		}
		if got := exactKey(tt.in, false); got != tt.key {
			t.Errorf("exactKey(%q, false) = %q, want %q", tt.in, got, tt.key)
		}
		if got := exactKey(tt.in, true); got != tt.key1 {
			t.Errorf("exactKey(%q, true) = %q, want %q", tt.in, got, tt.key1)
		}
	}
	var got []string
	for _, in := range []string{"https:/a.example/x", "http:/a.example/?p=1", "HTTPS:/a", "https://ok.example/", "https:/", "https:/${host}", "/https:/x", "ftp:/x"} {
		out, ok := slashTypo(in)
		got = append(got, out+" "+map[bool]string{true: "repaired", false: "kept"}[ok])
	}
	want := []string{"https://a.example/x repaired", "http://a.example/?p=1 repaired", "HTTPS://a repaired", " kept", " kept", " kept", " kept", " kept"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slashTypo (-want +got):\n%s", diff)
	}
	for in, want := range map[string]bool{"/a/b?c=d&e=%20": true, "/a b": false, "/a#b": false, "/caf\xc3\xa9": false, "/a\\b": false, "/a<b>": false, "/a|b^c": true, "/a\x7f": false} {
		if got := clientSends(in); got != want {
			t.Errorf("clientSends(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzValueHelpers checks lowerASCII against bytes lowered one by one,
// and that slashTypo only ever adds the one missing slash.
func FuzzValueHelpers(f *testing.F) {
	f.Add("https:/a.example/x")
	f.Add("/CAFÉ")
	f.Fuzz(func(t *testing.T, s string) {
		low := lowerASCII(s)
		if len(low) != len(s) {
			t.Fatalf("lowerASCII(%q) = %q changes the length", s, low)
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if low[i] != c {
				t.Fatalf("lowerASCII(%q) = %q at byte %d", s, low, i)
			}
		}
		if out, ok := slashTypo(s); ok {
			i := strings.IndexByte(s, '/')
			if out != s[:i]+"/"+s[i:] || !strings.HasPrefix(strings.ToLower(out), "http") || strings.Contains(out[:i+3], "///") {
				t.Fatalf("slashTypo(%q) = %q", s, out)
			}
		}
	})
}

// TestReportCounts checks the report's first line: the count agrees with
// the tables and reads in the singular for one, and a map split into many
// files is named by its first and last.
func TestReportCounts(t *testing.T) {
	loc := &StructLoc{D: &Directive{Name: "location"}}
	one := &Result{Structural: []*Structural{{Locations: []*StructLoc{loc}}}}
	var b strings.Builder
	one.Report([]string{"out/redirectd.toml", "out/v.map"}, "out").Write(&b)
	if want := "wrote redirectd.toml, v.map: 1 table\n       1  [[location]]\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("report of one table:\n%s\nwant it to start with:\n%s", b.String(), want)
	}
	many := &Result{Structural: []*Structural{{Steps: []*Directive{{Name: "return"}}, Locations: []*StructLoc{{D: loc.D, Locations: []*StructLoc{loc, loc}}}}}}
	names := []string{"out/redirectd.toml"}
	for i := range 11 {
		names = append(names, fmt.Sprintf("out/v-%d.map", i+1))
	}
	b.Reset()
	many.Report(names, "out").Write(&b)
	if want := "wrote redirectd.toml and 11 map files beside it (v-1.map to v-11.map): 4 tables\n       3  [[location]]\n       1  [[server_rewrite]]\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("report of a map split in 11 files:\n%s\nwant it to start with:\n%s", b.String(), want)
	}
}
