// Command genrules writes the reference rule set as a redirectd config:
//
//	go run ./benchmarks/genrules -exact 10000 -prefix 1000 -regex 500 > rules.toml
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
	flag.Parse()
	if err := rules.WriteTOML(os.Stdout, s, *listen); err != nil {
		fmt.Fprintf(os.Stderr, "genrules: %v\n", err)
		os.Exit(1)
	}
}
