//go:build unix

package transfer

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// privateDir checks that fi, the Lstat of dir, is a directory of this
// user's that no one else can write to.
func privateDir(dir string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (a link or a file is refused)", dir)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s can be written by others (mode %v): make it 0700", dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to user %d, not to this process's user %d", dir, st.Uid, os.Getuid())
	}
	return nil
}
