package redirectd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxFuncLines bounds a function's body (the lines between its braces,
// comments and blank lines included): a function fits on a screen.
//
// A function may run longer when one piece reads better than several,
// for example a state machine, a switch that is a table, or a hot loop
// that splitting would slow down. It then says so at its top: its doc
// comment holds a sentence "It is long because ..." (any subject: "The
// loop is long because ..." too), or a paragraph beginning "Long
// because ...", followed by the reason. The reason is for the reader;
// the test only looks for the words.
const maxFuncLines = 80

// longBecause finds the stated reason in a doc comment.
var longBecause = regexp.MustCompile(`(?m)(^Long because\b|\bis long because\b)`)

// TestFunctionLength checks that no function in the module's non-test
// files runs over maxFuncLines without a reason stated at its top.
func TestFunctionLength(t *testing.T) {
	problems, err := longFunctions(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestFunctionLengthFinds checks the check itself on functions of both
// sizes, with and without a reason, and that test files, testdata and
// nested modules are left out.
func TestFunctionLengthFinds(t *testing.T) {
	long := func(doc, name string) string {
		return doc + "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines+1) + "}\n\n"
	}
	fits := "func fits() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines) + "}\n\n"
	a := "package a\n\n" + fits +
		long("", "bare") +
		long("// reasoned does a lot.\n//\n// Long because it is a state machine.\n", "reasoned") +
		long("// sentence does a lot. It is long because each state reads best in one place.\n", "sentence") +
		long("// vague is long.\n", "vague") +
		long("// notAtStart says long because only in passing.\n", "notAtStart") +
		"type T[P any] struct{}\n\n" + strings.Replace(long("", "m"), "func m", "func (*T[P]) m", 1)
	root := t.TempDir()
	for name, src := range map[string]string{
		"a/a.go":          a,
		"a/a_test.go":     "package a\n\n" + long("", "inTest"),
		"a/testdata/x.go": "package x\n\n" + long("", "inTestdata"),
		"nested/go.mod":   "module nested\n",
		"nested/n.go":     "package nested\n\n" + long("", "inNested"),
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := longFunctions(root)
	if err != nil {
		t.Fatal(err)
	}
	// at is where decl begins in a, as the test reports it.
	at := func(decl string) string {
		return "a/a.go:" + strconv.Itoa(strings.Count(a[:strings.Index(a, decl)], "\n")+1)
	}
	tail := " is 81 lines long, more than 80: split it, or begin a paragraph of its doc comment \"Long because\" and say why"
	want := []string{
		at("func bare") + ": bare" + tail,
		at("func vague") + ": vague" + tail,
		at("func notAtStart") + ": notAtStart" + tail,
		at("func (*T[P]) m") + ": T.m" + tail,
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// longFunctions walks the module at root (not into testdata, hidden
// folders or nested modules) and lists, as "file:line: problem", each
// function declared in a non-test file whose body runs over
// maxFuncLines without a reason in its doc comment. A function literal
// counts as part of the function that holds it.
func longFunctions(root string) ([]string, error) {
	var problems []string
	fset := token.NewFileSet()
	err := walkSources(root, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.Body.Rbrace).Line - fset.Position(fn.Body.Lbrace).Line - 1
			if lines <= maxFuncLines || longBecause.MatchString(fn.Doc.Text()) {
				continue
			}
			problems = append(problems, filepath.ToSlash(rel)+":"+strconv.Itoa(fset.Position(fn.Pos()).Line)+": "+
				funcName(fn)+" is "+strconv.Itoa(lines)+" lines long, more than "+strconv.Itoa(maxFuncLines)+
				`: split it, or begin a paragraph of its doc comment "Long because" and say why`)
		}
		return nil
	})
	sort.Strings(problems)
	return problems, err
}

// funcName names fn as a reader searches for it: "name", or
// "Type.name" for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
