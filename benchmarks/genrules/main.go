// Command genrules writes the reference rule set as a redirectd config, or
// the sitemap corpus as the site's nginx map file:
//
//	go run ./benchmarks/genrules -exact 10000 -prefix 1000 -regex 500 > rules.toml
//	go run ./benchmarks/genrules -sitemap 40000 > move.conf
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

func main() {
	s := rules.Reference
	flag.IntVar(&s.Exact, "exact", s.Exact, "number of exact rules")
	flag.IntVar(&s.Prefix, "prefix", s.Prefix, "number of prefix rules")
	flag.IntVar(&s.Regex, "regex", s.Regex, "number of regex rules")
	listen := flag.String("listen", "127.0.0.1:8080", "traffic address written into [server]")
	sitemap := flag.Int("sitemap", 0, "write this many keys of the sitemap corpus as an nginx map file (served by redirectd as [[map]] file = ..., status = 301) instead")
	flag.Parse()
	var err error
	if *sitemap > 0 {
		err = rules.WriteSitemapMap(os.Stdout, *sitemap)
	} else {
		err = rules.WriteTOML(os.Stdout, s, *listen)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "genrules: %v\n", err)
		os.Exit(1)
	}
}
