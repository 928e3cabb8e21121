// Package storetest is the conformance suite of [store.Store]: every
// backend's tests call [Run], so that memory, disk and object-store
// backends keep the same promises. It is for implementers of a Store, not
// for servers.
//
// Objects of unknown size ([store.SizeUnknown]) have subtests of their own,
// named UnknownSize…: every Store takes them. So do signed requests, named
// Presign…, which skip a Store that is not a [store.Presigner] or a
// [store.DownloadPresigner].
//
// A Store that is also a [store.Usager] is held to its promises too; the
// Usage subtests skip a Store that is not. A Usager may count open writers
// (reservations: the declared size, or the MaxSize of a writer of unknown
// size) or not; each subtest finds out which from its first writer, and
// holds the Store to it throughout.
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// clock is a fake clock that the suite advances to test expiry.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Run runs the conformance suite against the stores newStore makes, one
// per subtest. newStore must return an empty store that checks expiry
// against now, and clean it up with t.Cleanup. The signed requests of a
// [store.Presigner] or [store.DownloadPresigner] are sent with
// http.DefaultClient; [RunClient] sends them with another.
func Run(t *testing.T, newStore func(t *testing.T, now func() time.Time) store.Store) {
	t.Helper()
	RunClient(t, newStore, http.DefaultClient)
}

// RunClient is [Run] with the client that sends signed requests to the
// backend: one that trusts a test server's certificate, say.
func RunClient(t *testing.T, newStore func(t *testing.T, now func() time.Time) store.Store, client *http.Client) {
	t.Helper()
	for _, tc := range append(append([]struct {
		name string
		fn   func(t *testing.T, s store.Store, c *clock)
	}{
		{"RoundTrip", testRoundTrip},
		{"Empty", testEmpty},
		{"Streaming", testStreaming},
		{"InvisibleBeforeCommit", testInvisibleBeforeCommit},
		{"Abort", testAbort},
		{"SpentWriter", testSpentWriter},
		{"Replay", testReplay},
		{"ConcurrentCommits", testConcurrentCommits},
		{"WritePastSize", testWritePastSize},
		{"ShortCommit", testShortCommit},
		{"Digest", testDigest},
		{"BadIDs", testBadIDs},
		{"Expiry", testExpiry},
		{"Delete", testDelete},
		{"Canceled", testCanceled},
		{"Usage", testUsage},
		{"UsageExpiry", testUsageExpiry},
		{"UsageWriters", testUsageWriters},
		{"UsageConcurrent", testUsageConcurrent},
		{"TotalUsage", testTotalUsage},
	}, unknownSizeTests...), presignTests(client)...) {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
			tc.fn(t, newStore(t, c.Now), c)
		})
	}
}

func meta(body []byte) store.Meta {
	return store.Meta{Size: int64(len(body)), MediaType: "text/plain", Name: "notes ü.txt", Owner: "user:42"}
}

// put creates and commits id with body and m.
func put(t *testing.T, s store.Store, id string, body []byte, m store.Meta) {
	t.Helper()
	if err := tryPut(s, id, body, m); err != nil {
		t.Fatalf("put %q: %v", id, err)
	}
}

func tryPut(s store.Store, id string, body []byte, m store.Meta) error {
	ctx := context.Background()
	w, err := s.Create(ctx, id, m)
	if err != nil {
		return fmt.Errorf("Create: %w", err)
	}
	defer w.Abort()
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("Write: %w", err)
	}
	if err := w.Commit(ctx); err != nil {
		return fmt.Errorf("Commit: %w", err)
	}
	return nil
}

// read returns the bytes of the committed object id.
func read(t *testing.T, s store.Store, id string) []byte {
	t.Helper()
	r, err := s.Open(context.Background(), id)
	if err != nil {
		t.Fatalf("Open(%q): %v", id, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading %q: %v", id, err)
	}
	return b
}

// absent checks that id is not visible.
func absent(t *testing.T, s store.Store, id string) {
	t.Helper()
	ctx := context.Background()
	if m, err := s.Stat(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat(%q) = %+v, %v, want ErrNotFound", id, m, err)
	}
	if r, err := s.Open(ctx, id); !errors.Is(err, store.ErrNotFound) {
		if err == nil {
			r.Close()
		}
		t.Errorf("Open(%q) error = %v, want ErrNotFound", id, err)
	}
}

// free checks that id is not visible and can still be committed, with
// other bytes: a rejected attempt must not use up its ID.
func free(t *testing.T, s store.Store, id string) {
	t.Helper()
	absent(t, s, id)
	body := []byte("a later, valid upload")
	put(t, s, id, body, meta(body))
	if got := read(t, s, id); !bytes.Equal(got, body) {
		t.Errorf("after a rejected attempt, %q holds %q, want %q", id, got, body)
	}
}

func testRoundTrip(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	m := meta(body)
	m.Expires = c.Now().Add(time.Hour)
	w, err := s.Create(ctx, "round-trip_1", m)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range [][]byte{body[:1], body[1:1], body[1:20], body[20:]} {
		if n, err := w.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", len(chunk), n, err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v, want nil", err)
	}

	got, err := s.Stat(ctx, "round-trip_1")
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	want := m
	want.SHA256 = sha256.Sum256(body)
	if !got.Expires.Equal(want.Expires) {
		t.Errorf("Stat: Expires = %v, want %v", got.Expires, want.Expires)
	}
	got.Expires, want.Expires = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("Stat = %+v, want %+v", got, want)
	}

	r, err := s.Open(ctx, "round-trip_1")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer r.Close()
	if r.Size() != int64(len(body)) {
		t.Errorf("Size() = %d, want %d", r.Size(), len(body))
	}
	p := make([]byte, 5)
	if n, err := r.ReadAt(p, 10); n != 5 || err != nil || string(p) != "abcde" {
		t.Errorf("ReadAt(5 bytes, 10) = %d, %v, %q, want 5, nil, %q", n, err, p[:n], "abcde")
	}
	if n, err := r.ReadAt(p, int64(len(body))-2); n != 2 || err != io.EOF {
		t.Errorf("ReadAt(5 bytes, size-2) = %d, %v, want 2, EOF", n, err)
	}
	if off, err := r.Seek(-6, io.SeekEnd); off != int64(len(body))-6 || err != nil {
		t.Errorf("Seek(-6, end) = %d, %v", off, err)
	}
	if rest, err := io.ReadAll(r); string(rest) != "uvwxyz" || err != nil {
		t.Errorf("read after Seek = %q, %v, want %q", rest, err, "uvwxyz")
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if all, err := io.ReadAll(r); !bytes.Equal(all, body) || err != nil {
		t.Errorf("read after Seek(0) = %q, %v, want %q", all, err, body)
	}
}

func testEmpty(t *testing.T, s store.Store, c *clock) {
	put(t, s, "empty", nil, meta(nil))
	m, err := s.Stat(context.Background(), "empty")
	if err != nil || m.Size != 0 || m.SHA256 != sha256.Sum256(nil) {
		t.Errorf("Stat = %+v, %v, want size 0 and the digest of nothing", m, err)
	}
	if got := read(t, s, "empty"); len(got) != 0 {
		t.Errorf("read %q, want nothing", got)
	}
}

// testStreaming writes a few MiB through io.Copy, as the upload handler
// does, and checks every byte.
func testStreaming(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	const size = 3<<20 + 17
	src := io.LimitReader(pattern{}, size)
	want := sha256.New()
	w, err := s.Create(ctx, "big", store.Meta{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	// Writes of every size a caller makes, small and large in turn (a
	// store may treat large ones differently, as diskstore hashes them on
	// another goroutine).
	buf := make([]byte, 1<<20)
	var written int64
	for i := 0; written < size; i++ {
		sizes := []int{1, 4095, 32 << 10, 64 << 10, 256<<10 + 3, 1 << 20}
		chunk := buf[:min(int64(sizes[i%len(sizes)]), size-written)]
		if _, err := io.ReadFull(src, chunk); err != nil {
			t.Fatal(err)
		}
		want.Write(chunk)
		if n, err := w.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write of %d bytes at %d = %d, %v", len(chunk), written, n, err)
		}
		written += int64(len(chunk))
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := sha256.New()
	if n, err := io.Copy(got, r); n != size || err != nil {
		t.Fatalf("reading back = %d, %v, want %d, nil", n, err, size)
	}
	if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Error("bytes read back differ from the bytes written")
	}
	if m, err := s.Stat(ctx, "big"); err != nil || !bytes.Equal(m.SHA256[:], want.Sum(nil)) {
		t.Errorf("Stat = %+v, %v, want the digest of the bytes", m, err)
	}
}

// pattern is an endless reader of bytes that vary with their offset
// within each read.
type pattern struct{}

func (pattern) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*7 + i>>8)
	}
	return len(p), nil
}

func testInvisibleBeforeCommit(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("complete")
	w, err := s.Create(ctx, "pending", meta(body))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	absent(t, s, "pending")
	if _, err := w.Write(body[:3]); err != nil {
		t.Fatal(err)
	}
	absent(t, s, "pending")
	if _, err := w.Write(body[3:]); err != nil {
		t.Fatal(err)
	}
	absent(t, s, "pending") // complete but not committed
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "pending"); !bytes.Equal(got, body) {
		t.Errorf("read %q, want %q", got, body)
	}
}

func testAbort(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("aborted")
	w, err := s.Create(ctx, "aborted", meta(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort: %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("second Abort: %v", err)
	}
	if _, err := w.Write(body); err == nil {
		t.Error("Write after Abort succeeded")
	}
	if err := w.Commit(ctx); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	free(t, s, "aborted")
}

func testSpentWriter(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("once")
	w, err := s.Create(ctx, "spent", meta(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Write after Commit: %v, want ErrClosed", err)
	}
	if err := w.Commit(ctx); !errors.Is(err, store.ErrClosed) {
		t.Errorf("second Commit: %v, want ErrClosed", err)
	}
	if got := read(t, s, "spent"); !bytes.Equal(got, body) {
		t.Errorf("read %q, want %q", got, body)
	}
}

// testReplay commits an ID twice: the second attempt fails with ErrExists,
// at Create or at Commit, and the first object stays as it was.
func testReplay(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	first, second := []byte("first"), []byte("other")
	w2, err := s.Create(ctx, "once", meta(second)) // before the first commits
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Abort()
	put(t, s, "once", first, meta(first))
	if _, err := w2.Write(second); err != nil {
		t.Fatal(err)
	}
	if err := w2.Commit(ctx); !errors.Is(err, store.ErrExists) {
		t.Errorf("Commit of a committed ID: %v, want ErrExists", err)
	}
	if err := tryPut(s, "once", second, meta(second)); !errors.Is(err, store.ErrExists) {
		t.Errorf("Create+Commit of a committed ID: %v, want ErrExists", err)
	}
	if got := read(t, s, "once"); !bytes.Equal(got, first) {
		t.Errorf("after a replay, read %q, want %q", got, first)
	}
	if m, err := s.Stat(ctx, "once"); err != nil || m.SHA256 != sha256.Sum256(first) {
		t.Errorf("after a replay, Stat = %+v, %v, want the first object's", m, err)
	}
}

func testConcurrentCommits(t *testing.T, s store.Store, c *clock) {
	const n = 16
	var (
		wg   sync.WaitGroup
		errs [n]error
	)
	for i := range n {
		wg.Go(func() {
			body := fmt.Appendf(nil, "writer %02d", i)
			errs[i] = tryPut(s, "contended", body, meta(body))
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
	if got, want := read(t, s, "contended"), fmt.Sprintf("writer %02d", winner); string(got) != want {
		t.Errorf("read %q, want the winner's %q", got, want)
	}
}

func testWritePastSize(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	for _, writes := range [][]string{{"12345"}, {"123", "45"}, {"1234", "5"}, {"1234", "", "56789"}} {
		t.Run(strings.Join(writes, "+"), func(t *testing.T) {
			w, err := s.Create(ctx, "small", store.Meta{Size: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			var werr error
			for _, p := range writes {
				if _, werr = w.Write([]byte(p)); werr != nil {
					break
				}
			}
			if !errors.Is(werr, store.ErrTooLarge) {
				t.Errorf("writing %q to a 4-byte object: %v, want ErrTooLarge", writes, werr)
			}
			wantSpent(t, s, w, "small")
		})
	}
}

// wantSpent checks that w, the writer of id, is spent after ErrTooLarge:
// it takes no more bytes, does not commit, and leaves id free.
func wantSpent(t *testing.T, s store.Store, w store.Writer, id string) {
	t.Helper()
	if _, err := w.Write([]byte("1")); err == nil {
		t.Error("Write after ErrTooLarge succeeded")
	}
	if err := w.Commit(context.Background()); err == nil {
		t.Error("Commit after ErrTooLarge succeeded")
	}
	free(t, s, id)
	if err := s.Delete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

func testShortCommit(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	for _, n := range []int{0, 9} {
		w, err := s.Create(ctx, "short", store.Meta{Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(make([]byte, n)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx); !errors.Is(err, store.ErrIncomplete) {
			t.Errorf("Commit after %d of 10 bytes: %v, want ErrIncomplete", n, err)
		}
		absent(t, s, "short")
	}
	free(t, s, "short")
}

func testDigest(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("digest me")
	m := meta(body)
	m.SHA256 = sha256.Sum256([]byte("something else"))
	if err := tryPut(s, "digest", body, m); !errors.Is(err, store.ErrDigest) {
		t.Errorf("Commit with a wrong declared digest: %v, want ErrDigest", err)
	}
	absent(t, s, "digest")
	m.SHA256 = sha256.Sum256(body)
	put(t, s, "digest", body, m)
	if got, err := s.Stat(ctx, "digest"); err != nil || got.SHA256 != m.SHA256 {
		t.Errorf("Stat = %+v, %v, want the declared digest", got, err)
	}
}

// BadIDs are IDs every Store must refuse: empty, too long, and anything that
// a file system or URL might read as more than one plain name.
var BadIDs = []string{
	"", ".", "..", "../x", "..\\x", "x/..", "a/b", "a\\b", "/abs", "/etc/passwd",
	"\\\\host\\share", "C:", "C:\\x", "%2e%2e", "%2e%2e%2fx", "..%2f", "a%00b",
	"a\x00b", "a\nb", "a b", "a.b", "~root", "é", "a\u202eb", strings.Repeat("a", store.MaxIDLen+1),
}

// GoodIDs are IDs every Store must accept.
var GoodIDs = []string{"a", "Z", "0", "-", "_", "A-z_09", "UPPER-lower_123", strings.Repeat("x", store.MaxIDLen)}

func testBadIDs(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	for _, id := range BadIDs {
		if err := store.ValidID(id); !errors.Is(err, store.ErrBadID) {
			t.Errorf("ValidID(%q) = %v, want ErrBadID", id, err)
		}
		if w, err := s.Create(ctx, id, store.Meta{Size: 1}); !errors.Is(err, store.ErrBadID) {
			if err == nil {
				w.Abort()
			}
			t.Errorf("Create(%q) error = %v, want ErrBadID", id, err)
		}
		if _, err := s.Stat(ctx, id); !errors.Is(err, store.ErrBadID) {
			t.Errorf("Stat(%q) error = %v, want ErrBadID", id, err)
		}
		if r, err := s.Open(ctx, id); !errors.Is(err, store.ErrBadID) {
			if err == nil {
				r.Close()
			}
			t.Errorf("Open(%q) error = %v, want ErrBadID", id, err)
		}
		if err := s.Delete(ctx, id); !errors.Is(err, store.ErrBadID) {
			t.Errorf("Delete(%q) error = %v, want ErrBadID", id, err)
		}
	}
	for _, id := range GoodIDs {
		if err := store.ValidID(id); err != nil {
			t.Errorf("ValidID(%q) = %v, want nil", id, err)
		}
		put(t, s, id, []byte(id), meta([]byte(id)))
		if got := read(t, s, id); string(got) != id {
			t.Errorf("read %q, want %q", got, id)
		}
	}
}

func testExpiry(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("short-lived")
	soon, later, never := meta(body), meta(body), meta(body)
	soon.Expires = c.Now().Add(time.Hour)
	later.Expires = c.Now().Add(2 * time.Hour)
	put(t, s, "soon", body, soon)
	put(t, s, "later", body, later)
	put(t, s, "never", body, never)

	if n, err := s.Sweep(ctx, c.Now()); n != 0 || err != nil {
		t.Errorf("Sweep before expiry = %d, %v, want 0, nil", n, err)
	}
	c.advance(time.Hour - time.Nanosecond)
	if _, err := s.Stat(ctx, "soon"); err != nil {
		t.Errorf("Stat just before expiry: %v", err)
	}
	c.advance(time.Nanosecond)
	absent(t, s, "soon")
	if _, err := s.Stat(ctx, "later"); err != nil {
		t.Errorf("Stat(later): %v", err)
	}
	// An expired object keeps its ID until it is deleted.
	if err := tryPut(s, "soon", body, meta(body)); !errors.Is(err, store.ErrExists) {
		t.Errorf("committing over an expired, unswept object: %v, want ErrExists", err)
	}
	if n, err := s.Sweep(ctx, c.Now()); n != 1 || err != nil {
		t.Errorf("Sweep = %d, %v, want 1, nil", n, err)
	}
	absent(t, s, "soon")
	for _, id := range []string{"later", "never"} {
		if got := read(t, s, id); !bytes.Equal(got, body) {
			t.Errorf("after Sweep, %q holds %q, want %q", id, got, body)
		}
	}
	if n, err := s.Sweep(ctx, c.Now().Add(1000*time.Hour)); n != 1 || err != nil {
		t.Errorf("Sweep far ahead = %d, %v, want 1, nil", n, err)
	}
	if _, err := s.Stat(ctx, "never"); err != nil {
		t.Errorf("an object without Expires was swept: %v", err)
	}
	free(t, s, "soon")
}

func testDelete(t *testing.T, s store.Store, c *clock) {
	ctx := context.Background()
	body := []byte("delete me")
	put(t, s, "del", body, meta(body))
	for i := range 2 {
		if err := s.Delete(ctx, "del"); err != nil {
			t.Errorf("Delete #%d: %v", i+1, err)
		}
	}
	absent(t, s, "del")
	if err := s.Delete(ctx, "never-was"); err != nil {
		t.Errorf("Delete of an ID never used: %v", err)
	}
	// Delete does not disturb a writer of the ID, and frees the ID.
	w, err := s.Create(ctx, "del", meta(body))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := s.Delete(ctx, "del"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatalf("Commit after Delete: %v", err)
	}
	if got := read(t, s, "del"); !bytes.Equal(got, body) {
		t.Errorf("read %q, want %q", got, body)
	}
}

func testCanceled(t *testing.T, s store.Store, c *clock) {
	ctx, cancel := context.WithCancel(context.Background())
	body := []byte("canceled")
	w, err := s.Create(ctx, "ctx", meta(body))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	put(t, s, "present", body, meta(body))
	cancel()
	if err := w.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit with a canceled context: %v, want context.Canceled", err)
	}
	if _, err := s.Create(ctx, "ctx2", meta(body)); !errors.Is(err, context.Canceled) {
		t.Errorf("Create: %v, want context.Canceled", err)
	}
	if _, err := s.Stat(ctx, "present"); !errors.Is(err, context.Canceled) {
		t.Errorf("Stat: %v, want context.Canceled", err)
	}
	if r, err := s.Open(ctx, "present"); !errors.Is(err, context.Canceled) {
		if err == nil {
			r.Close()
		}
		t.Errorf("Open: %v, want context.Canceled", err)
	}
	if err := s.Delete(ctx, "present"); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete: %v, want context.Canceled", err)
	}
	if _, err := s.Sweep(ctx, c.Now()); !errors.Is(err, context.Canceled) {
		t.Errorf("Sweep: %v, want context.Canceled", err)
	}
	if got := read(t, s, "present"); !bytes.Equal(got, body) {
		t.Errorf("after canceled calls, read %q, want %q", got, body)
	}
	free(t, s, "ctx")
}

// usager returns s as a Usager, or skips the test.
func usager(t *testing.T, s store.Store) store.Usager {
	t.Helper()
	u, ok := s.(store.Usager)
	if !ok {
		t.Skipf("%T does not implement store.Usager", s)
	}
	return u
}

// openCounted opens a writer of m under id, for an owner whose usage
// without it is base, and returns it with open: what open writers of n
// bytes in all add to the usage. That is n for a store that counts open
// writers (this one counting limit) and 0 for one that does not; any
// other usage fails t.
func openCounted(t *testing.T, s store.Store, u store.Usager, now time.Time, id string, m store.Meta, base, limit int64) (store.Writer, func(n int64) int64) {
	t.Helper()
	w, err := s.Create(context.Background(), id, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := u.Usage(context.Background(), m.Owner, now)
	if err != nil {
		t.Fatalf("Usage(%q): %v", m.Owner, err)
	}
	reserves := false
	switch got {
	case base:
		t.Logf("%T does not count open writers", s)
	case base + limit:
		reserves = true
		t.Logf("%T counts open writers", s)
	default:
		w.Abort()
		t.Fatalf("with a writer of at most %d bytes open, Usage = %d, want %d (no reservations) or %d", limit, got, base, base+limit)
	}
	return w, func(n int64) int64 {
		if reserves {
			return n
		}
		return 0
	}
}

// wantFailuresUncounted checks, for each way to fail a writer, that the
// writer counts (open) while open and nothing once failed: its owner's
// usage goes back to base. Each writer is created under id with the Meta
// meta returns for the case, and the ID is freed after.
func wantFailuresUncounted(t *testing.T, s store.Store, u store.Usager, now time.Time, id string, meta func(name string) store.Meta, base, limit int64, open func(int64) int64, fails map[string]func(store.Writer) error) {
	t.Helper()
	ctx := context.Background()
	for name, fail := range fails {
		m := meta(name)
		w, err := s.Create(ctx, id, m)
		if err != nil {
			t.Fatal(err)
		}
		wantUsage(t, u, m.Owner, now, base+open(limit))
		if err := fail(w); err == nil {
			t.Fatalf("%s: writer did not fail", name)
		}
		if got, err := u.Usage(ctx, m.Owner, now); got != base || err != nil {
			t.Errorf("after a writer failed (%s), Usage = %d, %v, want %d", name, got, err, base)
		}
		w.Abort()
		if err := s.Delete(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
}

// wantUsage checks the usage of owner at now.
func wantUsage(t *testing.T, u store.Usager, owner string, now time.Time, want int64) {
	t.Helper()
	if got, err := u.Usage(context.Background(), owner, now); got != want || err != nil {
		t.Errorf("Usage(%q, %v) = %d, %v, want %d, nil", owner, now.Format(time.TimeOnly), got, err, want)
	}
}

// owned returns the Meta of body owned by owner.
func owned(body []byte, owner string) store.Meta {
	m := meta(body)
	m.Owner = owner
	return m
}

// bytesOf returns n bytes.
func bytesOf(n int) []byte { return bytes.Repeat([]byte("u"), n) }

func testUsage(t *testing.T, s store.Store, c *clock) {
	u := usager(t, s)
	ctx := context.Background()
	now := c.Now()
	for _, owner := range []string{"alice", "", "nobody"} {
		wantUsage(t, u, owner, now, 0)
	}

	put(t, s, "a1", bytesOf(10), owned(bytesOf(10), "alice"))
	wantUsage(t, u, "alice", now, 10)
	put(t, s, "a2", bytesOf(5), owned(bytesOf(5), "alice"))
	put(t, s, "a0", nil, owned(nil, "alice"))
	wantUsage(t, u, "alice", now, 15)
	put(t, s, "b1", bytesOf(7), owned(bytesOf(7), "bob"))
	put(t, s, "n1", bytesOf(3), owned(bytesOf(3), ""))
	wantUsage(t, u, "alice", now, 15)
	wantUsage(t, u, "bob", now, 7)
	wantUsage(t, u, "", now, 3)
	wantUsage(t, u, "Alice", now, 0) // owners are compared exactly
	wantUsage(t, u, "nobody", now, 0)

	// Rejected uploads count nothing.
	m := owned(bytesOf(20), "alice")
	m.SHA256 = sha256.Sum256([]byte("something else"))
	if err := tryPut(s, "a3", bytesOf(20), m); !errors.Is(err, store.ErrDigest) {
		t.Errorf("Commit with a wrong digest: %v, want ErrDigest", err)
	}
	if err := tryPut(s, "a1", bytesOf(20), owned(bytesOf(20), "alice")); !errors.Is(err, store.ErrExists) {
		t.Errorf("replay: %v, want ErrExists", err)
	}
	if err := tryPut(s, "a1", bytesOf(20), owned(bytesOf(20), "bob")); !errors.Is(err, store.ErrExists) {
		t.Errorf("replay: %v, want ErrExists", err)
	}
	wantUsage(t, u, "alice", now, 15)
	wantUsage(t, u, "bob", now, 7)

	for i := range 2 {
		if err := s.Delete(ctx, "a2"); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		wantUsage(t, u, "alice", now, 10)
	}
	if err := s.Delete(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "", now, 0)
	wantUsage(t, u, "bob", now, 7)
	// A deleted ID can be committed again, by another owner.
	put(t, s, "a2", bytesOf(4), owned(bytesOf(4), "bob"))
	wantUsage(t, u, "alice", now, 10)
	wantUsage(t, u, "bob", now, 11)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := u.Usage(canceled, "alice", now); !errors.Is(err, context.Canceled) {
		t.Errorf("Usage with a canceled context: %v, want context.Canceled", err)
	}
}

// testUsageExpiry checks that Usage counts at the time it is given, in any
// order, and that expired objects count nothing whether swept or not.
func testUsageExpiry(t *testing.T, s store.Store, c *clock) {
	u := usager(t, s)
	ctx := context.Background()
	t0 := c.Now()
	for i, ttl := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour, time.Hour, 0} {
		m := owned(bytesOf(1<<i), "alice")
		if ttl > 0 {
			m.Expires = t0.Add(ttl)
		}
		put(t, s, fmt.Sprintf("e%d", i), bytesOf(1<<i), m)
	}
	put(t, s, "bob", bytesOf(100), owned(bytesOf(100), "bob"))
	// 1+8 expire at 1h, 2 at 2h, 4 at 3h; 16 never.
	for _, tc := range []struct {
		at   time.Duration
		want int64
	}{
		{0, 31}, {time.Hour - 1, 31}, {time.Hour, 22}, {3 * time.Hour, 16},
		{1000 * time.Hour, 16}, {2*time.Hour - 1, 22}, {2 * time.Hour, 20}, {-time.Hour, 31},
	} {
		wantUsage(t, u, "alice", t0.Add(tc.at), tc.want)
	}
	wantUsage(t, u, "bob", t0.Add(1000*time.Hour), 100)

	c.advance(time.Hour)
	if n, err := s.Sweep(ctx, c.Now()); n != 2 || err != nil {
		t.Fatalf("Sweep = %d, %v, want 2, nil", n, err)
	}
	// Swept objects are gone at every time, not just expired.
	wantUsage(t, u, "alice", t0, 22)
	wantUsage(t, u, "alice", c.Now(), 22)
	wantUsage(t, u, "alice", t0.Add(2*time.Hour), 20)
	// An expired object that has not been swept counts nothing.
	c.advance(2 * time.Hour)
	wantUsage(t, u, "alice", c.Now(), 16)
	if err := s.Delete(ctx, "e2"); err != nil { // expired, unswept
		t.Fatal(err)
	}
	wantUsage(t, u, "alice", t0, 18)
	wantUsage(t, u, "alice", c.Now(), 16)
	if n, err := s.Sweep(ctx, c.Now()); n != 1 || err != nil {
		t.Fatalf("Sweep = %d, %v, want 1, nil", n, err)
	}
	wantUsage(t, u, "alice", t0, 16)
	wantUsage(t, u, "bob", t0, 100)
}

// testUsageWriters checks what open and rejected writers count: the
// declared size from Create to the end of the writer (a reservation), or
// nothing, as the store chooses; never more, and never after it ends.
func testUsageWriters(t *testing.T, s store.Store, c *clock) {
	u := usager(t, s)
	ctx := context.Background()
	now := c.Now()
	put(t, s, "base", bytesOf(1), owned(bytesOf(1), "alice"))

	w, open := openCounted(t, s, u, now, "w1", owned(bytesOf(50), "alice"), 1, 50)
	defer w.Abort()
	var err error
	wantUsage(t, u, "bob", now, 0)
	if _, err := w.Write(bytesOf(20)); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "alice", now, 1+open(50))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "alice", now, 1)

	// A writer that commits counts once: as its reservation, then its object.
	w, err = s.Create(ctx, "w2", owned(bytesOf(50), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	wantUsage(t, u, "", now, open(50))
	if _, err := w.Write(bytesOf(50)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "", now, 50)
	w.Abort()
	wantUsage(t, u, "", now, 50)

	// Writers that fail stop counting.
	wantFailuresUncounted(t, s, u, now, "w3", func(string) store.Meta { return owned(bytesOf(50), "alice") }, 1, 50, open, map[string]func(w store.Writer) error{
		"too large": func(w store.Writer) error { _, err := w.Write(bytesOf(51)); return err },
		"short":     func(w store.Writer) error { w.Write(bytesOf(49)); return w.Commit(ctx) },
		"canceled": func(w store.Writer) error {
			canceled, cancel := context.WithCancel(ctx)
			cancel()
			w.Write(bytesOf(50))
			return w.Commit(canceled)
		},
	})

	// A writer that loses the race to the ID counts nothing after.
	w, err = s.Create(ctx, "w4", owned(bytesOf(30), "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	put(t, s, "w4", bytesOf(60), owned(bytesOf(60), "alice"))
	wantUsage(t, u, "alice", now, 61+open(30))
	w.Write(bytesOf(30))
	if err := w.Commit(ctx); !errors.Is(err, store.ErrExists) {
		t.Errorf("losing Commit: %v, want ErrExists", err)
	}
	wantUsage(t, u, "alice", now, 61)

	// Writers of one owner add up, and end independently.
	ws := make([]store.Writer, 3)
	for i := range ws {
		ws[i], err = s.Create(ctx, fmt.Sprintf("w5-%d", i), owned(bytesOf(10), "carol"))
		if err != nil {
			t.Fatal(err)
		}
		defer ws[i].Abort()
	}
	wantUsage(t, u, "carol", now, open(30))
	ws[1].Abort()
	wantUsage(t, u, "carol", now, open(20))
	ws[0].Write(bytesOf(10))
	if err := ws[0].Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "carol", now, 10+open(10))
	ws[2].Abort()
	wantUsage(t, u, "carol", now, 10)
}

// testUsageConcurrent commits, deletes and fails writes of one owner from
// many goroutines while others read its usage, and checks the total after.
func testUsageConcurrent(t *testing.T, s store.Store, c *clock) {
	u := usager(t, s)
	ctx := context.Background()
	const n = 16
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if got, err := u.Usage(ctx, "dave", c.Now()); got < 0 || err != nil {
					t.Errorf("Usage during writes = %d, %v", got, err)
					return
				}
			}
		})
	}
	var writers sync.WaitGroup
	for i := range n {
		writers.Go(func() {
			body := bytesOf(i + 1)
			for j := range 3 {
				id := fmt.Sprintf("c%d-%d", i, j)
				if err := tryPut(s, id, body, owned(body, "dave")); err != nil {
					t.Errorf("put %s: %v", id, err)
				}
			}
			if err := s.Delete(ctx, fmt.Sprintf("c%d-0", i)); err != nil {
				t.Error(err)
			}
			m := owned(body, "dave")
			m.Size++
			if err := tryPut(s, fmt.Sprintf("c%d-short", i), body, m); !errors.Is(err, store.ErrIncomplete) {
				t.Errorf("short put: %v, want ErrIncomplete", err)
			}
			// All but one of these lose.
			tryPut(s, "contended", body, owned(body, "dave"))
		})
	}
	writers.Wait()
	close(done)
	wg.Wait()
	m, err := s.Stat(ctx, "contended")
	if err != nil {
		t.Fatal(err)
	}
	wantUsage(t, u, "dave", c.Now(), 2*n*(n+1)/2+m.Size)
}

// testTotalUsage: a TotalUsager counts every owner's unexpired objects
// and open writers, as Usage counts one owner's; an object deleted or
// expired counts nothing.
func testTotalUsage(t *testing.T, s store.Store, c *clock) {
	tu, ok := s.(store.TotalUsager)
	if !ok {
		t.Skipf("%T does not implement store.TotalUsager", s)
	}
	ctx := context.Background()
	want := func(now time.Time, n int64) {
		t.Helper()
		if got, err := tu.TotalUsage(ctx, now); got != n || err != nil {
			t.Errorf("TotalUsage(%v) = %d, %v, want %d, nil", now.Format(time.TimeOnly), got, err, n)
		}
	}
	t0 := c.Now()
	want(t0, 0)
	a := owned(bytesOf(10), "alice")
	a.Expires = t0.Add(time.Hour)
	put(t, s, "a", bytesOf(10), a)
	put(t, s, "b", bytesOf(100), owned(bytesOf(100), "bob"))
	put(t, s, "anon", bytesOf(1000), owned(bytesOf(1000), ""))
	want(t0, 1110)
	want(t0.Add(time.Hour), 1100)
	w, err := s.Create(ctx, "w", owned(bytesOf(5000), "carol"))
	if err != nil {
		t.Fatal(err)
	}
	want(t0, 6110)
	w.Abort()
	want(t0, 1110)
	if err := s.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	want(t0, 1010)
	c.advance(time.Hour)
	if _, err := s.Sweep(ctx, c.Now()); err != nil {
		t.Fatal(err)
	}
	want(t0, 1000)
}
