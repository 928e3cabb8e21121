package client_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLinksNoServer: the client, and every package of this module it
// imports, import none of the server: a Go program that only uploads and
// downloads links the wire types, the one reader of x-mcp-file's values
// (descriptor, SDK-free, whose accept and transferModes rules the client
// checks files against) and nothing of the transfer server, its stores,
// its pages, the runtime or the generated-code package. It reads
// the import lines of the packages' non-test files (all of them, whatever
// their build constraints), from the client's directory up.
func TestLinksNoServer(t *testing.T) {
	const module = "github.com/mcpfile/mcpfile"
	root := moduleRoot(t)
	allowed := []string{
		module + "/runtime/transfer/client",
		module + "/runtime/transfer/wire",
		module + "/runtime/internal/text",
		module + "/runtime/internal/descriptor",
		module + "/runtime/internal/jsonwalk",
	}
	forbiddenStd := []string{"html/template"}
	seen := map[string]bool{}
	queue := []string{module + "/runtime/transfer/client"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		if !slices.Contains(allowed, pkg) {
			t.Errorf("the client links %s (want only %v)", pkg, allowed)
			continue
		}
		for _, imp := range imports(t, filepath.Join(root, strings.TrimPrefix(pkg, module))) {
			switch {
			case strings.HasPrefix(imp, module+"/"):
				queue = append(queue, imp)
			case slices.Contains(forbiddenStd, imp):
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// imports returns the import paths of the non-test Go files in dir.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	var out []string
	fs := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fs, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range af.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
