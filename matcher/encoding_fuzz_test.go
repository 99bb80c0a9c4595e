package matcher

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
)

// FuzzEncodeTarget checks that an encoded path target is a URI reference
// net/url reads, holds no byte a URI never holds, keeps what it had
// right, and decodes back to the target when that had no escape.
func FuzzEncodeTarget(f *testing.F) {
	for _, s := range []string{"/a b", "/café", "/%41%zz%", "/<embed>", "/x?q={a}#f", "/a\\b", "/^`|\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return
		}
		s = "/" + s
		if strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/\\") {
			return // names a host: its authority is kept as written
		}
		e := EncodeTarget(s)
		for i := 0; i < len(e); i++ {
			if escapeInTarget(e[i]) || e[i] == '%' && !validEscape(e, i) {
				t.Fatalf("EncodeTarget(%q) = %q holds %q at %d", s, e, e[i], i)
			}
		}
		if !NeedsEncoding(s) && e != s {
			t.Fatalf("EncodeTarget(%q) = %q, changed a valid target", s, e)
		}
		if EncodeTarget(e) != e {
			t.Fatalf("EncodeTarget is not idempotent on %q: %q then %q", s, e, EncodeTarget(e))
		}
		u, err := url.Parse(e)
		if err != nil {
			t.Fatalf("EncodeTarget(%q) = %q, which net/url refuses: %v", s, e, err)
		}
		if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '?') < 0 && strings.IndexByte(s, '#') < 0 {
			if u.Path != s {
				t.Fatalf("EncodeTarget(%q) = %q decodes to %q", s, e, u.Path)
			}
		}
	})
}

// FuzzDecodePath checks decodePath's invariants: no doubled slash and no
// dot segment in what it returns, a path already decoded unchanged, and
// appendEscapedPath's inverse: encoding the decoded path and decoding it
// again gives it back, so a $uri Location names the path matched.
func FuzzDecodePath(f *testing.F) {
	for _, s := range []string{"/a%2F..%2Fb", "/a//b/./c/..", "/%25%3F%23", "/caf%c3%a9", "/%zz", "/..", "/a/b/."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			return
		}
		p := []byte("/" + s)
		d := bytes.Clone(decodePath(nil, p))
		if bytes.Contains(d, []byte("//")) {
			t.Fatalf("decodePath(%q) = %q holds //", p, d)
		}
		for _, seg := range bytes.Split(d, []byte("/")) {
			if string(seg) == "." || string(seg) == ".." {
				t.Fatalf("decodePath(%q) = %q holds a dot segment", p, d)
			}
		}
		e := appendEscapedPath(nil, d)
		if back := decodePath(nil, e); !bytes.Equal(back, d) {
			t.Fatalf("decodePath(%q) = %q, escaped %q, decoded again %q", p, d, e, back)
		}
		if u, err := url.Parse(string(e)); err != nil || u.Path != string(d) {
			t.Fatalf("escaped %q of %q: net/url reads %v, %v", e, d, u, err)
		}
	})
}

// FuzzDecodedLookup checks that an exact rule with DecodedPath is found
// by every request whose decoded path is its From, however the request
// spells it (as sent, and escaped again), and one that also folds case
// (UnicodeFold) by the lower-cased spelling.
func FuzzDecodedLookup(f *testing.F) {
	for _, s := range []string{"/docs/HTML%3AElement%3Asmall", "/Glossary/B%C3%89ZIER_CURVE", "/faq%3F", "/a%23b//c/.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 256 {
			return
		}
		p := []byte("/" + s)
		d := string(decodePath(nil, p))
		if strings.ContainsFunc(d, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return
		}
		// From is decoded too: written escaped, it names d itself.
		from := string(appendEscapedPath(nil, []byte(d)))
		set, err := Compile([]Rule{
			{Kind: Exact, From: from, To: "/plain", Status: 301, DecodedPath: true},
			{Kind: Exact, From: strings.ToUpper(from), To: "/folded", Status: 301, DecodedPath: true, CaseInsensitive: true, UnicodeFold: true},
		})
		if err != nil {
			if strings.Contains(err.Error(), "duplicate") {
				return
			}
			t.Fatalf("%q: %v", d, err)
		}
		var m Match
		for _, req := range [][]byte{p, appendEscapedPath(nil, []byte(d))} {
			if !set.Lookup(nil, req, nil, &m) {
				t.Fatalf("%q (decoded %q) finds no rule", req, d)
			}
			if got := string(m.AppendLocation(nil, nil)); got != "/plain" && got != "/folded" {
				t.Fatalf("%q: Location %q", req, got)
			}
		}
		lower := appendEscapedPath(nil, []byte(strings.ToLower(d)))
		if set.Lookup(nil, lower, nil, &m) && string(m.AppendLocation(nil, nil)) == "/plain" && strings.ToLower(d) != d {
			t.Fatalf("%q: found the case-sensitive rule of %q", lower, d)
		}
	})
}
