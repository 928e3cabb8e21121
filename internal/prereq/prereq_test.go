package prereq

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
func (f *fakeTB) Errorf(format string, args ...any) {
	f.calls = append(f.calls, "Errorf: "+fmt.Sprintf(format, args...))
}
func (f *fakeTB) Skip(args ...any) {
	f.calls = append(f.calls, "Skip: "+fmt.Sprint(args...))
}

// fakeTerminal points the notices at a file, with testing.Verbose false,
// forgets the notices already written, unsets MCPFILE_PREREQ_NOTES, and
// returns the file's path.
func fakeTerminal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tty")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	oldTTY, oldVerbose := tty, verbose
	tty, verbose, told = path, func() bool { return false }, map[string]bool{}
	t.Setenv(notesEnv, "")
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

// notesFile sets MCPFILE_PREREQ_NOTES to a file in a new directory, which
// Require is to create, and returns its path.
func notesFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notes")
	t.Setenv(notesEnv, path)
	return path
}

// TestRequireMissingNotes: with MCPFILE_PREREQ_NOTES set, as .ci/test sets
// it, every skip appends the notice and the test to the file, in one line
// each, -v or not, and the terminal hears nothing.
func TestRequireMissingNotes(t *testing.T) {
	for _, v := range []bool{false, true} {
		t.Run(fmt.Sprintf("verbose=%v", v), func(t *testing.T) {
			term := fakeTerminal(t)
			verbose = func() bool { return v }
			notes := notesFile(t)
			t.Setenv("CI", "")
			var f fakeTB
			Require(&f, false, "node", "install node")
			Require(&f, false, "node", "install node")
			Require(&f, false, "chromium", "apt-get install chromium")
			want := []string{
				"Skip: node is missing: install node (skipped; CI=true makes this a failure)",
				"Skip: node is missing: install node (skipped; CI=true makes this a failure)",
				"Skip: chromium is missing: apt-get install chromium (skipped; CI=true makes this a failure)",
			}
			if !slices.Equal(f.calls, want) {
				t.Errorf("calls = %q, want %q", f.calls, want)
			}
			bin := filepath.Base(os.Args[0])
			wantNotes := "node is missing: install node\t" + bin + ": TestFake\n" +
				"node is missing: install node\t" + bin + ": TestFake\n" +
				"chromium is missing: apt-get install chromium\t" + bin + ": TestFake\n"
			if got := readFile(t, notes); got != wantNotes {
				t.Errorf("notes = %q, want %q", got, wantNotes)
			}
			if got := readFile(t, term); got != "" {
				t.Errorf("terminal got %q, want nothing", got)
			}
		})
	}
}

// TestRequireNotesKept: the notes file gathers the lines of every caller
// (go test runs test binaries in parallel), appended, never overwritten or
// interleaved.
func TestRequireNotesKept(t *testing.T) {
	fakeTerminal(t)
	notes := notesFile(t)
	if err := os.WriteFile(notes, []byte("earlier\tother.test: TestOther\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CI", "")
	const n = 50
	done := make(chan []string)
	for i := range n {
		go func() {
			var f fakeTB
			Require(&f, false, fmt.Sprintf("part%02d", i), "install it")
			done <- f.calls
		}()
	}
	for range n {
		if calls := <-done; len(calls) != 1 {
			t.Errorf("calls = %q, want one Skip", calls)
		}
	}
	got := strings.Split(strings.TrimSuffix(readFile(t, notes), "\n"), "\n")
	want := []string{"earlier\tother.test: TestOther"}
	for i := range n {
		want = append(want, fmt.Sprintf("part%02d is missing: install it\t%s: TestFake", i, filepath.Base(os.Args[0])))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("notes =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRequireNotesUnwritable: a notice that cannot be recorded fails the
// test rather than vanish.
func TestRequireNotesUnwritable(t *testing.T) {
	term := fakeTerminal(t)
	notes := filepath.Join(t.TempDir(), "no", "such", "dir", "notes")
	t.Setenv(notesEnv, notes)
	t.Setenv("CI", "")
	var f fakeTB
	Require(&f, false, "node", "install node")
	if len(f.calls) != 2 || !strings.HasPrefix(f.calls[0], "Errorf: prereq: recording \"node is missing: install node\" in MCPFILE_PREREQ_NOTES="+notes+": ") ||
		f.calls[1] != "Skip: node is missing: install node (skipped; CI=true makes this a failure)" {
		t.Errorf("calls = %q, want an Errorf naming the file, then the Skip", f.calls)
	}
	if got := readFile(t, term); got != "" {
		t.Errorf("terminal got %q, want nothing", got)
	}
}

// TestRequireNotesCI: under CI=true a missing prerequisite fails the test
// and leaves the notes alone; a present one writes nothing either.
func TestRequireNotesCI(t *testing.T) {
	fakeTerminal(t)
	notes := notesFile(t)
	t.Setenv("CI", "true")
	var f fakeTB
	Require(&f, true, "node", "install node")
	Require(&f, false, "node", "install node")
	want := []string{"Fatalf: node is missing: install node (CI=true: required)"}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls = %q, want %q", f.calls, want)
	}
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("notes file: %v, want it not to exist", err)
	}
}
