package matcher_test

import (
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/redirectd/redirectd/matcher"
)

// weightRE is the weight grammar both parsers read alike (RFC 9110
// section 12.4.2); x/text also takes any float ("q=1e-1", "q=7").
var weightRE = regexp.MustCompile(`^\s*q=(0(\.[0-9]{0,3})?|1(\.0{0,3})?)\s*$`)

// rangeRE is RFC 4647's language-range without "*": x/text also reads a
// malformed tag leniently, dropping what it cannot read ("aa-t-00-0a-" is
// aa-t-00 to it), where this parser skips the element.
var rangeRE = regexp.MustCompile(`^\s*([A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*)?\s*$`)

// FuzzPreferredLanguageXText compares the in-place parser's top
// preference with golang.org/x/text/language.ParseAcceptLanguage's first
// tag (it sorts by weight, stably), on the headers both read alike: x/text
// accepts them, every weight is in RFC 9110's grammar, and no tag is "*"
// (which x/text refuses and this parser skips as a preference), and no
// '_' (x/text takes "de_AT" as "de-AT"; RFC 9110 tags use '-' only, so
// this parser skips such an element), every tag an RFC 4647 range, and
// only printable ASCII and tabs,
// what a field value holds (x/text trims any Unicode space).
func FuzzPreferredLanguageXText(f *testing.F) {
	for _, s := range []string{"de", "en-US,en;q=0.9,de;q=0.8", "fr;q=0.5, de-CH;q=0.7", "de;q=0.5, fr;q=0.5",
		"de;q=0, fr;q=0.001", "sr-Latn-RS, en;q=0.2", "zh-Hant-TW;q=1.0, en;q=0.9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tags, _, err := language.ParseAcceptLanguage(s)
		if err != nil || strings.Contains(s, "_") || strings.ContainsFunc(s, func(r rune) bool { return r != '\t' && (r < ' ' || r > '~') }) {
			return
		}
		for _, elem := range strings.Split(s, ",") {
			tag, w, hasW := strings.Cut(elem, ";")
			if strings.TrimSpace(tag) == "*" || !rangeRE.MatchString(tag) || hasW && !weightRE.MatchString(w) {
				return
			}
		}
		got, ok := matcher.PreferredLanguage([]byte(s))
		if len(tags) == 0 {
			if ok {
				t.Fatalf("%q: got %q, x/text has no tag with weight", s, got)
			}
			return
		}
		if !ok {
			t.Fatalf("%q: no preference, x/text has %v", s, tags)
		}
		mine, err := language.Parse(string(got))
		if err != nil {
			t.Fatalf("%q: top tag %q is not a tag to x/text: %v", s, got, err)
		}
		if mine != tags[0] {
			t.Fatalf("%q: top tag %q (%v), x/text's %v", s, got, mine, tags[0])
		}
	})
}
