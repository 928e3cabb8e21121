package diskstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// writebackChunk is how many bytes a Writer writes between two starts of
// writeback.
const writebackChunk = 8 << 20

// startWriteback asks Linux to start writing the n bytes of f at off to
// disk, without waiting (sync_file_range with SYNC_FILE_RANGE_WRITE): the
// pages of an upload go out while it arrives, and the fsync of Commit,
// which makes them durable, waits for little. It is only a hint; errors
// are the fsync's to report.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn() // not Fd, which would make f blocking
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
