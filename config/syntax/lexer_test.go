package syntax

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tokens reads src to the end or the first error, and writes each token
// as a string: words as w:TEXT (q:TEXT when quoted), with their line.
func tokens(src string) ([]string, error) {
	l := New(src)
	var out []string
	for {
		t, err := l.Next()
		if err != nil {
			return out, err
		}
		switch t.Kind {
		case EOF:
			return out, nil
		case Semicolon:
			out = append(out, ";")
		case Open:
			out = append(out, "{")
		case Close:
			out = append(out, "}")
		case Word:
			p := "w:"
			if t.Quoted {
				p = "q:"
			}
			out = append(out, p+t.Text)
		}
	}
}

// TestLexer checks nginx's reading of words. The rows marked (nginx) were
// checked against nginx 1.22 (`nginx -t`, and a map whose values a
// `return 200 "[$v]"` printed).
func TestLexer(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		err       string
	}{
		{"words", "a  b\tc;\n", []string{"w:a", "w:b", "w:c", ";"}, ""},
		{"block", "server { listen 80; }", []string{"w:server", "{", "w:listen", "w:80", ";", "}"}, ""},
		{"comment", "# x ; {\na; # y\n", []string{"w:a", ";"}, ""},
		{"# inside a word (nginx)", "/m4 a#b;", []string{"w:/m4", "w:a#b", ";"}, ""},
		{"} inside a word (nginx)", "/m8 a}b;", []string{"w:/m8", "w:a}b", ";"}, ""},
		{"{ ends a word (nginx)", "a{b", []string{"w:a", "{", "w:b"}, ""},
		{"${ keeps its brace (nginx)", "return 301 ${scheme}://x${uri}y;", []string{"w:return", "w:301", "w:${scheme}://x${uri}y", ";"}, ""},
		{"${ with a space (nginx)", "a${b c};", []string{"w:a${b", "w:c}", ";"}, ""},
		{"every { after $", "a${{b;", []string{"w:a${{b", ";"}, ""},
		{"\\t unquoted (nginx)", `/m1 a\tb;`, []string{"w:/m1", "w:a\tb", ";"}, ""},
		{"\\) quoted (nginx)", `/m2 "x\)y";`, []string{"w:/m2", `q:x\)y`, ";"}, ""},
		{"\\) unquoted (nginx)", `/m3 x\)y;`, []string{"w:/m3", `w:x\)y`, ";"}, ""},
		{"single quotes (nginx)", `/m7 'q\'q\\z\d';`, []string{"w:/m7", `q:q'q\z\d`, ";"}, ""},
		{"escaped space (nginx)", `/m9 a\ b;`, []string{"w:/m9", `w:a\ b`, ";"}, ""},
		{"escaped semicolon (nginx)", `/m10 a\;b;`, []string{"w:/m10", `w:a\;b`, ";"}, ""},
		{"empty quoted (nginx)", `/m6 "";`, []string{"w:/m6", "q:", ";"}, ""},
		{"all escapes", `"\"\'\\\t\r\n\d\." '\"'`, []string{"q:\"'\\\t\r\n\\d\\.", `q:"`}, ""},
		{"pairs from the left", `\\d \\\d`, []string{`w:\d`, `w:\\d`}, ""},
		{"regex map key", `"~^/GPT-3\).*$" "/gpt-3";`, []string{`q:~^/GPT-3\).*$`, "q:/gpt-3", ";"}, ""},
		{"quote inside a word", `a"b'c d`, []string{`w:a"b'c`, "w:d"}, ""},
		{"quoted semicolon and brace", `"a;b{c}" 'd e';`, []string{"q:a;b{c}", "q:d e", ";"}, ""},
		{"quote then )", `if ($a != "") {`, []string{"w:if", "w:($a", "w:!=", "q:", "w:)", "{"}, ""},
		{"quote then ;", `a "b";`, []string{"w:a", "q:b", ";"}, ""},
		{"multi-line quote", "a \"x\ny\";", []string{"w:a", "q:x\ny", ";"}, ""},
		{"backslash at start", `\~x y;`, []string{`w:\~x`, "w:y", ";"}, ""},
		{"quote then } (nginx)", `return 301 "a"};`, []string{"w:return", "w:301"}, `unexpected '}' after a quoted word`},
		{"quote then # (nginx)", `"a"#c`, nil, `unexpected '#' after a quoted word`},
		{"unclosed quote", "a\n'b;\n", []string{"w:a"}, "quoted word not closed: no ' after the one on this line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tokens(tt.src)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLexerLines(t *testing.T) {
	src := "a\n\"b\nc\" d\\\ne\n# x\n'f';\n\n"
	l := New(src)
	var got []int
	for {
		tok, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		if tok.Kind == EOF {
			got = append(got, tok.Line)
			break
		}
		got = append(got, tok.Line)
	}
	// a:1, "b\nc":2, d\<LF>e:3, 'f':6, ;:6, EOF:8.
	if diff := cmp.Diff([]int{1, 2, 3, 6, 6, 8}, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	_, err := tokens("a\n\"b\nc\"x")
	if e, ok := err.(*Error); !ok || e.Line != 3 || !strings.Contains(e.Msg, "opened on line 2") {
		t.Errorf("error after a multi-line quote: %#v", err)
	}
	_, err = tokens("a\n\n\"b\nc")
	if e, ok := err.(*Error); !ok || e.Line != 3 {
		t.Errorf("unclosed quote names the line it opens on: %#v", err)
	}
}

// TestWordsAlias checks that a word without a backslash costs nothing: it
// is a substring of the source.
func TestWordsAlias(t *testing.T) {
	src := "/a/b \"/c d\" '/e';\n"
	l := New(src)
	allocs := testing.AllocsPerRun(100, func() {
		*l = Lexer{src: src, line: 1}
		for {
			tok, _ := l.Next()
			if tok.Kind == EOF {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per read of words without escapes, want 0", allocs)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		``: ``, `abc`: `abc`, `\"`: `"`, `\'`: `'`, `\\`: `\`, `\t\r\n`: "\t\r\n",
		`\d\.\)\$`: `\d\.\)\$`, `\\\\`: `\\`, `a\`: `a\`, `\é`: `\é`,
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzLexer compares the Lexer with reference, a line-by-line port of
// nginx's ngx_conf_read_token.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{
		"a b;", `"~^/GPT-3\).*$" "/gpt-3";`, "x${a}{ y${{z}", "# c\n'a\\'b' \"c\\\"\";",
		`if ($a != "") { return 301 $a; }`, "a\\\nb \\", `"a"}`, "a#b }{;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got, err := tokens(src)
		want, bad := reference(src)
		if bad != (err != nil) {
			t.Fatalf("error %v, nginx's reader fails: %v", err, bad)
		}
		if err == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q (-nginx +lexer):\n%s", src, diff)
			}
		}
	})
}

// reference reads src as ngx_conf_read_token does (nginx 1.22), writing
// tokens as tokens does. Two differences, both outside this package's
// job: directives are not checked (';' with no words before it), and a
// word cut short by the end of the input is given, where nginx reports
// "unexpected end of file" (the parsers report a missing ';').
func reference(src string) (toks []string, failed bool) {
	lastSpace, needSpace, comment, quoted, variable := true, false, false, false, false
	sQuoted, dQuoted := false, false
	start := 0
	word := func(end int) {
		p := "w:"
		if sQuoted || dQuoted || needSpace {
			p = "q:"
		}
		toks = append(toks, p+referenceUnescape(src[start:end]))
	}
	for i := 0; i < len(src); i++ {
		ch := src[i]
		if comment {
			comment = ch != '\n'
			continue
		}
		if quoted {
			quoted = false
			continue
		}
		if needSpace {
			switch ch {
			case ' ', '\t', '\r', '\n':
				lastSpace, needSpace = true, false
				continue
			case ';', '{':
				toks = append(toks, string(ch))
				lastSpace, needSpace = true, false
				continue
			case ')':
				lastSpace, needSpace = true, false
			default:
				return toks, true
			}
		}
		if lastSpace {
			if ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' {
				continue
			}
			start = i
			switch ch {
			case ';', '{', '}':
				toks = append(toks, string(ch))
				continue
			case '#':
				comment = true
				continue
			case '\\':
				quoted = true
			case '"':
				start++
				dQuoted = true
			case '\'':
				start++
				sQuoted = true
			case '$':
				// nginx 1.22 keeps "${scheme}" whole at the start of a word.
				variable = true
			}
			lastSpace = false
			continue
		}
		if ch == '{' && variable {
			continue
		}
		variable = false
		if ch == '\\' {
			quoted = true
			continue
		}
		if ch == '$' {
			variable = true
			continue
		}
		found := false
		switch {
		case dQuoted:
			if ch == '"' {
				found, needSpace = true, true
			}
		case sQuoted:
			if ch == '\'' {
				found, needSpace = true, true
			}
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ';' || ch == '{':
			lastSpace, found = true, true
		}
		if found {
			word(i)
			sQuoted, dQuoted = false, false
			if ch == ';' || ch == '{' {
				toks = append(toks, string(ch))
			}
		}
	}
	if sQuoted || dQuoted {
		return toks, true
	}
	if !lastSpace && !needSpace {
		word(len(src))
	}
	return toks, false
}

// referenceUnescape is nginx's copy of a word, escape by escape.
func referenceUnescape(s string) string {
	var dst []byte
	for src := 0; src < len(s); {
		if s[src] == '\\' && src+1 < len(s) {
			switch s[src+1] {
			case '"', '\'', '\\':
				src++
			case 't':
				dst = append(dst, '\t')
				src += 2
				continue
			case 'r':
				dst = append(dst, '\r')
				src += 2
				continue
			case 'n':
				dst = append(dst, '\n')
				src += 2
				continue
			}
		}
		dst = append(dst, s[src])
		src++
	}
	return string(dst)
}

// pairTexts are sources that Pair reads, or leaves to Next, at the start.
var pairTexts = []string{
	"/a /b;", "\n\r\t /a\t/b \t;x", "/a /b", "/a /b\n;", "/a\n/b;", "/a;", "/a /b /c;",
	"\"/a\" /b;", "/a '/b';", "# c\n/a /b;", "/a$x /b;", "/a /${b};", "/a\\ b /c;",
	"/a}b /c#d;", "{ /a /b;", "} /a /b;", "/a {/b;", "/a /b{;", "", "  \n", ";",
	"/a /b;\n/c /d;", "~^/x$ /y;", "/a\x00 /b\xff;",
}

// TestPair checks Pair against Next on pairTexts (see FuzzPair).
func TestPair(t *testing.T) {
	for _, src := range pairTexts {
		checkPair(t, src)
	}
}

// FuzzPair holds Pair to what Next reads: when Pair takes an entry, Next
// reads the same two unquoted words on the same line and a ';', and ends
// at the same place; when it does not, the Lexer is where it was.
func FuzzPair(f *testing.F) {
	for _, src := range pairTexts {
		f.Add(src)
	}
	f.Fuzz(checkPair)
}

func checkPair(t *testing.T, src string) {
	l := New(src)
	a, b, line, ok := l.Pair()
	if !ok {
		if l.pos != 0 || l.line != 1 {
			t.Fatalf("%q: Pair failed but moved the Lexer to %d, line %d", src, l.pos, l.line)
		}
		return
	}
	n := New(src)
	var got []Token
	for range 3 {
		tok, err := n.Next()
		if err != nil {
			t.Fatalf("%q: Pair read %q %q, Next fails: %v", src, a, b, err)
		}
		got = append(got, tok)
	}
	want := []Token{{Kind: Word, Text: a, Line: line}, {Kind: Word, Text: b, Line: line}, {Kind: Semicolon, Line: line}}
	if diff := cmp.Diff(want, got); diff != "" || n.pos != l.pos || n.line != l.line {
		t.Fatalf("%q: Pair ended at %d line %d, Next at %d line %d; tokens (-Pair +Next):\n%s", src, l.pos, l.line, n.pos, n.line, diff)
	}
}
