package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
)

// mdnAnswers are the answers an MDN-style site gives for its map
// (testdata/mdn/_redirects.tsv): it decodes the whole path, folds its
// case (every letter, not only ASCII), looks it up, and sends the target
// percent-encoded, with the query before the target's fragment.
var mdnAnswers = []struct{ target, want string }{
	{"/en-US/docs/HTML%3AElement%3Asmall", "/en-US/docs/Web/HTML/Element/small"},
	{"/en-us/docs/html:element:SMALL", "/en-US/docs/Web/HTML/Element/small"},
	{"/en-US/docs/Glossary/B%C3%89zier_curve", "/en-US/docs/Glossary/Bezier_curve"},
	{"/FR/docs/glossaire/COURBE_DE_B%C3%89ZIER", "/fr/docs/Glossary/B%C3%A9zier_curve"},
	{"/en-US/docs/Web/CSS/%3Ccolor%3E", "/en-US/docs/Web/CSS/color_value"},
	{"/en-us/docs/web/css/%3ccolor%3e", "/en-US/docs/Web/CSS/color_value"},
	{"/en-US/docs/Web/API/Window.open()", "/en-US/docs/Web/API/Window/open"},
	{"/en-US/docs/Web/API/Window.open%28%29", "/en-US/docs/Web/API/Window/open"},
	{"/en-US/docs/What_is_a_URL%3F", "/en-US/docs/Learn/Common_questions/What_is_a_URL"},
	{"/en-US/docs/What_is_a_URL?", ""}, // a query: the path has no '?'
	{"/en-US/docs/C%23_for_web_developers", "/en-US/docs/Learn/Languages#csharp"},
	{"/en-US/docs/C%23_for_web_developers?utm=1", "/en-US/docs/Learn/Languages?utm=1#csharp"},
	{"/en-US/docs/Space%20page", "/en-US/docs/Space_page"},
	{"/en-US/docs/100%25_width", "/en-US/docs/Full_width"},
	{"/en-US/docs/Embed_element", "/en-US/docs/Web/HTML/Element/%3Cembed%3E"},
	{"/ja/docs/%E7%94%A8%E8%AA%9E%E9%9B%86/ajax", "/ja/docs/Glossary/AJAX"},
	{"/DE/docs/Stra%C3%9Fe", "/de/docs/Strasse"},
	{"/en-us/docs/%D0%B2%D0%B5%D0%B1/%D1%81%D1%82%D0%B0%D1%80%D1%82", "/ru/docs/Web/%D0%A1%D1%82%D0%B0%D1%80%D1%82"},
	{"/en-US/docs/Nothing", ""},
}

// TestMDNStyleMap serves a tab-separated, case-insensitive map of MDN's
// shape with the real binary, asks it with raw request bytes, and checks
// each answer against the site's; `check` passes on the same config.
func TestMDNStyleMap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	fixture, err := filepath.Abs(filepath.Join("testdata", "mdn", "_redirects.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	addr := testport.Free(t)
	file := filepath.Join(t.TempDir(), "redirectd.toml")
	cfg := fmt.Sprintf(`[server]
listen = %q
[admin]
listen = "127.0.0.1:0"
[access_log]
enabled = false

[[map]]
file = %q
format = "tsv"
path = "decoded"
case_insensitive = "unicode"
status = 301
`, addr, fixture)
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCmd("check", "-config", file); code != 0 {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	startNode(t, nodeConfig{File: file})
	for _, c := range mdnAnswers {
		status, loc := rawAnswer(t, addr, "developer.example", c.target)
		want := 301
		if c.want == "" {
			want = 404
		}
		if status != want || loc != c.want {
			t.Errorf("GET %s: %d %q, want %d %q", c.target, status, loc, want, c.want)
		}
	}
}
