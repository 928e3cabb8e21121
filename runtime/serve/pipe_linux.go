package serve

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is how many bytes widenPipe lets a pipe hold: Linux's default
// most for a process without privileges (/proc/sys/fs/pipe-max-size).
const pipeSize = 1 << 20

// widenPipe makes the pipe that f reads, when it is one, hold pipeSize
// bytes rather than the default 64 KiB: a client writing a message of
// megabytes fills it in fewer writes and the server reads it in fewer
// reads, each waking the other sixteen times less often. The kernel takes
// the pages as they are written. When it cannot (f is no pipe, or the
// system's most is lower), the pipe stays as it was.
func widenPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n < pipeSize {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
		}
	})
}
