package diskstore_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

const benchSize = 64 << 20

// zeros is an endless reader of zero bytes that never allocates.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// BenchmarkWrite writes and commits a 64 MiB object through io.Copy, as
// the upload handler will. Allocations per op stay small and independent of
// the size: the writer streams.
func BenchmarkWrite(b *testing.B) {
	s, err := diskstore.New(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(benchSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		id := "bench-" + strconv.Itoa(i)
		i++
		w, err := s.Create(ctx, id, store.Meta{Size: benchSize, MediaType: "application/octet-stream"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(w, io.LimitReader(zeros{}, benchSize)); err != nil {
			b.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Delete(ctx, id)
		b.StartTimer()
	}
}

// BenchmarkBareFileCopy is the baseline for BenchmarkWrite: io.Copy of the
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

// BenchmarkStat is the store's share of resolving a file URI: it does not
// depend on the object's size.
func BenchmarkStat(b *testing.B) {
	s, err := diskstore.New(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	w, err := s.Create(ctx, "stat", store.Meta{Size: benchSize})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(w, io.LimitReader(zeros{}, benchSize)); err != nil {
		b.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Stat(ctx, "stat"); err != nil {
			b.Fatal(err)
		}
	}
}
