package serve

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWidenPipe: the pipe a stdio server reads holds pipeSize bytes once
// widened (where the system allows that much), and a file that is no pipe
// is left alone.
func TestWidenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if most, _ := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || most < pipeSize {
		t.Skipf("the system's most for a pipe is %q (%v), under %d", b, err, pipeSize)
	}
	widenPipe(r)
	if n, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || n != pipeSize {
		t.Errorf("pipe size after widenPipe = %d, %v; want %d", n, err, pipeSize)
	}
	f, err := os.CreateTemp(t.TempDir(), "file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	widenPipe(f) // no panic, no change: not a pipe
}
