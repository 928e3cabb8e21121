package load_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/gen/model"
	"github.com/mcpfile/mcpfile/internal/testmod"
)

// TestMain: testdata holds modules of their own (see testmod.Main).
func TestMain(m *testing.M) { testmod.Main(m) }

func TestPackages(t *testing.T) {
	pkgs, err := load.Packages(context.Background(), "testdata/mod/ok", nil)
	if err != nil {
		t.Fatalf("Packages: %v", err)
	}
	if len(pkgs) != 1 {
		t.Fatalf("got %d packages, want 1", len(pkgs))
	}
	p := pkgs[0]
	if p.PkgPath != "example.com/loadtest/ok" || p.Types == nil || p.TypesInfo == nil || len(p.Syntax) != 1 || len(p.GoFiles) != 1 {
		t.Errorf("package %q loaded incompletely: types %v, info %v, %d files", p.PkgPath, p.Types != nil, p.TypesInfo != nil, len(p.Syntax))
	}
	if p.Types.Scope().Lookup("T") == nil {
		t.Errorf("type T not found")
	}
	if p.Syntax[0].Doc == nil {
		t.Errorf("comments not parsed")
	}
}

// TestTypeErrors checks that a package that does not type-check still
// loads (code calling generated methods cannot before the first run) and
// that TypeErrors has its errors, positioned.
func TestTypeErrors(t *testing.T) {
	dir := "testdata/mod"
	pkgs, err := load.Packages(context.Background(), dir, []string{"./broken"})
	if err != nil {
		t.Fatalf("Packages of a package with type errors failed: %v", err)
	}
	errs := load.TypeErrors(dir, pkgs[0])
	if len(errs) != 2 {
		t.Fatalf("TypeErrors = %v, want 2 positioned errors", errs)
	}
	abs, _ := filepath.Abs(dir)
	got := errs.Rel(abs)
	for i, want := range []string{
		`broken/broken.go:3:13: mcpfile: cannot use "s"`,
		`broken/broken.go:5:12: mcpfile: undefined: undefined`,
	} {
		if line := strings.Split(got, "\n")[i]; !strings.HasPrefix(line, want) {
			t.Errorf("error %d = %q, want prefix %q", i, line, want)
		}
	}
}

// TestPackagesStaleOutputClash loads a package that no longer compiles
// because one of its declarations clashes with an import of the generated
// file: the go command's error involves the output, which is regenerated,
// so loading goes on and the package has no type errors of its own.
func TestPackagesStaleOutputClash(t *testing.T) {
	dir := "testdata/mod"
	pkgs, err := load.Packages(context.Background(), dir, []string{"./clash"})
	if err != nil {
		t.Fatalf("Packages: %v", err)
	}
	if errs := load.TypeErrors(dir, pkgs[0]); len(errs) > 0 {
		t.Errorf("TypeErrors = %v, want none", errs)
	}
}

func TestPackagesSyntaxError(t *testing.T) {
	// Written here, not kept in testdata, so that gofmt -l stays quiet.
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":    "module example.com/syntax\n\ngo 1.25\n",
		"syntax.go": "package syntax\n\nfunc f() { x := }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := load.Packages(context.Background(), dir, nil)
	errs, ok := err.(model.ErrorList)
	if !ok || len(errs) == 0 {
		t.Fatalf("Packages error = %v (%T), want positioned syntax errors", err, err)
	}
	if got, want := errs.Rel(dir), "syntax.go:3:"; !strings.HasPrefix(got, want) {
		t.Errorf("error = %q, want prefix %q", got, want)
	}
}

func TestPackagesNoMatch(t *testing.T) {
	_, err := load.Packages(context.Background(), "testdata/mod", []string{"./nothing"})
	if err == nil {
		t.Fatal("Packages of a missing directory succeeded")
	}
	if !strings.Contains(err.Error(), "mcpfile: ") {
		t.Errorf("error %q is not in the mcpfile form", err)
	}
}
