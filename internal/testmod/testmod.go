// Package testmod is for the tests that load modules of their own under
// testdata with the go command (through golang.org/x/tools/go/packages).
package testmod

import (
	"os"
	"testing"
)

// Main runs a package's tests with the go command out of workspace mode.
// The repository's go.work lists its modules, not those under testdata,
// and in workspace mode the go command refuses to load a module it does
// not list. Call it from TestMain:
//
//	func TestMain(m *testing.M) { testmod.Main(m) }
func Main(m *testing.M) {
	os.Setenv("GOWORK", "off")
	os.Exit(m.Run())
}
