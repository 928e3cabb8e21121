package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// The default store (see Options.Store): a diskstore under the user's
// cache directory, one directory per signing key. Every server process of
// the user shares the cache directory; a file in it is of use only to a
// process whose keys open its URI, so each signing key has a directory of
// its own, and a process started with another key neither sees nor counts
// the files of the first (which its URIs could never open anyway).

// The process's default stores, by directory, and the roots that have a
// sweeper.
var (
	defaultMu     sync.Mutex
	defaultStores = map[string]*diskstore.Store{}
	defaultSwept  = map[string]bool{}
)

// keyDirLen is the length of the name of a signing key's directory: hex
// of the first 12 bytes of the SHA-256 of the key id.
const keyDirLen = 24

// keyDir is the name of the directory of the signing key whose id is kid.
func keyDir(kid string) string {
	sum := sha256.Sum256([]byte(kid))
	return hex.EncodeToString(sum[:keyDirLen/2])
}

// defaultStore returns the default store of keys' signing key, making it
// the first time, and starting the sweeper of its root.
func defaultStore(keys *token.Keyring, obs *observer) (*diskstore.Store, error) {
	root, dir, err := defaultDir(keys.SigningKeyID())
	if err != nil {
		return nil, err
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if ds := defaultStores[dir]; ds != nil {
		return ds, nil
	}
	ds, err := diskstore.New(dir, nil)
	if err != nil {
		return nil, err
	}
	defaultStores[dir] = ds
	if !defaultSwept[root] {
		defaultSwept[root] = true
		go func() {
			t := time.NewTicker(DefaultSweepInterval)
			defer t.Stop()
			for now := range t.C {
				n, err := sweepDefaultRoot(context.Background(), root, now)
				obs.Sweep(context.Background(), root, n, time.Since(now), err)
				if err != nil && obs.errorLog != nil {
					obs.errorLog.Printf("transfer: sweeping the default stores under %s: %v", root, err)
				}
			}
		}()
	}
	return ds, nil
}

// sweepDefaultRoot sweeps every key's directory under root: the stores of
// this process with their own index, and the others (of processes that
// ran with other keys, and may never run again) through a store opened for
// the sweep, so that their expired files do not stay on disk for good. It
// returns how many files it deleted.
func sweepDefaultRoot(ctx context.Context, root string, now time.Time) (int, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	var errs []error
	deleted := 0
	for _, e := range entries {
		if !e.IsDir() || len(e.Name()) != keyDirLen {
			continue
		}
		dir := filepath.Join(root, e.Name())
		defaultMu.Lock()
		ds := defaultStores[dir]
		defaultMu.Unlock()
		if ds == nil {
			if ds, err = diskstore.New(dir, nil); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		n, err := ds.Sweep(ctx, now)
		deleted += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return deleted, errors.Join(errs...)
}

// defaultDir makes, or checks, the default store's directory of the
// signing key whose id is kid, and the root of every key's directory:
// "mcpfile/uploads" under the user's cache directory, and in it the key's.
func defaultDir(kid string) (root, dir string, err error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", err
	}
	root = filepath.Join(cache, "mcpfile", "uploads")
	if err := privateSubdir(root); err != nil {
		return "", "", err
	}
	dir = filepath.Join(root, keyDir(kid))
	if err := privateSubdir(dir); err != nil {
		return "", "", err
	}
	return root, dir, nil
}

// privateSubdir makes, or checks, dir: a directory (not a link to one)
// that belongs to this user and that no one else can write to, since
// whoever can write there can plant or swap files.
func privateSubdir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	return privateDir(dir, fi)
}
