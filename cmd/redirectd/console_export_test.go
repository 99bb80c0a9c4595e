package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestConsoleCSVRoundTrip: the console's CSV export, read by the
// upload's own parser (config.StreamCSV), is the serving exact rules
// (its header row no rule, a host's path with a space or a non-ASCII
// letter as the rule writes it); uploaded into a draft and promoted, it
// leaves the rules as they were. An exact rule whose path holds '?' or
// '#' (which only path = "decoded" or request_uri allow) is no row, as
// a source holding them is refused: it is a "# left out" line.
func TestConsoleCSVRoundTrip(t *testing.T) {
	t.Parallel()
	n := startEditNodeWith(t, "\n[[rule]]\nhost = \"www.brand-a.com\"\nfrom = \"/a b\"\nto = \"/space\"\n"+
		"\n[[rule]]\nhost = \"www.brand-a.com\"\nfrom = \"/café\"\nto = \"/cafe\"\nstatus = 308\n"+
		"\n[[rule]]\nfrom = \"/with,comma\"\nto = \"/x?y=\\\"1\\\"\"\nstatus = 302\n"+
		"\n[[rule]]\nfrom = \"/gone\"\nstatus = 410\n"+
		"\n[[rule]]\nhost = \"www.brand-a.com\"\nfrom = \"/what?\"\nto = \"/faq\"\npath = \"decoded\"\n"+
		"\n[[rule]]\nfrom = \"/p?id=7\"\nto = \"/product-7\"\nrequest_uri = true\n")
	served := func() []string {
		t.Helper()
		var rules []struct {
			Kind, Host, From, To string
			Status               int
			Conditions           []string
		}
		n.json("root", "GET", "/rules", nil, http.StatusOK, &rules)
		var out []string
		for _, r := range rules {
			if r.Kind == "exact" && len(r.Conditions) == 0 && !strings.ContainsAny(r.From, "?#") {
				out = append(out, fmt.Sprintf("%s|%s|%s|%d", r.Host, r.From, r.To, r.Status))
			}
		}
		sort.Strings(out)
		return out
	}
	before := served()
	if len(before) != 8 {
		t.Fatalf("served exact rules: %q, want the config's 8", before)
	}
	u := consoleSignIn(t, n, "root")
	code, body := u.get("/ui/rules/export.csv")
	if code != http.StatusOK || !strings.HasPrefix(body, "source,target,status\n") {
		t.Fatalf("export.csv: %d %q", code, body)
	}
	for _, want := range []string{`# left out (a path holding '?' or '#'): "www.brand-a.com exact /what? -> /faq 301"`, `# left out (a path holding '?' or '#'): " exact /p?id=7 -> /product-7 301"`} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("the export lacks %s:\n%s", want, body)
		}
	}
	var read []string
	err := config.StreamCSV("export.csv", strings.NewReader(body), func(line int, rs []matcher.Rule) error {
		for _, r := range rs {
			read = append(read, fmt.Sprintf("%s|%s|%s|%d", r.Host, r.From, r.To, r.Status))
		}
		return nil
	})
	sort.Strings(read)
	if diff := cmp.Diff(before, read); err != nil || diff != "" {
		t.Errorf("the export read back as an upload reads it (%v; -served +read):\n%s\n%s", err, diff, body)
	}
	d := n.newDraft("root")
	if code, body := n.call("root", "POST", "/drafts/"+d.ID+"/upload", "text/csv", strings.NewReader(body)); code != http.StatusCreated {
		t.Fatalf("uploading the export: %d %s", code, body)
	}
	code, got := n.call("root", "POST", "/drafts/"+d.ID+"/promote", "application/json", strings.NewReader(`{"message":"the export again"}`))
	if code != http.StatusOK {
		t.Fatalf("promoting the export: %d %s", code, got)
	}
	if diff := cmp.Diff(before, served()); diff != "" {
		t.Errorf("the rules after promoting the export (-before +after):\n%s", diff)
	}
}
