//go:build unix

package transfer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultDir: the default store's directory of a key is made private, and one
// that someone else could write to, or a link, is refused: whoever can
// write there can plant or swap the files a server resolves.
func TestDefaultDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	_, dir, err := defaultDir("k1")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || !strings.HasPrefix(dir, cache) {
		t.Fatalf("defaultDir(\"k1\") = %s (%v, %v): want a 0700 directory under the cache directory", dir, fi.Mode(), err)
	}
	if _, _, err := defaultDir("k1"); err != nil {
		t.Errorf("defaultDir(\"k1\") again: %v", err)
	}

	os.Chmod(dir, 0o777)
	if _, _, err := defaultDir("k1"); err == nil || !strings.Contains(err.Error(), "can be written by others") {
		t.Errorf("world-writable directory: %v, want refused", err)
	}
	os.Remove(dir)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	if _, _, err := defaultDir("k1"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("symlink: %v, want refused", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "objects")); err == nil {
		t.Errorf("the link was followed")
	}
}
