package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// The subtests of objects declared of store.SizeUnknown, which [Run] runs
// after the others.
var unknownSizeTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store, c *clock)
}{
	{"UnknownSize", testUnknownSize},
	{"UnknownSizeEmpty", testUnknownSizeEmpty},
	{"UnknownSizeStreaming", testUnknownSizeStreaming},
	{"UnknownSizeTooLarge", testUnknownSizeTooLarge},
	{"UnknownSizeDigest", testUnknownSizeDigest},
	{"UnknownSizeAbort", testUnknownSizeAbort},
	{"UnknownSizeReplay", testUnknownSizeReplay},
	{"UnknownSizeConcurrentCommits", testUnknownSizeConcurrentCommits},
	{"UnknownSizeBadMaxSize", testUnknownSizeBadMaxSize},
	{"MaxSizeIgnored", testMaxSizeIgnored},
	{"UnknownSizeUsage", testUnknownSizeUsage},
}

// unknown returns the Meta of an object of unknown size, at most max
// bytes, owned by owner.
func unknown(max int64, owner string) store.Meta {
	m := meta(nil)
	m.Size, m.MaxSize, m.Owner = store.SizeUnknown, max, owner
	return m
}

// writeAll writes the chunks to w and fails t if any write fails.
func writeAll(t *testing.T, w store.Writer, chunks ...[]byte) {
	t.Helper()
	for _, p := range chunks {
		if n, err := w.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v, want %d, nil", len(p), n, err, len(p))
		}
	}
}

// wantStat checks that Stat(id) reports the object committed with m and
// body: its length as Size, MaxSize 0, and the digest of body.
func wantStat(t *testing.T, s store.Store, id string, m store.Meta, body []byte) {
	t.Helper()
	got, err := s.Stat(context.Background(), id)
	if err != nil {
		t.Fatalf("Stat(%q): %v", id, err)
	}
	want := m
	want.Size, want.MaxSize, want.SHA256 = int64(len(body)), 0, sha256.Sum256(body)
	if !got.Expires.Equal(want.Expires) {
		t.Errorf("Stat(%q): Expires = %v, want %v", id, got.Expires, want.Expires)
	}
	got.Expires, want.Expires = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("Stat(%q) = %+v, want %+v", id, got, want)
	}
}

// wantBody checks that Open(id) reads body, and that its Size is body's.
func wantBody(t *testing.T, s store.Store, id string, body []byte) {
	t.Helper()
	r, err := s.Open(context.Background(), id)
	if err != nil {
		t.Fatalf("Open(%q): %v", id, err)
	}
	defer r.Close()
	if r.Size() != int64(len(body)) {
		t.Errorf("Open(%q): Size() = %d, want %d", id, r.Size(), len(body))
	}
	if got, err := io.ReadAll(r); !bytes.Equal(got, body) || err != nil {
		t.Errorf("read %q = %q, %v, want %q", id, got, err, body)
	}
}

// testUnknownSize commits objects of unknown size shorter than their
// MaxSize, and of exactly MaxSize: each is as long as what was written.
func testUnknownSize(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	const max = 36
	body := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	for _, n := range []int{1, 10, max - 1, max} {
		id := fmt.Sprintf("unknown-%d", n)
		m := unknown(max, "user:42")
		m.Expires = c.Now().Add(time.Hour)
		w, err := s.Create(ctx, id, m)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		absent(t, s, id)
		writeAll(t, w, body[:1], body[1:1], body[1:n])
		absent(t, s, id)
		if err := w.Commit(ctx); err != nil {
			t.Fatalf("Commit of %d of at most %d bytes: %v", n, max, err)
		}
		if err := w.Abort(); err != nil {
			t.Errorf("Abort after Commit: %v, want nil", err)
		}
		wantStat(t, s, id, m, body[:n])
		wantBody(t, s, id, body[:n])
		if _, err := w.Write([]byte("x")); !errors.Is(err, store.ErrClosed) {
			t.Errorf("Write after Commit: %v, want ErrClosed", err)
		}
	}
}

// testUnknownSizeEmpty commits objects of unknown size with nothing
// written, and with only an empty write.
func testUnknownSizeEmpty(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	for i, writes := range [][][]byte{nil, {{}}} {
		id := fmt.Sprintf("unknown-empty-%d", i)
		m := unknown(10, "")
		w, err := s.Create(ctx, id, m)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		writeAll(t, w, writes...)
		if err := w.Commit(ctx); err != nil {
			t.Fatalf("Commit of an empty object of unknown size: %v", err)
		}
		wantStat(t, s, id, m, nil)
		wantBody(t, s, id, nil)
	}
}

// testUnknownSizeStreaming writes objects of unknown size of several MiB
// through io.Copy, as the upload handler does (more than one part of a
// store that uploads in parts), with no digest declared, the right one
// and a wrong one.
func testUnknownSizeStreaming(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	const size = 16<<20 + 17
	body := make([]byte, size)
	io.ReadFull(pattern{}, body)
	sum := sha256.Sum256(body)
	for _, tc := range []struct {
		name    string
		declare [32]byte
		want    error
	}{
		{"undeclared", [32]byte{}, nil},
		{"declared", sum, nil},
		{"wrong", sha256.Sum256(body[1:]), store.ErrDigest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "unknown-big-" + tc.name
			m := unknown(32<<20, "user:42")
			m.SHA256 = tc.declare
			w, err := s.Create(ctx, id, m)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if n, err := io.Copy(w, bytes.NewReader(body)); n != size || err != nil {
				t.Fatalf("io.Copy = %d, %v, want %d, nil", n, err, size)
			}
			if err := w.Commit(ctx); !errors.Is(err, tc.want) {
				t.Fatalf("Commit: %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				free(t, s, id)
				return
			}
			wantStat(t, s, id, m, body)
			r, err := s.Open(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			h := sha256.New()
			if n, err := io.Copy(h, r); n != size || err != nil {
				t.Fatalf("reading back = %d, %v, want %d, nil", n, err, size)
			}
			if !bytes.Equal(h.Sum(nil), sum[:]) {
				t.Error("bytes read back differ from the bytes written")
			}
		})
	}
}

// testUnknownSizeTooLarge writes MaxSize+1 bytes to objects of unknown
// size, in one Write and across Writes: the Write that goes past fails
// with ErrTooLarge and takes nothing, the writer is spent, and the ID is
// left free.
func testUnknownSizeTooLarge(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	const mib = 1 << 20
	for _, tc := range []struct {
		name   string
		max    int
		writes []int
	}{
		{"one write", 4, []int{5}},
		{"two writes", 4, []int{3, 2}},
		{"full then one", 4, []int{4, 1}},
		{"full, empty, more", 4, []int{4, 0, 5}},
		{"nothing then one", 1, []int{0, 2}},
		{"MiBs in one write", 9 * mib, []int{9*mib + 1}},
		{"MiBs across writes", 9 * mib, []int{mib, mib, mib, mib, mib, mib, mib, mib, mib, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := s.Create(ctx, "unknown-small", unknown(int64(tc.max), "user:42"))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			var (
				n    int
				werr error
			)
			for _, size := range tc.writes {
				if n, werr = w.Write(bytesOf(size)); werr != nil {
					break
				}
			}
			if !errors.Is(werr, store.ErrTooLarge) || n != 0 {
				t.Errorf("writing %v bytes to an object of at most %d: %d, %v, want 0, ErrTooLarge", tc.writes, tc.max, n, werr)
			}
			wantSpent(t, s, w, "unknown-small")
		})
	}
}

// testUnknownSizeDigest declares the digest of objects of unknown size:
// Commit checks it.
func testUnknownSizeDigest(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("digest me, whatever my length")
	m := unknown(100, "user:42")
	m.SHA256 = sha256.Sum256([]byte("something else"))
	if err := tryPut(s, "unknown-digest", body, m); !errors.Is(err, store.ErrDigest) {
		t.Errorf("Commit with a wrong declared digest: %v, want ErrDigest", err)
	}
	absent(t, s, "unknown-digest")
	m.SHA256 = sha256.Sum256(body)
	put(t, s, "unknown-digest", body, m)
	if got, err := s.Stat(ctx, "unknown-digest"); err != nil || got.SHA256 != m.SHA256 || got.Size != int64(len(body)) {
		t.Errorf("Stat = %+v, %v, want the declared digest and size %d", got, err, len(body))
	}

	// The digest of nothing, declared, for an empty object.
	m.SHA256 = sha256.Sum256(nil)
	put(t, s, "unknown-digest-empty", nil, m)
	wantStat(t, s, "unknown-digest-empty", m, nil)
}

func testUnknownSizeAbort(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	w, err := s.Create(ctx, "unknown-aborted", unknown(100, ""))
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, []byte("aborted"))
	if err := w.Abort(); err != nil {
		t.Errorf("Abort: %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("second Abort: %v", err)
	}
	if _, err := w.Write([]byte("more")); err == nil {
		t.Error("Write after Abort succeeded")
	}
	if err := w.Commit(ctx); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	free(t, s, "unknown-aborted")
}

// testUnknownSizeReplay commits an ID twice with writers of unknown size:
// commit stays create-if-absent.
func testUnknownSizeReplay(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	first, second := []byte("first"), []byte("the other, longer")
	w2, err := s.Create(ctx, "unknown-once", unknown(100, "")) // before the first commits
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Abort()
	put(t, s, "unknown-once", first, unknown(100, ""))
	writeAll(t, w2, second)
	if err := w2.Commit(ctx); !errors.Is(err, store.ErrExists) {
		t.Errorf("Commit of a committed ID: %v, want ErrExists", err)
	}
	if err := tryPut(s, "unknown-once", second, unknown(100, "")); !errors.Is(err, store.ErrExists) {
		t.Errorf("Create+Commit of a committed ID: %v, want ErrExists", err)
	}
	// A known size does not get past an object of unknown size, nor the
	// reverse.
	if err := tryPut(s, "unknown-once", second, meta(second)); !errors.Is(err, store.ErrExists) {
		t.Errorf("Create+Commit of a known size over an object of unknown size: %v, want ErrExists", err)
	}
	put(t, s, "known", first, meta(first))
	if err := tryPut(s, "known", second, unknown(100, "")); !errors.Is(err, store.ErrExists) {
		t.Errorf("Create+Commit of an unknown size over an object of known size: %v, want ErrExists", err)
	}
	wantBody(t, s, "unknown-once", first)
	wantBody(t, s, "known", first)
}

func testUnknownSizeConcurrentCommits(t *testing.T, s store.Store, c *clock) {
	const n = 16
	var (
		wg   sync.WaitGroup
		errs [n]error
	)
	for i := range n {
		wg.Go(func() {
			errs[i] = tryPut(s, "contended", fmt.Appendf(nil, "writer %02d%s", i, strings.Repeat("!", i)), unknown(100, ""))
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("writers %d and %d both committed", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, store.ErrExists):
			t.Errorf("writer %d: %v, want nil or ErrExists", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer committed")
	}
	want := fmt.Appendf(nil, "writer %02d%s", winner, strings.Repeat("!", winner))
	wantBody(t, s, "contended", want)
	wantStat(t, s, "contended", unknown(100, ""), want)
}

// testUnknownSizeBadMaxSize checks that Create refuses an unknown size
// without a MaxSize above 0, and sizes below 0 other than SizeUnknown,
// saying what is wrong; and that the ID is left free.
func testUnknownSizeBadMaxSize(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	for _, tc := range []struct {
		m    store.Meta
		want string // in the error
	}{
		{store.Meta{Size: store.SizeUnknown}, "MaxSize"},
		{store.Meta{Size: store.SizeUnknown, MaxSize: -1}, "MaxSize"},
		{store.Meta{Size: store.SizeUnknown, MaxSize: -1 << 62}, "MaxSize"},
		{store.Meta{Size: -2, MaxSize: 10}, "size"},
		{store.Meta{Size: -1 << 62, MaxSize: 10}, "size"},
	} {
		w, err := s.Create(ctx, "unknown-bad", tc.m)
		if err == nil {
			w.Abort()
			t.Errorf("Create(Size %d, MaxSize %d) succeeded, want an error", tc.m.Size, tc.m.MaxSize)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Create(Size %d, MaxSize %d) = %q, want an error that names %s", tc.m.Size, tc.m.MaxSize, err, tc.want)
		}
		if _, err := tc.m.Limit(); err == nil {
			t.Errorf("Meta{Size: %d, MaxSize: %d}.Limit() accepted it", tc.m.Size, tc.m.MaxSize)
		}
	}
	if u, ok := s.(store.Usager); ok {
		wantUsage(t, u, "", c.Now(), 0)
	}
	free(t, s, "unknown-bad")
}

// testMaxSizeIgnored checks that MaxSize means nothing with a known size:
// the writer takes Size bytes, exactly, and Stat returns MaxSize 0.
func testMaxSizeIgnored(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("five!")
	for i, max := range []int64{2, -3, 1 << 40} {
		id := fmt.Sprintf("known-%d", i)
		m := meta(body)
		m.MaxSize = max
		put(t, s, id, body, m)
		wantStat(t, s, id, m, body)

		w, err := s.Create(ctx, id+"-large", m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(append(body, '!')); !errors.Is(err, store.ErrTooLarge) {
			t.Errorf("a write past Size %d with MaxSize %d: %v, want ErrTooLarge", m.Size, max, err)
		}
		w.Abort()
		w, err = s.Create(ctx, id+"-short", m)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, w, body[:1])
		if err := w.Commit(ctx); !errors.Is(err, store.ErrIncomplete) {
			t.Errorf("Commit short of Size %d with MaxSize %d: %v, want ErrIncomplete", m.Size, max, err)
		}
	}
}

// testUnknownSizeUsage checks what writers of unknown size count: their
// MaxSize while open (if the store counts open writers), the length
// written once committed, and nothing once failed.
func testUnknownSizeUsage(t *testing.T, s store.Store, c *clock) {
	u := usager(t, s)
	ctx := context.Background()
	now := c.Now()
	put(t, s, "base", bytesOf(1), owned(bytesOf(1), "alice"))

	w, open := openCounted(t, s, u, now, "u1", unknown(100, "alice"), 1, 100)
	defer w.Abort()
	// A writer of known size counts as the store's writers of unknown size do.
	k, err := s.Create(ctx, "k1", owned(bytesOf(10), "alice"))
	if err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "alice", now, 1+open(110))
	k.Abort()
	wantUsage(t, u, "alice", now, 1+open(100))

	// Committed, it counts the length written, once.
	writeAll(t, w, bytesOf(30))
	wantUsage(t, u, "alice", now, 1+open(100))
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "alice", now, 31)
	w.Abort()
	wantUsage(t, u, "alice", now, 31)

	// An empty object counts nothing.
	put(t, s, "u-empty", nil, unknown(50, "alice"))
	wantUsage(t, u, "alice", now, 31)

	// Writers that fail stop counting.
	meta := func(name string) store.Meta {
		m := unknown(50, "alice")
		if name == "digest" {
			m.SHA256 = sha256.Sum256([]byte("something else"))
		}
		return m
	}
	wantFailuresUncounted(t, s, u, now, "u3", meta, 31, 50, open, map[string]func(w store.Writer) error{
		"too large": func(w store.Writer) error { _, err := w.Write(bytesOf(51)); return err },
		"aborted":   func(w store.Writer) error { w.Write(bytesOf(20)); w.Abort(); return w.Commit(ctx) },
		"digest": func(w store.Writer) error {
			w.Write(bytesOf(20))
			return w.Commit(ctx) // the Meta declares another digest
		},
		"canceled": func(w store.Writer) error {
			canceled, cancel := context.WithCancel(ctx)
			cancel()
			w.Write(bytesOf(20))
			return w.Commit(canceled)
		},
		"lost race": func(w store.Writer) error {
			put(t, s, "u3", bytesOf(5), owned(bytesOf(5), "bob"))
			w.Write(bytesOf(20))
			return w.Commit(ctx)
		},
	})
	wantUsage(t, u, "bob", now, 0)
}
