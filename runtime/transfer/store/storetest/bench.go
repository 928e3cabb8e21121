package storetest

import (
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// Benchmark measures what the transfer layer asks of a Store on every
// transfer, the same way for every backend, so that their numbers compare:
//
//   - Write: a 64 MiB object in writes of 256 KiB, as the upload handler
//     writes (half its buffer at a time), created and committed; and the
//     same with the size not declared (WriteUnknownSize). Allocations per
//     op should stay small and not grow with the size: a writer streams.
//   - WriteSmall: a 4 KiB object: what a Store costs per object.
//   - Stat: the store's share of resolving a file URI.
//   - Read: Open and read a 64 MiB object to the end.
//   - Usage, for a [store.Usager]: one owner's usage among 100 objects of
//     10 owners, as asked on every upload.
//
// s must be empty; Benchmark leaves objects in it. Backends call it from a
// benchmark of their own:
//
//	func BenchmarkStore(b *testing.B) { storetest.Benchmark(b, newStore(b)) }
func Benchmark(b *testing.B, s store.Store) {
	const big = 64 << 20
	b.Run("Write", func(b *testing.B) {
		benchWrite(b, s, "write", store.Meta{Size: big, MediaType: "application/octet-stream"})
	})
	b.Run("WriteUnknownSize", func(b *testing.B) {
		benchWrite(b, s, "unknown", store.Meta{Size: store.SizeUnknown, MaxSize: 2 * big, MediaType: "application/octet-stream"})
	})
	b.Run("WriteSmall", func(b *testing.B) {
		benchWrite(b, s, "small", store.Meta{Size: 4 << 10, MediaType: "text/plain"})
	})
	b.Run("Stat", func(b *testing.B) {
		ctx := context.Background()
		benchPut(b, s, "stat", store.Meta{Size: big}, big)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Stat(ctx, "stat"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Read", func(b *testing.B) {
		ctx := context.Background()
		benchPut(b, s, "read", store.Meta{Size: big}, big)
		buf := make([]byte, 256<<10)
		b.SetBytes(big)
		b.ReportAllocs()
		for b.Loop() {
			r, err := s.Open(ctx, "read")
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
			r.Close()
			if err != nil || n != big {
				b.Fatalf("read %d bytes, %v; want %d", n, err, big)
			}
		}
	})
	b.Run("Usage", func(b *testing.B) {
		u, ok := s.(store.Usager)
		if !ok {
			b.Skip("not a store.Usager")
		}
		ctx := context.Background()
		for i := range 100 {
			benchPut(b, s, "usage-"+strconv.Itoa(i), store.Meta{Size: 1024, Owner: "owner-" + strconv.Itoa(i%10)}, 1024)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := u.Usage(ctx, "owner-"+strconv.Itoa(i%10), time.Now()); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// benchWrite creates, writes and commits an object of m in each op, and
// deletes it outside the timer.
func benchWrite(b *testing.B, s store.Store, prefix string, m store.Meta) {
	ctx := context.Background()
	size, err := m.Limit()
	if err != nil {
		b.Fatal(err)
	}
	if m.Size == store.SizeUnknown {
		size /= 2
	}
	buf := make([]byte, 256<<10)
	b.SetBytes(size)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		id := prefix + "-" + strconv.Itoa(i)
		i++
		w, err := s.Create(ctx, id, m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.CopyBuffer(w, io.LimitReader(zeros{}, size), buf); err != nil {
			b.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := s.Delete(ctx, id); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// benchPut commits size zero bytes under id, declared by m, in place of
// what a run before (-count) left there.
func benchPut(b *testing.B, s store.Store, id string, m store.Meta, size int64) {
	b.Helper()
	ctx := context.Background()
	if err := s.Delete(ctx, id); err != nil {
		b.Fatal(err)
	}
	w, err := s.Create(ctx, id, m)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	if _, err := io.Copy(w, io.LimitReader(zeros{}, size)); err != nil {
		b.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}

// zeros is an endless reader of zero bytes that never allocates.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
