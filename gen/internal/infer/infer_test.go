package infer_test

import (
	"context"
	"fmt"
	"go/types"
	"testing"

	"github.com/mcpfile/mcpfile/gen/internal/infer"
	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/internal/testmod"
)

// TestMain: testdata holds modules of their own (see testmod.Main).
func TestMain(m *testing.M) { testmod.Main(m) }

// TestCheck wants For with Config.Check, which builds no schema, to fail
// as For without it does, on every struct type of the model's fixtures,
// whose bad ones fail in every way inference can.
func TestCheck(t *testing.T) {
	pkgs, err := load.Packages(context.Background(), "../../model/testdata/mod", []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, pkg := range pkgs {
		scope := pkg.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			if _, ok := tn.Type().Underlying().(*types.Struct); !ok {
				continue
			}
			cfg := infer.Config{
				RejectTag: "mcpfile",
				RejectType: func(n *types.Named) bool {
					return n.Obj().Name() == "File" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "github.com/mcpfile/mcpfile/runtime"
				},
				All: true,
			}
			s, err := infer.For(tn.Type(), cfg)
			cfg.Check = true
			cs, cerr := infer.For(tn.Type(), cfg)
			if cs != nil {
				t.Errorf("%s.%s: For with Check returned a schema", pkg.Name, name)
			}
			if got, want := fmt.Sprint(cerr), fmt.Sprint(err); got != want {
				t.Errorf("%s.%s: For with Check fails with\n%s\nwant, as without,\n%s", pkg.Name, name, got, want)
			}
			if err == nil && s == nil {
				t.Errorf("%s.%s: For returned neither a schema nor an error", pkg.Name, name)
			}
			if err != nil {
				n++
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d struct types fail inference: the fixtures no longer test Check", n)
	}
}
