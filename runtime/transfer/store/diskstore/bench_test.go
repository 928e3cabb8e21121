package diskstore_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/storetest"
)

const benchSize = 64 << 20

// zeros is an endless reader of zero bytes that never allocates.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// BenchmarkStore is the suite every backend runs (storetest.Benchmark).
func BenchmarkStore(b *testing.B) {
	s, err := diskstore.New(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	storetest.Benchmark(b, s)
}

// BenchmarkBareFileCopy is the baseline for BenchmarkStore/Write: io.Copy of the
// same bytes into a plain file, synced and renamed, without hashing.
func BenchmarkBareFileCopy(b *testing.B) {
	dir := b.TempDir()
	b.SetBytes(benchSize)
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.CreateTemp(dir, "*.part")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(struct{ io.Writer }{f}, io.LimitReader(zeros{}, benchSize)); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		f.Close()
		dst := filepath.Join(dir, "object")
		if err := os.Rename(f.Name(), dst); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.Remove(dst)
		b.StartTimer()
	}
}

// benchObjects commits n objects of 1 to 4096 bytes to a new Store in dir,
// owned round-robin by owners "owner-0" to "owner-<owners-1>". Every other
// object expires, one per second from t0+1h on; the rest never do. It
// commits from several goroutines, as each commit waits for its sync.
func benchObjects(b *testing.B, dir string, n, owners int) *diskstore.Store {
	b.Helper()
	s, err := diskstore.New(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	buf := make([]byte, 4096)
	const workers = 32
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := g; i < n; i += workers {
				m := store.Meta{Size: int64(1 + i%len(buf)), Owner: "owner-" + strconv.Itoa(i%owners)}
				if i%2 == 0 {
					m.Expires = t0.Add(time.Hour + time.Duration(i)*time.Second)
				}
				w, err := s.Create(ctx, "obj-"+strconv.Itoa(i), m)
				if err != nil {
					b.Error(err)
					return
				}
				if _, err := w.Write(buf[:m.Size]); err != nil {
					b.Error(err)
					return
				}
				if err := w.Commit(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return s
}

// BenchmarkUsage asks one owner's usage in a Store of 10,000 objects of
// 100 owners, as the transfer layer does on every upload. Fresh: nothing
// has expired. Expired: half of each owner's expiring objects have expired
// and not been swept, which Usage must walk past. Parallel: from every
// CPU at once.
func BenchmarkUsage(b *testing.B) {
	const objects, owners = 10000, 100
	s := benchObjects(b, b.TempDir(), objects, owners)
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		now  time.Time
	}{
		{"Fresh", t0},
		{"Expired", t0.Add(time.Hour + objects/2*time.Second)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.Usage(ctx, "owner-"+strconv.Itoa(i%owners), bc.now); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	b.Run("Parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				if _, err := s.Usage(ctx, "owner-"+strconv.Itoa(i%owners), t0); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
}

// BenchmarkOpen is New on a directory of 10,000 objects: the reading of
// every object's metadata that builds the index of Usage, once per process.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	benchObjects(b, dir, 10000, 100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := diskstore.New(dir, nil); err != nil {
			b.Fatal(err)
		}
	}
}
