package transfer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

// TestSweepDefaultRootOtherKeys: the default store's sweeper deletes the
// expired files of every key's directory, also of a key no process of
// this run holds (a process that ran with a random key leaves its
// directory behind), and leaves the unexpired ones.
func TestSweepDefaultRootOtherKeys(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	dir := filepath.Join(root, keyDir("a key gone"))
	ds, err := diskstore.New(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, expires := range map[string]time.Time{"old": now.Add(-time.Minute), "live": now.Add(time.Hour)} {
		w, err := ds.Create(t.Context(), id, store.Meta{Size: 2, Expires: expires})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("hi"))
		if err := w.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := sweepDefaultRoot(t.Context(), root, now); err != nil || n != 1 {
		t.Fatalf("sweepDefaultRoot = %d, %v; want 1 deleted", n, err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if len(left) != 1 || left[0] != "live" {
		t.Errorf("after the sweep the other key's directory holds %q, want [live]", left)
	}
}
