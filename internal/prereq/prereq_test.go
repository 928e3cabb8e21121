package prereq

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fakeTB records what Require asks of a test. Its Fatalf and Skip return,
// where testing.T's stop the test.
type fakeTB struct {
	testing.TB // nil: a method Require should not call panics
	calls      []string
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return "TestFake" }
func (f *fakeTB) Fatal(args ...any) {
	f.calls = append(f.calls, "Fatal: "+fmt.Sprint(args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.calls = append(f.calls, "Fatalf: "+fmt.Sprintf(format, args...))
}
func (f *fakeTB) Skip(args ...any) {
	f.calls = append(f.calls, "Skip: "+fmt.Sprint(args...))
}

// fakeTerminal points the notices at a file, with testing.Verbose false,
// forgets the notices already written, and returns the file's path.
func fakeTerminal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tty")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	oldTTY, oldVerbose := tty, verbose
	tty, verbose, told = path, func() bool { return false }, map[string]bool{}
	t.Cleanup(func() { tty, verbose, told = oldTTY, oldVerbose, map[string]bool{} })
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRequirePresent(t *testing.T) {
	term := fakeTerminal(t)
	for _, ci := range []string{"true", ""} {
		t.Setenv("CI", ci)
		var f fakeTB
		Require(&f, true, "node", "install node")
		if f.calls != nil {
			t.Errorf("CI=%q: Require(ok) called %q, want nothing", ci, f.calls)
		}
	}
	if got := readFile(t, term); got != "" {
		t.Errorf("terminal got %q, want nothing", got)
	}
}

// TestRequireMissingCI is the rule for CI: CI=true turns a missing
// prerequisite into a failure, and the terminal hears nothing.
func TestRequireMissingCI(t *testing.T) {
	term := fakeTerminal(t)
	t.Setenv("CI", "true")
	var f fakeTB
	Require(&f, false, "node", "install node 20 or later")
	want := []string{"Fatalf: node is missing: install node 20 or later (CI=true: required)"}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls = %q, want %q", f.calls, want)
	}
	if got := readFile(t, term); got != "" {
		t.Errorf("terminal got %q, want nothing", got)
	}
}

// TestRequireMissingLocal: without CI=true (exactly), the test skips and the
// terminal hears each distinct notice once.
func TestRequireMissingLocal(t *testing.T) {
	for _, ci := range []string{"", "1", "false", "TRUE", "yes"} {
		t.Run("CI="+ci, func(t *testing.T) {
			term := fakeTerminal(t)
			t.Setenv("CI", ci)
			var f fakeTB
			Require(&f, false, "node", "install node")
			Require(&f, false, "node", "install node")
			Require(&f, false, "interop/node_modules", "run npm ci")
			want := []string{
				"Skip: node is missing: install node (skipped; CI=true makes this a failure)",
				"Skip: node is missing: install node (skipped; CI=true makes this a failure)",
				"Skip: interop/node_modules is missing: run npm ci (skipped; CI=true makes this a failure)",
			}
			if !slices.Equal(f.calls, want) {
				t.Errorf("calls = %q, want %q", f.calls, want)
			}
			bin := filepath.Base(os.Args[0])
			wantTerm := bin + ": TestFake: node is missing: install node (skipped; CI=true makes this a failure)\n" +
				bin + ": TestFake: interop/node_modules is missing: run npm ci (skipped; CI=true makes this a failure)\n"
			if got := readFile(t, term); got != wantTerm {
				t.Errorf("terminal got %q, want %q", got, wantTerm)
			}
		})
	}
}

func TestRequireMissingVerbose(t *testing.T) {
	term := fakeTerminal(t)
	verbose = func() bool { return true }
	t.Setenv("CI", "")
	var f fakeTB
	Require(&f, false, "node", "install node")
	if len(f.calls) != 1 {
		t.Errorf("calls = %q, want one Skip", f.calls)
	}
	if got := readFile(t, term); got != "" {
		t.Errorf("under -v the terminal got %q, want nothing", got)
	}
}

func TestRequireMissingNoTerminal(t *testing.T) {
	fakeTerminal(t)
	tty = filepath.Join(t.TempDir(), "no", "tty")
	t.Setenv("CI", "")
	var f fakeTB
	Require(&f, false, "node", "install node")
	if len(f.calls) != 1 {
		t.Errorf("calls = %q, want one Skip", f.calls)
	}
}

// TestSpecVectorsCI is `CI=true MCPFILE_SPEC_VECTORS=/missing go test
// ./runtime -run SpecVectors` in miniature.
func TestSpecVectorsCI(t *testing.T) {
	fakeTerminal(t)
	t.Setenv("CI", "true")
	missing := filepath.Join(t.TempDir(), "vectors")
	t.Setenv(vectorsEnv, missing)
	var f fakeTB
	SpecVectors(&f)
	want := []string{"Fatalf: spec vectors directory " + missing + " is missing: put the shared spec beside the repository (../shared/spec/vectors), or set MCPFILE_SPEC_VECTORS to its vectors directory (CI=true: required)"}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls = %q, want %q", f.calls, want)
	}

	f = fakeTB{}
	if err := os.Mkdir(missing, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := SpecVectors(&f); got != missing || f.calls != nil {
		t.Errorf("SpecVectors with %s=%s present = %q and called %q, want the directory and nothing", vectorsEnv, missing, got, f.calls)
	}
}

// TestSpecVectorsRelative: a relative MCPFILE_SPEC_VECTORS is read from
// the module root, the same for every package and for .ci/run.
func TestSpecVectorsRelative(t *testing.T) {
	fakeTerminal(t)
	t.Setenv("CI", "true")
	t.Setenv(vectorsEnv, filepath.Join("internal", "prereq"))
	want, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var f fakeTB
	if got := SpecVectors(&f); got != want || f.calls != nil {
		t.Errorf("SpecVectors() = %q and called %q, want %q and nothing", got, f.calls, want)
	}
}

func TestSpecVectorsDefault(t *testing.T) {
	fakeTerminal(t)
	t.Setenv("CI", "")
	t.Setenv(vectorsEnv, "")
	want, err := filepath.Abs("../../../shared/spec/vectors") // from internal/prereq
	if err != nil {
		t.Fatal(err)
	}
	var f fakeTB
	if got := SpecVectors(&f); got != want {
		t.Errorf("SpecVectors() = %q, want %q", got, want)
	}
}
