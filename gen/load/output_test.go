package load_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/gen/model"
)

// TestStaleOutput loads a package whose earlier generated file no longer
// compiles, with more errors than the compiler lists: the generator reads
// the package as on its first run, so neither the file nor the go
// command's report on it stops the load, while an error in the user's own
// code is still reported.
func TestStaleOutput(t *testing.T) {
	var gen strings.Builder
	gen.WriteString(model.GeneratedComment + "\n\npackage stale\n\nimport \"strconv\"\n\nvar _ T = struct{ Removed int }{}\n")
	for i := range 12 {
		fmt.Fprintf(&gen, "\nfunc (t *T) M%d() string { return strconv.Itoa(t.Removed) }\n", i)
	}
	for _, tc := range []struct {
		user    string
		wantErr string // "" for none
	}{
		{"package stale\n\ntype T struct{ A int }\n", ""},
		{"package stale\n\ntype T struct{ A int }\n\nfunc use() string { return T{}.M1() }\n", ""},
		{"package stale\n\ntype T struct{ A int }\n\nfunc f() { x := }\n", "user.go:5:"},
	} {
		dir := t.TempDir()
		for name, src := range map[string]string{
			"go.mod":         "module example.com/stale\n\ngo 1.25\n",
			"user.go":        tc.user,
			"mcpfile_gen.go": gen.String(),
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pkgs, err := load.Packages(context.Background(), dir, nil)
		if tc.wantErr == "" {
			if err != nil {
				t.Fatalf("Packages with stale output: %v", err)
			}
			for _, e := range load.TypeErrors(dir, pkgs[0]) {
				if strings.HasSuffix(e.Pos.Filename, "mcpfile_gen.go") {
					t.Errorf("type error in the generated file: %v", e)
				}
			}
			continue
		}
		errs, ok := err.(model.ErrorList)
		if !ok || !strings.HasPrefix(errs.Rel(dir), tc.wantErr) {
			t.Errorf("Packages error = %v, want one at %s", err, tc.wantErr)
		}
	}
}
