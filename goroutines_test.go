package redirectd_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGoroutinesRecover: every goroutine the server starts recovers a
// panic on it, so that no input (a client's bytes, an upstream's or a
// Redis server's reply) can end the process with every connection on it:
// each go statement starts a function whose leading defers include a
// recover (safego.Recover, or the engine's recoverConn and kin), or is
// safego.Go. Test helpers and the benchmark programs are not the server
// and are left out.
func TestGoroutinesRecover(t *testing.T) {
	byDir := map[string][]string{}
	err := walkSources(".", func(path string) error {
		dir := filepath.Dir(path)
		if strings.HasPrefix(dir, "benchmarks") || strings.HasPrefix(dir, filepath.Join("internal", "testutil")) || strings.HasPrefix(dir, filepath.Join("internal", "browsertest")) {
			return nil
		}
		byDir[dir] = append(byDir[dir], path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, files := range byDir {
		bad = append(bad, unrecoveredGoroutines(t, files)...)
	}
	slices.Sort(bad)
	for _, b := range bad {
		t.Errorf("%s: a goroutine that does not recover a panic: make its first statement `defer safego.Recover(name)`, or start it with safego.Go", b)
	}
}

// unrecoveredGoroutines returns the place of each go statement in one
// package's files that starts a function without a deferred recover.
func unrecoveredGoroutines(t *testing.T, files []string) []string {
	fset := token.NewFileSet()
	recovers := map[string]bool{} // function and method names whose body starts with a deferred recover
	var stmts []*ast.GoStmt
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body != nil && defersRecover(n.Body) {
					recovers[n.Name.Name] = true
				}
			case *ast.GoStmt:
				stmts = append(stmts, n)
			}
			return true
		})
	}
	var bad []string
	for _, g := range stmts {
		switch fn := g.Call.Fun.(type) {
		case *ast.FuncLit:
			if defersRecover(fn.Body) {
				continue
			}
		case *ast.Ident:
			if recovers[fn.Name] {
				continue
			}
		case *ast.SelectorExpr:
			if recovers[fn.Sel.Name] {
				continue
			}
		}
		p := fset.Position(g.Pos())
		bad = append(bad, fmt.Sprintf("%s:%d", p.Filename, p.Line))
	}
	return bad
}

// defersRecover reports whether body's leading defers (with the
// declarations among them) defer a call of a function named Recover,
// RecoverErr or recover...: one that recovers.
func defersRecover(body *ast.BlockStmt) bool {
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.DeclStmt:
			continue
		case *ast.DeferStmt:
			var name string
			switch fn := st.Call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if strings.HasPrefix(name, "Recover") || strings.HasPrefix(name, "recover") {
				return true
			}
			continue
		}
		return false
	}
	return false
}
