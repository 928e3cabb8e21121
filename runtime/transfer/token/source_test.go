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

// TestConstantTimeCompare reads this package's source: Verify,
// ParseFileURI and Open authenticate through Key.open once, whose tag check
// is AES-GCM's own, in constant time; and no code compares bytes with
// bytes.Equal or reflect.
func TestConstantTimeCompare(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	uses := map[string]int{} // function → Key.open calls
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
				t.Errorf("%s imports %s: leave tags to the AEAD", name, p)
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "open" {
						uses[fn.Name.Name]++
					}
				}
				return true
			})
		}
	}
	for _, fn := range []string{"Verify", "ParseFileURI", "Open"} {
		if uses[fn] != 1 {
			t.Errorf("%s calls Key.open %d times, want 1", fn, uses[fn])
		}
	}
}
