package redirectd_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPackageDocs checks that every package says what its one job is:
// a library package opens with "// Package name ...", a command with
// "// Command name ..." (the form go doc shows for a main package).
func TestPackageDocs(t *testing.T) {
	problems, err := packageDocProblems(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestPackageDocsFinds checks the check itself on a tree of packages
// with and without doc comments.
func TestPackageDocsFinds(t *testing.T) {
	root := t.TempDir()
	for name, src := range map[string]string{
		"good/a.go":          "// Package good does one thing.\npackage good\n",
		"good/b.go":          "package good\n",
		"missing/a.go":       "package missing\n",
		"missing/a_test.go":  "// Package missing is documented only in a test.\npackage missing\n",
		"wrong/a.go":         "// Wrong does things.\npackage wrong\n",
		"cmd/tool/main.go":   "// Command tool runs.\npackage main\n",
		"cmd/bare/main.go":   "package main\n",
		"cmd/odd/main.go":    "// Package main is a command.\npackage main\n",
		"testonly/x_test.go": "package testonly\n",
		"good/testdata/x.go": "package nodoc\n",
		"nested/go.mod":      "module nested\n",
		"nested/n.go":        "package nested\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := packageDocProblems(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`cmd/bare: package main has no doc comment; write "// Command bare ..."`,
		`cmd/odd: package main's doc comment must begin "Command odd "`,
		`missing: package missing has no doc comment; write "// Package missing ..."`,
		`wrong: package wrong's doc comment must begin "Package wrong "`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// packageDocProblems walks the module at root (not into testdata, hidden
// folders or nested modules) and lists each package, by folder, whose
// non-test files carry no proper doc comment.
func packageDocProblems(root string) ([]string, error) {
	type pkg struct {
		name string
		docs []string
	}
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err := walkSources(root, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		p := pkgs[rel]
		if p == nil {
			p = &pkg{name: f.Name.Name}
			pkgs[rel] = p
		}
		if f.Doc != nil {
			p.docs = append(p.docs, f.Doc.Text())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var problems []string
	for dir, p := range pkgs {
		word, name := "Package", p.name
		if p.name == "main" {
			word, name = "Command", filepath.Base(dir)
		}
		prefix := word + " " + name + " "
		switch {
		case len(p.docs) == 0:
			problems = append(problems, dir+": package "+p.name+` has no doc comment; write "// `+prefix+`..."`)
		case !strings.HasPrefix(p.docs[0], prefix):
			problems = append(problems, dir+": package "+p.name+`'s doc comment must begin "`+prefix+`"`)
		}
	}
	sort.Strings(problems)
	return problems, nil
}
