package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpfile/mcpfile/cmd/mcpfilegen/internal/diff"
	"github.com/mcpfile/mcpfile/gen/model"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

const goldenDir = "../../testdata/golden"

// TestGolden runs mcpfilegen on each archive of testdata/golden, as
// go generate would in the package's directory, and compares what it wrote
// and printed with the archive's wanted outputs.
//
// An archive holds a package's files, then what the run should produce:
// generated files (those starting with the generated-code header) or a file
// named stderr with the error lines. A line "args: …" in the archive's
// comment gives the command-line arguments. Every case is a package of one
// temporary module whose go.mod replaces github.com/mcpfile/mcpfile with
// this checkout; the packages that generated code are then built together.
func TestGolden(t *testing.T) {
	dir, err := filepath.Abs(goldenDir) // the cases change directory
	if err != nil {
		t.Fatal(err)
	}
	archives, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(archives) == 0 {
		t.Fatalf("no archives in %s (%v)", goldenDir, err)
	}
	root := tempModule(t)
	var built []string
	for _, path := range archives {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			if goldenCase(t, path, filepath.Join(root, name)) {
				built = append(built, "./"+name)
			}
		})
	}
	if len(built) == 0 {
		return
	}
	t.Run("build", func(t *testing.T) {
		goCommand(t, root, append([]string{"build"}, built...)...)
		t.Logf("built %s", strings.Join(built, " "))
	})
}

// goldenCase runs one archive in dir and reports whether it generated code.
func goldenCase(t *testing.T, path, dir string) (generated bool) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inputs, want := splitArchive(ar)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range inputs {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(argsOf(ar.Comment), &stdout, &stderr)
	got := outputs(t, dir, inputs)
	if stderr.Len() > 0 {
		got = append(got, txtar.File{Name: "stderr", Data: stderr.Bytes()})
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
	if wantCode := exitCode(got); code != wantCode {
		t.Errorf("exit code = %d, want %d", code, wantCode)
	}

	if d := diffFiles(want, got); d != "" {
		if *update {
			ar.Files = append(inputs, got...)
			if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("updated %s", path)
		} else {
			t.Errorf("%s: outputs differ (-want +got):\n%s\nto accept: go test ./cmd/mcpfilegen -run 'TestGolden/%s$' -update",
				filepath.Base(path), d, filepath.Base(dir))
		}
	}
	return code == 0 && len(got) > 0
}

// splitArchive separates a case's inputs from its wanted outputs.
func splitArchive(ar *txtar.Archive) (inputs, outputs []txtar.File) {
	for _, f := range ar.Files {
		if isOutput(f) {
			outputs = append(outputs, f)
		} else {
			inputs = append(inputs, f)
		}
	}
	return inputs, outputs
}

func isOutput(f txtar.File) bool {
	return f.Name == "stderr" || bytes.HasPrefix(f.Data, []byte(model.GeneratedComment+"\n"))
}

// argsOf returns the arguments of the "args:" line of an archive comment.
func argsOf(comment []byte) []string {
	for line := range strings.SplitSeq(string(comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "args:"); ok {
			return strings.Fields(rest)
		}
	}
	return nil
}

// outputs returns the files of dir that are not inputs, or differ from
// them, sorted by name.
func outputs(t *testing.T, dir string, inputs []txtar.File) []txtar.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []txtar.File
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(inputs, func(f txtar.File) bool { return f.Name == e.Name() })
		if i < 0 || !bytes.Equal(inputs[i].Data, data) {
			out = append(out, txtar.File{Name: e.Name(), Data: data})
		}
	}
	return out
}

// exitCode is the exit code that goes with outputs: 1 with errors.
func exitCode(outputs []txtar.File) int {
	if slices.ContainsFunc(outputs, func(f txtar.File) bool { return f.Name == "stderr" }) {
		return 1
	}
	return 0
}

// diffFiles returns a unified diff of two file sets, empty when equal.
func diffFiles(want, got []txtar.File) string {
	var b strings.Builder
	names := map[string]bool{}
	for _, f := range append(slices.Clone(want), got...) {
		names[f.Name] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	for _, n := range sorted {
		w, g := find(want, n), find(got, n)
		if w != nil && g != nil && bytes.Equal(w.Data, g.Data) {
			continue
		}
		var wd, gd []byte
		if w != nil {
			wd = w.Data
		}
		if g != nil {
			gd = g.Data
		}
		if w == nil {
			fmt.Fprintf(&b, "%s: not wanted\n", n)
		}
		if g == nil {
			fmt.Fprintf(&b, "%s: missing\n", n)
		}
		b.Write(diff.Diff("want/"+n, wd, "got/"+n, gd))
	}
	return b.String()
}

func find(files []txtar.File, name string) *txtar.File {
	for i := range files {
		if files[i].Name == name {
			return &files[i]
		}
	}
	return nil
}

// tempModule creates a module whose go.mod requires this checkout of
// github.com/mcpfile/mcpfile, and has the go command resolve what is missing.
func tempModule(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	gomod := "module golden.test\n\ngo 1.26.0\n\nrequire github.com/mcpfile/mcpfile v0.0.0\n\nreplace github.com/mcpfile/mcpfile => " + repo + "\n"
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	return root
}

// goCommand runs the go command in dir and fails the test with its output
// if it fails.
func goCommand(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
