//go:build !unix

package transfer

import (
	"fmt"
	"io/fs"
)

// privateDir checks that fi, the Lstat of dir, is a directory. Elsewhere
// than Unix, the user's cache directory is the user's own.
func privateDir(dir string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (a link or a file is refused)", dir)
	}
	return nil
}
