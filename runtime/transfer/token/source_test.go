package token

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConstantTimeCompare reads this package's source: Verify and
// ParseFileURI compare macs with hmac.Equal, and no code compares bytes
// with bytes.Equal, subtle or == on strings built from macs.
func TestConstantTimeCompare(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	uses := map[string]int{} // function → hmac.Equal calls
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := imp.Path.Value; p == `"bytes"` || p == `"reflect"` {
				t.Errorf("%s imports %s: compare macs with hmac.Equal only", name, p)
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "hmac" && sel.Sel.Name == "Equal" {
						uses[fn.Name.Name]++
					}
				}
				return true
			})
		}
	}
	for _, fn := range []string{"Verify", "ParseFileURI"} {
		if uses[fn] != 1 {
			t.Errorf("%s calls hmac.Equal %d times, want 1", fn, uses[fn])
		}
	}
}
