// Package redirectd_test checks the documentation as a whole: the top
// README stays a short entry point, and every relative link of every
// README.md leads to a file and heading that exist, so that text moved
// between references cannot leave a reader at a dead end.
package redirectd_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines bounds the top README: what redirectd is, how to try
// it, the commands, a migration walk-through and links. The references
// beside the code hold the rest.
const maxReadmeLines = 400

func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to the reference beside the code it describes and link to it", n, maxReadmeLines)
	}
}

var (
	fence   = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$")
	code    = regexp.MustCompile("`[^`\\n]*`")
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+)$`)
)

// prose returns doc without its fenced blocks and code spans, where
// brackets and parentheses are not links.
func prose(doc string) string {
	return code.ReplaceAllString(fence.ReplaceAllString(doc, ""), "")
}

// anchors returns the heading anchors GitHub gives doc: the heading's
// text in lower case, without punctuation but '-' and '_', spaces as
// '-', a repeated one numbered.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, h := range heading.FindAllStringSubmatch(fence.ReplaceAllString(doc, ""), -1) {
		text := strings.TrimSpace(h[1])
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}

// TestReadmeLinks follows every relative link of every README.md in the
// repository: the file must exist, and a #heading must be one of its
// headings.
func TestReadmeLinks(t *testing.T) {
	var readmes []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "README.md" {
			readmes = append(readmes, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(readmes) < 5 {
		t.Fatalf("found only %d README.md files: %v", len(readmes), readmes)
	}
	docs := map[string]string{}
	read := func(path string) (string, bool) {
		if d, ok := docs[path]; ok {
			return d, true
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", false
		}
		docs[path] = string(b)
		return docs[path], true
	}
	for _, readme := range readmes {
		doc, _ := read(readme)
		for _, m := range link.FindAllStringSubmatch(prose(doc), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := readme
			if file != "" {
				path = filepath.Join(filepath.Dir(readme), file)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %q: %s does not exist", readme, target, path)
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(path, ".md") {
				t.Errorf("%s: link %q: an anchor into %s, which is not a markdown file", readme, target, path)
				continue
			}
			d, _ := read(path)
			if !anchors(d)[anchor] {
				t.Errorf("%s: link %q: %s has no heading whose anchor is #%s", readme, target, path, anchor)
			}
		}
	}
}
