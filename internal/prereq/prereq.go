// Package prereq is for tests that need something this module does not
// hold: the node binary and the npm packages of interop/, the versitygw
// S3 server, a Chromium browser. Such a test must not pass by skipping
// unseen.
//
// When a prerequisite is missing, [Require]
//
//   - fails the test under CI=true (the environment variable CI set to
//     "true", as GitHub Actions, GitLab CI and most CI services set it):
//     "<what> is missing: <fix> (CI=true: required)";
//   - otherwise skips it: "<what> is missing: <fix> (skipped; CI=true makes
//     this a failure)", and makes sure that someone hears of it.
//
// Where a skip is heard: go test ./... shows nothing of a package whose
// tests pass or skip, not even what TestMain prints, unless run with -v.
// So when the environment variable MCPFILE_PREREQ_NOTES names a file, as
// the repository's test command (.ci/test) sets it, Require appends one
// line to that file, "<what> is missing: <fix>", a tab, then the test
// binary's and the test's names, and the command prints the lines after
// the tests, grouped by notice. Without it, Require writes the notice,
// after the test binary's and the test's names, to the terminal (/dev/tty;
// CONOUT$ on Windows), once per test binary and notice, not at all under
// -v (the skip line says it) and not at all without a terminal.
//
// Require reads CI and MCPFILE_PREREQ_NOTES only when something is
// missing. go test keys its cache on the environment variables a test
// reads, and .ci/test names a new notes file on every run, so a package
// that skipped is run again each time, never replayed from the cache
// without its notice, while a package that had everything stays cached.
// (Run with go test directly, a cached "ok … (cached)" replays without
// the terminal notice; go test -count=1 runs again.)
package prereq

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// notesEnv names the environment variable that, when set, names the file
// that [Require] appends its notices to.
const notesEnv = "MCPFILE_PREREQ_NOTES"

// Require does nothing when ok is true. When it is false, the prerequisite
// what is missing: under CI=true Require fails t; elsewhere it records the
// notice (in $MCPFILE_PREREQ_NOTES, or on the terminal) and skips t. fix
// says how to install what, in a phrase that follows "<what> is missing: ".
func Require(t testing.TB, ok bool, what, fix string) {
	if ok {
		return
	}
	t.Helper()
	notice := what + " is missing: " + fix
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: required)", notice)
		return // for fakes of testing.TB: the real Fatalf does not return
	}
	test := filepath.Base(os.Args[0]) + ": " + t.Name()
	if notes := os.Getenv(notesEnv); notes != "" {
		if err := note(notes, notice+"\t"+test+"\n"); err != nil {
			// A notice that vanishes is the failure this package exists
			// to prevent.
			t.Errorf("prereq: recording %q in %s=%s: %v", notice, notesEnv, notes, err)
		}
	} else if !verbose() {
		announce(notice, test+": "+notice+" (skipped; CI=true makes this a failure)\n")
	}
	t.Skip(notice + " (skipped; CI=true makes this a failure)")
}

// note appends line to the file path in one write, so that the test
// binaries go test runs in parallel do not interleave their lines.
func note(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// The terminal, the notices already written to it, and testing.Verbose:
// variables so that this package's tests can replace them.
var (
	tty     = "/dev/tty"
	verbose = testing.Verbose

	mu   sync.Mutex
	told = map[string]bool{}
)

func init() {
	if runtime.GOOS == "windows" {
		tty = "CONOUT$"
	}
}

// announce writes line to the terminal the first time it is given key, if
// there is a terminal.
func announce(key, line string) {
	mu.Lock()
	defer mu.Unlock()
	if told[key] {
		return
	}
	told[key] = true
	f, err := os.OpenFile(tty, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
}
