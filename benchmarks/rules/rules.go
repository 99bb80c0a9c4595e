// Package rules generates the reference rule set that redirectd's
// benchmarks (and those of the servers it is compared with) run on:
//
//	exact  /exact/N                -> 301 https://example.com/new/N
//	prefix /prefix/N/              -> 302 https://example.com/p/N/ + rest of path
//	regex  ^/regex/N/(\d+)/(.*)$   -> 308 https://example.com/r/N/$1/$2
//
// The reference sizes are 10,000 exact, 1,000 prefix and 500 regex rules.
package rules

import (
	"bufio"
	"fmt"
	"io"

	"github.com/redirectd/redirectd/matcher"
)

// Spec says how many rules of each kind to generate.
type Spec struct {
	Exact, Prefix, Regex int
}

// Reference is the rule set of the benchmarks.
var Reference = Spec{Exact: 10000, Prefix: 1000, Regex: 500}

// Rules returns the rules of s, exact first, then prefix, then regex, as a
// config file would list them.
func Rules(s Spec) []matcher.Rule {
	out := make([]matcher.Rule, 0, s.Exact+s.Prefix+s.Regex)
	for i := 0; i < s.Exact; i++ {
		out = append(out, matcher.Rule{Kind: matcher.Exact, From: fmt.Sprintf("/exact/%d", i),
			To: fmt.Sprintf("https://example.com/new/%d", i), Status: 301})
	}
	for i := 0; i < s.Prefix; i++ {
		out = append(out, matcher.Rule{Kind: matcher.Prefix, From: fmt.Sprintf("/prefix/%d/", i),
			To: fmt.Sprintf("https://example.com/p/%d/", i), Status: 302})
	}
	for i := 0; i < s.Regex; i++ {
		out = append(out, matcher.Rule{Kind: matcher.Regex, From: fmt.Sprintf(`^/regex/%d/(\d+)/(.*)$`, i),
			To: fmt.Sprintf("https://example.com/r/%d/$1/$2", i), Status: 308})
	}
	for i := range out {
		out[i].File, out[i].Line = "generated", i+1
	}
	return out
}

// WriteTOML writes s as a redirectd config listening on listen, one
// [[rule]] table per rule.
func WriteTOML(w io.Writer, s Spec, listen string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Reference rule set: %d exact, %d prefix, %d regex rules.\n\n[server]\nlisten = %q\n\n[admin]\nlisten = \"off\"\n",
		s.Exact, s.Prefix, s.Regex, listen)
	for _, r := range Rules(s) {
		fmt.Fprintf(bw, "\n[[rule]]\nmatch = %q\nfrom = '%s'\nto = %q\nstatus = %d\n", r.Kind, r.From, r.To, r.Status)
	}
	return bw.Flush()
}

// Sample paths of the benchmark scenarios, with what they must answer.
const (
	ExactHit  = "/exact/9999"
	PrefixHit = "/prefix/999/a/b"
	LastRegex = "/regex/499/123/abc"
	Miss      = "/nothing/here"
)

// BrowserRequest is a GET of ExactHit with about 650 bytes of the headers a
// browser sends: user agent, Accept, Accept-Language, Referer, cookies.
const BrowserRequest = "GET " + ExactHit + " HTTP/1.1\r\n" +
	"Host: www.example.com\r\n" +
	"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36\r\n" +
	"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8\r\n" +
	"Accept-Language: en-GB,en-US;q=0.9,en;q=0.8,de;q=0.7\r\n" +
	"Accept-Encoding: gzip, deflate, br, zstd\r\n" +
	"Referer: https://www.example.com/blog/2024/05/a-long-article-title-about-redirects\r\n" +
	"Cookie: _ga=GA1.2.1234567890.1700000000; _gid=GA1.2.987654321.1700000000; session=4f9c2d1e8b7a6f5e4d3c2b1a0f9e8d7c; theme=dark; consent=analytics%3Dtrue%26ads%3Dfalse\r\n" +
	"Upgrade-Insecure-Requests: 1\r\n" +
	"Sec-Fetch-Dest: document\r\n" +
	"Sec-Fetch-Mode: navigate\r\n" +
	"Connection: keep-alive\r\n" +
	"\r\n"

// MapKey and MapTarget are the from and to of entry i of WriteMap's file.
// The shapes are those of a migrated site: a section folder and an .html
// page name becoming a new URL, about 30 and 45 bytes.
func MapKey(i int) string { return fmt.Sprintf("/old/section-%d/page-%d.html", i%100, i) }

// MapTarget is the to of entry i; see MapKey.
func MapTarget(i int) string {
	return fmt.Sprintf("https://www.example.com/new/section-%d/page-%d", i%100, i)
}

// WriteMap writes an nginx-style map file of n exact entries, MapKey(i)
// to MapTarget(i), for the scale benchmarks (100k to 10M rules).
func WriteMap(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for i := range n {
		fmt.Fprintf(bw, "%s %s;\n", MapKey(i), MapTarget(i))
	}
	return bw.Flush()
}

// WriteMapConfig writes a config listening on listen that serves the map
// file mapFile (as WriteMap writes it) as exact 301 rules for any host.
func WriteMapConfig(w io.Writer, listen, mapFile string) error {
	_, err := fmt.Fprintf(w, "[server]\nlisten = %q\n\n[admin]\nlisten = \"off\"\n\n[access_log]\nenabled = false\n\n[[map]]\nfile = %q\n", listen, mapFile)
	return err
}
