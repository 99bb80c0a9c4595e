package rules

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// The sitemap corpus is shaped like a real site's hand-written nginx
// redirect map: about 40,000 regex keys, declared as
//
//	map $request_uri $new_uri { include move.conf; }
//
// and used as
//
//	if ($new_uri != "") { rewrite ^(.*)$ $new_uri permanent; }
//
// Its entries are written the way people write them, dots unescaped:
//
//	"~^/Definition.hs$" "/static/build/Definition.hs";
//	"~^/docs/iq/2015-strenze.pdf.*$" "/doc/iq/2015-strenze.pdf";
//	"~^/GPT-3\).*$" "/gpt-3";
//
// Entry i is the same in every corpus of more than i entries, so a corpus
// of any size is a prefix of a bigger one. Every entry's Path is answered
// by that entry and by no earlier one (each generated key holds a
// fixed-width number of its own), and SitemapMiss matches no key; the
// tests check both with package regexp.

// SitemapSize is the corpus size of the benchmarks: the real map had about
// 42,000 keys.
const SitemapSize = 40000

// SitemapMiss is a path no key of the corpus matches; SitemapMissN gives
// as many distinct ones as needed.
const SitemapMiss = "/nothing/matches/this-path"

// SitemapMissN is the n-th of a family of paths no key matches.
func SitemapMissN(n int) string { return fmt.Sprintf("/nothing/%d/matches", n) }

// SitemapShape names the form of an entry's key.
type SitemapShape string

// The shapes, with their share of the corpus. The shares are exact in
// every block of 100 entries (entries 100b to 100b+99 hold one shuffled
// deck of 100 shapes).
const (
	ShapeDotStar   SitemapShape = "dotstar"    // 30 %: ^lit.*$, a moved file and whatever a broken link added
	ShapeExact     SitemapShape = "exact"      // 18 %: ^lit$
	ShapeSlashOpt  SitemapShape = "slash-opt"  // 12 %: ^lit/?$
	ShapePrefix    SitemapShape = "prefix"     // 14 %: ^lit, a moved folder (lit ends in /)
	ShapeWildcard  SitemapShape = "wildcard"   // 6 %: ^lit$ with a . standing for one byte (gwern.net, gwern-net)
	ShapeCIExact   SitemapShape = "ci-exact"   // 4 %: ~* ^lit$
	ShapeCIDotStar SitemapShape = "ci-dotstar" // 2 %: ~* ^lit.*$
	ShapeCapture   SitemapShape = "capture"    // 5 %: ^lit/(.*)$ -> /new/$1
	ShapeGroup     SitemapShape = "group"      // 6 %: ^lit(\.html|\.php)?$, a real regex with a literal prefix
	ShapeSlashOnly SitemapShape = "slash-only" // 3 %: no literal prefix but /: ^/.*/x\.html$, ^/[0-9]+-x$, ^/(?:wiki|w)/x$
)

// sitemapDeck is the shapes of one block of 100 entries, before shuffling.
var sitemapDeck = func() []SitemapShape {
	var d []SitemapShape
	for _, s := range []struct {
		shape SitemapShape
		n     int
	}{
		{ShapeDotStar, 30}, {ShapeExact, 18}, {ShapeSlashOpt, 12}, {ShapePrefix, 14}, {ShapeWildcard, 6},
		{ShapeCIExact, 4}, {ShapeCIDotStar, 2}, {ShapeCapture, 5}, {ShapeGroup, 6}, {ShapeSlashOnly, 3},
	} {
		for range s.n {
			d = append(d, s.shape)
		}
	}
	if len(d) != 100 {
		panic("sitemap shapes do not add up to 100 %")
	}
	return d
}()

// SitemapEntry is one entry of the corpus.
type SitemapEntry struct {
	// Key is the map key as nginx reads it: ~ (or ~* to ignore case), then
	// the regex.
	Key string
	// Target is the map value: a path or an absolute URL; $1 is the key's
	// first group.
	Target string
	// Path is a request path this entry answers, and no earlier one.
	Path string
	// Location is what Path is redirected to: Target with $1 filled in.
	Location string
	Shape    SitemapShape
}

// Regex is the key as Go's regexp (and redirectd's [[map]] reader) reads
// it: without the ~, and with (?i) for ~*.
func (e SitemapEntry) Regex() string {
	if rest, ok := strings.CutPrefix(e.Key, "~*"); ok {
		return "(?i)" + rest
	}
	return strings.TrimPrefix(e.Key, "~")
}

// The first entries are the issue's own examples (the second moved from
// docs/ to doc/, so that its target is not also its key's match).
var sitemapFixed = []SitemapEntry{
	{Key: `~^/Definition.hs$`, Target: "/static/build/Definition.hs", Path: "/Definition.hs", Location: "/static/build/Definition.hs", Shape: ShapeExact},
	{Key: `~^/docs/iq/2015-strenze.pdf.*$`, Target: "/doc/iq/2015-strenze.pdf", Path: "/docs/iq/2015-strenze.pdf", Location: "/doc/iq/2015-strenze.pdf", Shape: ShapeDotStar},
	{Key: `~^/GPT-3\).*$`, Target: "/gpt-3", Path: "/GPT-3)", Location: "/gpt-3", Shape: ShapeDotStar},
}

// Old folders (keys) and new ones (targets): no key matches a target, so
// the corpus has no chains or loops.
var (
	sitemapOldDirs = []string{"docs/ai", "docs/ai/nn/transformer/gpt", "docs/ai/scaling", "docs/iq", "docs/iq/high",
		"docs/psychology", "docs/psychology/cognitive-bias", "docs/genetics/heritable", "docs/genetics/selection",
		"docs/statistics/bayes", "docs/statistics/decision", "docs/sociology", "docs/economics", "docs/cs/haskell",
		"docs/darknet-markets", "docs/anime", "docs/japanese/poetry", "docs/longevity", "docs/melatonin", "docs/nootropics",
		"essays", "blog", "newsletter/2019/04", "newsletter/2020/11", "images", "notes", "reviews", "fiction"}
	sitemapNewDirs = []string{"doc/ai", "doc/ai/nn/transformer/gpt/3", "doc/ai/scaling", "doc/iq", "doc/psychology",
		"doc/genetics/heritable", "doc/statistics/bayes", "doc/economics", "doc/cs/haskell", "doc/anime",
		"essay", "note", "review", "story", "static/img", "newsletter"}
	sitemapWords = []string{"smith", "jones", "brown", "chen", "wang", "garcia", "mueller", "tanaka", "sato", "kim",
		"nguyen", "ivanov", "rossi", "dubois", "silva", "cohen", "murray", "deary", "plomin", "visscher",
		"gpt-2", "scaling-laws", "iq-and-income", "melatonin-trial", "dual-n-back", "spaced-repetition",
		"catnip", "modafinil", "lsd-microdosing", "death-note", "evangelion", "haskell-notes", "bitcoin",
		"silk-road", "longevity-review", "embryo-selection", "twin-study", "meta-analysis", "replication"}
	sitemapExts = []string{".pdf", ".pdf", ".pdf", ".html", ".html", ".hs", ".page", "", "", ".jpg", ".png", ".txt"}
	sitemapRest = []string{"index", "2019/notes.html", "a/b/c", "chapter-3.pdf", "page/2"}
)

// SitemapEntryAt returns entry i of the corpus.
func SitemapEntryAt(i int) SitemapEntry { return sitemapEntry(i, sitemapBlock(i / 100)[i%100]) }

// sitemapEntry is entry i, of the given shape.
func sitemapEntry(i int, shape SitemapShape) SitemapEntry {
	if i < len(sitemapFixed) {
		return sitemapFixed[i]
	}
	if i >= 1_000_000 {
		panic("rules: the sitemap corpus has at most 1,000,000 entries (6-digit numbers)")
	}
	r := rand.New(rand.NewPCG(0x5173_4d41_50, uint64(i)))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	num := fmt.Sprintf("%06d", i) // fixed width: no key's literal is a prefix of another entry's path
	year := fmt.Sprint(1990 + r.IntN(36))
	word := pick(sitemapWords)
	ext := pick(sitemapExts)
	dir := pick(sitemapOldDirs)
	stem := "/" + dir + "/" + year + "-" + word + "-" + num // literal, no regex metacharacter
	newStem := "/" + pick(sitemapNewDirs) + "/" + year + "-" + word + "-" + num
	if r.IntN(100) < 8 {
		newStem = "https://www.example.org" + newStem
	}
	// A literal of the stem and ext: the dots of ext are left unescaped (a
	// wildcard, as people write them) but for one entry in six; one in
	// twenty ends in the ) that a Markdown link left behind, escaped.
	lit, path := stem+ext, stem+ext
	if r.IntN(6) == 0 {
		lit = stem + strings.ReplaceAll(ext, ".", `\.`)
	}
	paren := r.IntN(20) == 0
	e := SitemapEntry{Shape: shape, Target: newStem + ext}
	switch e.Shape {
	case ShapeDotStar, ShapeExact, ShapeCIExact, ShapeCIDotStar:
		if paren {
			lit, path = lit+`\)`, path+")"
		}
		tilde, end := "~", "$"
		if e.Shape == ShapeCIExact || e.Shape == ShapeCIDotStar {
			tilde, path = "~*", mixCase(path, r)
		}
		if e.Shape == ShapeDotStar || e.Shape == ShapeCIDotStar {
			end = ".*$"
			path += []string{"", "", "/", "-1", ".bak", "/index"}[r.IntN(6)]
		}
		e.Key = tilde + "^" + lit + end
	case ShapeSlashOpt:
		e.Key, path, e.Target = "~^"+stem+"/?$", stem+[]string{"", "/"}[r.IntN(2)], newStem
	case ShapePrefix:
		e.Key, path, e.Target = "~^"+stem+"/", stem+"/"+pick(sitemapRest), newStem+"/"
	case ShapeWildcard:
		// A . where links came in with -, _ or . (gwern.net, gwern-net).
		e.Key = "~^/" + dir + "/" + year + "." + strings.ReplaceAll(word, "-", ".") + "-" + num + "$"
		sep := []string{"-", "_", "."}[r.IntN(3)]
		path = "/" + dir + "/" + year + sep + strings.ReplaceAll(word, "-", sep) + "-" + num
	case ShapeCapture:
		e.Key, e.Target = "~^"+stem+"/(.*)$", newStem+"/$1"
		rest := pick(sitemapRest)
		path, e.Location = stem+"/"+rest, newStem+"/"+rest
	case ShapeGroup:
		e.Key, e.Target = "~^"+stem+`(\.html|\.php)?$`, newStem
		path = stem + []string{"", ".html", ".php"}[r.IntN(3)]
	case ShapeSlashOnly:
		tail := word + "-" + num
		e.Target = "/doc/" + tail // never ends in .html: no key matches it
		switch r.IntN(3) {
		case 0:
			e.Key, path = `~^/.*/`+tail+`\.html$`, "/"+dir+"/"+tail+".html"
		case 1:
			e.Key, path = "~^/[0-9]+-"+tail+"$", "/"+year+"-"+tail
		default:
			e.Key, path = "~^/(?:wiki|w)/"+tail+"$", "/"+[]string{"wiki", "w"}[r.IntN(2)]+"/"+tail
		}
	}
	e.Path = path
	if e.Location == "" {
		e.Location = e.Target
	}
	return e
}

// sitemapBlock is the shapes of entries 100b to 100b+99: the deck,
// shuffled for that block.
func sitemapBlock(b int) []SitemapShape {
	d := slices.Clone(sitemapDeck)
	rand.New(rand.NewPCG(0xdec4, uint64(b))).Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
	return d
}

// mixCase upper-cases about half of path's letters, for ~* keys.
func mixCase(path string, r *rand.Rand) string {
	b := []byte(path)
	for i, c := range b {
		if c >= 'a' && c <= 'z' && r.IntN(2) == 0 {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// Sitemap returns the first n entries of the corpus, in file order.
func Sitemap(n int) []SitemapEntry {
	out := make([]SitemapEntry, n)
	var block []SitemapShape
	for i := range out {
		if i%100 == 0 {
			block = sitemapBlock(i / 100)
		}
		out[i] = sitemapEntry(i, block[i%100])
	}
	return out
}

// SitemapFirst is entry 0 (`~^/Definition.hs$`): a hit on the first key,
// which nginx answers after one regex.
func SitemapFirst() SitemapEntry { return SitemapEntryAt(0) }

// SitemapLast is a hit near the end of a corpus of n entries: the last
// entry of the commonest shape, ^lit.*$. nginx tries every key before it.
func SitemapLast(n int) SitemapEntry {
	for i := n - 1; i > 0; i-- {
		if sitemapBlock(i / 100)[i%100] == ShapeDotStar {
			return SitemapEntryAt(i)
		}
	}
	return SitemapEntryAt(0)
}

// SitemapRules is the first n entries as the rules redirectd compiles from
// the map file (regex rules, 301, in file order), for the matcher's
// benchmarks.
func SitemapRules(n int) []matcher.Rule {
	out := make([]matcher.Rule, n)
	for i, e := range Sitemap(n) {
		out[i] = matcher.Rule{Kind: matcher.Regex, From: e.Regex(), To: e.Target, Status: 301, File: "sitemap.map", Line: i + 1}
	}
	return out
}

// WriteSitemapMap writes the first n entries as the site writes its
// included map file, one `"key" "value";` a line. Inside nginx's quotes a
// backslash is kept but before ", ', \, t, r and n, so `\)` and `\.` reach
// the regex as written; no key holds any of those six.
func WriteSitemapMap(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for _, e := range Sitemap(n) {
		bw.WriteString(`"` + e.Key + `" "` + e.Target + "\";\n")
	}
	return bw.Flush()
}

// WriteSitemapConfig writes a redirectd config listening on listen that
// serves mapFile (as WriteSitemapMap writes it) as one [[map]]: every key
// is a regex (~), tried in file order, first match wins, as in nginx.
func WriteSitemapConfig(w io.Writer, listen, mapFile string) error {
	_, err := fmt.Fprintf(w, "[server]\nlisten = %q\n\n[admin]\nlisten = \"off\"\n\n[access_log]\nenabled = false\n\n[[map]]\nfile = %q\nstatus = 301\n", listen, mapFile)
	return err
}
