// Package prereq is for tests that need something this module does not
// hold: the node binary, the npm packages of interop/, the spec vectors
// beside the repository. Such a test must not pass by skipping unseen.
//
// When a prerequisite is missing, [Require]
//
//   - fails the test under CI=true (the environment variable CI set to
//     "true", as GitHub Actions, GitLab CI and most CI services set it):
//     "<what> is missing: <fix> (CI=true: required)";
//   - otherwise skips it: "<what> is missing: <fix> (skipped; CI=true makes
//     this a failure)", and writes the same text, after the test binary's
//     and the test's names, to the terminal.
//
// The terminal is written directly (/dev/tty; CONOUT$ on Windows) because
// go test ./... shows nothing of a package whose tests pass or skip, not
// even what TestMain prints to stderr, unless run with -v. Each distinct
// notice is written once per test binary, not at all under -v (the skip
// line says it) and not at all without a terminal (as in CI, where the
// test fails instead).
//
// A cached result, "ok … (cached)", replays without running the tests, so
// without the notice. And go test does not watch files outside the module:
// after putting the spec vectors in place, run go test -count=1 once.
package prereq

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// vectorsEnv names the environment variable that, when set, replaces the
// directory [SpecVectors] looks in. Only tests read it; pointing it at a
// missing directory shows what CI=true does.
const vectorsEnv = "MCPFILE_SPEC_VECTORS"

// Require does nothing when ok is true. When it is false, the prerequisite
// what is missing: under CI=true Require fails t, elsewhere it tells the
// terminal (once per distinct notice) and skips t. fix says how to install
// what, in a phrase that follows "<what> is missing: ".
func Require(t testing.TB, ok bool, what, fix string) {
	if ok {
		return
	}
	t.Helper()
	msg := what + " is missing: " + fix
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: required)", msg)
		return // for fakes of testing.TB: the real Fatalf does not return
	}
	msg += " (skipped; CI=true makes this a failure)"
	if !verbose() {
		announce(msg, fmt.Sprintf("%s: %s: %s\n", filepath.Base(os.Args[0]), t.Name(), msg))
	}
	t.Skip(msg)
}

// SpecVectors returns the directory of the SEPs' example JSON:
// $MCPFILE_SPEC_VECTORS if set (relative to the module root), else
// ../shared/spec/vectors from the module root. It [Require]s that the
// directory exists.
func SpecVectors(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
		return ""
	}
	dir := os.Getenv(vectorsEnv)
	switch {
	case dir == "":
		dir = filepath.Join(filepath.Dir(root), "shared", "spec", "vectors")
	case !filepath.IsAbs(dir):
		dir = filepath.Join(root, dir)
	}
	fi, err := os.Stat(dir)
	Require(t, err == nil && fi.IsDir(), "spec vectors directory "+dir,
		"put the shared spec beside the repository (../shared/spec/vectors), or set "+vectorsEnv+" to its vectors directory")
	return dir
}

// moduleRoot returns the nearest directory at or above the working
// directory (a test's package directory) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("prereq: no go.mod at or above the working directory")
		}
		dir = parent
	}
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
