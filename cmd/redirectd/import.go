package main

import (
	"fmt"
	"io"
	"os"

	"github.com/BurntSushi/toml"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// importCmd converts a redirect list from another tool into a redirectd
// config, written to stdout (or -o FILE).
func importCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "nginx" {
		return importNginx(args[1:], stderr)
	}
	if len(args) > 0 && hostedLoaders[args[0]] != nil {
		return importHosted(args[0], args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "csv" {
		fmt.Fprintln(stderr, "usage: redirectd import csv [-o FILE] FILE\n       redirectd import nginx [-o DIR] FILE...\n"+
			"       redirectd import netlify [-geoip FILE] [-o FILE] _redirects|netlify.toml...\n       redirectd import vercel [-o FILE] vercel.json")
		return 2
	}
	fs, _ := newFlags("import csv", stderr)
	out := fs.String("o", "", "write the config to `file` instead of stdout")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "redirectd import csv: give one CSV file")
		return 2
	}
	name := fs.Arg(0)
	data, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
		return 1
	}
	rules, err := config.ReadCSV(name, data)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	// The rules must also compile together (duplicates, for one).
	if _, err := matcher.Compile(rules); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	fmt.Fprintf(w, "# Imported from %s by redirectd import csv.\n\n", name)
	if err := toml.NewEncoder(w).Encode(tomlRules(rules)); err != nil {
		fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
		return 1
	}
	var exact, prefix int
	for _, r := range rules {
		if r.Kind == matcher.Prefix {
			prefix++
		} else {
			exact++
		}
	}
	fmt.Fprintf(stderr, "%s: wrote %d rules (%d exact, %d prefix)\n", name, len(rules), exact, prefix)
	return 0
}

// ruleTable is one [[rule]] as import writes it.
type ruleTable struct {
	Match         string `toml:"match,omitempty"`
	From          string `toml:"from"`
	To            string `toml:"to"`
	Status        int    `toml:"status"`
	Host          string `toml:"host,omitempty"`
	TrailingSlash string `toml:"trailing_slash,omitempty"`
	QueryString   string `toml:"query_string,omitempty"`
}

func tomlRules(rules []matcher.Rule) any {
	out := struct {
		Rule []ruleTable `toml:"rule"`
	}{}
	for _, r := range rules {
		t := ruleTable{From: r.From, To: r.To, Status: r.Status, Host: r.Host}
		if r.Kind != matcher.Exact {
			t.Match = r.Kind.String()
		}
		if r.TrailingSlash {
			t.TrailingSlash = "ignore"
		}
		switch r.QueryString {
		case matcher.QueryDrop:
			t.QueryString = "drop"
		case matcher.QueryReplace:
			t.QueryString = "replace"
		}
		out.Rule = append(out.Rule, t)
	}
	return out
}
