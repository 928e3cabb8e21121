package s3store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
)

// gets records the Range of each GET a client sends.
type gets struct {
	mu     sync.Mutex
	ranges []string
}

func (g *gets) record(r *http.Request) {
	if r.Method == http.MethodGet {
		g.mu.Lock()
		g.ranges = append(g.ranges, r.Header.Get("Range"))
		g.mu.Unlock()
	}
}

// take returns the ranges recorded since the last take.
func (g *gets) take() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.ranges
	g.ranges = nil
	return r
}

// putBytes commits body under id.
func putBytes(t *testing.T, s store.Store, id string, body []byte) {
	t.Helper()
	ctx := context.Background()
	w, err := s.Create(ctx, id, store.Meta{Size: int64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// patterned returns n bytes that differ at nearby offsets.
func patterned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>8 + i>>16)
	}
	return b
}

// TestReadAt checks that ReadAt asks S3 for exactly the bytes it returns,
// one ranged GET per call, also from many goroutines.
func TestReadAt(t *testing.T) {
	gw := server(t, "http")
	var g gets
	s := newStore(t, gw, s3store.Options{Client: gw.client(g.record)})
	const size = 1<<20 + 3
	body := patterned(size)
	putBytes(t, s, "ranged", body)
	r, err := s.Open(context.Background(), "ranged")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	g.take()
	for _, tc := range []struct {
		off, n  int64
		want    int
		wantEOF bool
		get     string // the Range asked, "" for none
	}{
		{0, 10, 10, false, "bytes=0-9"},
		{1000, 1, 1, false, "bytes=1000-1000"},
		{size - 5, 5, 5, false, fmt.Sprintf("bytes=%d-%d", size-5, size-1)},
		{size - 5, 10, 5, true, fmt.Sprintf("bytes=%d-%d", size-5, size-1)},
		{size, 10, 0, true, ""},
		{size + 100, 10, 0, true, ""},
		{12345, 0, 0, false, ""},
		{0, size, size, false, fmt.Sprintf("bytes=0-%d", size-1)},
	} {
		p := make([]byte, tc.n)
		n, err := r.ReadAt(p, tc.off)
		if n != tc.want || (err == io.EOF) != tc.wantEOF || (err != nil && err != io.EOF) {
			t.Errorf("ReadAt(%d bytes, %d) = %d, %v, want %d, EOF %v", tc.n, tc.off, n, err, tc.want, tc.wantEOF)
		}
		if n > 0 && !bytes.Equal(p[:n], body[tc.off:tc.off+int64(n)]) {
			t.Errorf("ReadAt(%d bytes, %d) read other bytes", tc.n, tc.off)
		}
		var want []string
		if tc.get != "" {
			want = []string{tc.get}
		}
		if got := g.take(); !slices.Equal(got, want) {
			t.Errorf("ReadAt(%d bytes, %d) sent GETs of %q, want %q", tc.n, tc.off, got, want)
		}
	}
	if _, err := r.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("ReadAt at -1 succeeded")
	}

	// Parallel ReadAts, as io.ReaderAt allows.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			off, n := int64(i*65537), 4096+i
			p := make([]byte, n)
			if got, err := r.ReadAt(p, off); got != n || err != nil || !bytes.Equal(p, body[off:off+int64(n)]) {
				t.Errorf("parallel ReadAt(%d bytes, %d) = %d, %v", n, off, got, err)
			}
		})
	}
	wg.Wait()
	if got := g.take(); len(got) != 16 {
		t.Errorf("16 ReadAts sent %d GETs, want 16", len(got))
	}
}

// TestRead checks that sequential reads keep one GET open, and that a Seek
// starts another from the new offset.
func TestRead(t *testing.T) {
	gw := server(t, "https")
	var g gets
	s := newStore(t, gw, s3store.Options{Client: gw.client(g.record)})
	const size = 300_001
	body := patterned(size)
	putBytes(t, s, "sequential", body)
	r, err := s.Open(context.Background(), "sequential")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	g.take()

	got, err := io.ReadAll(iotestOneByteAtATimeAfter(r, 100))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("ReadAll = %d bytes, %v, want the %d bytes", len(got), err, size)
	}
	if got := g.take(); !slices.Equal(got, []string{fmt.Sprintf("bytes=0-%d", size-1)}) {
		t.Errorf("reading through sent GETs of %q, want one of the whole object", got)
	}
	if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v, want 0, EOF", n, err)
	}

	if _, err := r.Seek(1000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 10)
	if _, err := io.ReadFull(r, p); err != nil || !bytes.Equal(p, body[1000:1010]) {
		t.Errorf("Read after Seek(1000) = %v, other bytes", err)
	}
	if off, err := r.Seek(-10, io.SeekCurrent); off != 1000 || err != nil {
		t.Errorf("Seek(-10, current) = %d, %v, want 1000", off, err)
	}
	if _, err := io.ReadFull(r, p); err != nil || !bytes.Equal(p, body[1000:1010]) {
		t.Errorf("Read after Seek(-10, current) = %v, other bytes", err)
	}
	want := []string{fmt.Sprintf("bytes=1000-%d", size-1), fmt.Sprintf("bytes=1000-%d", size-1)}
	if got := g.take(); !slices.Equal(got, want) {
		t.Errorf("Seek and Read sent GETs of %q, want %q", got, want)
	}
	// Seeking to where the open GET is keeps it.
	if _, err := r.Seek(1010, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, p); err != nil || !bytes.Equal(p, body[1010:1020]) {
		t.Errorf("Read after Seek(1010) = %v, other bytes", err)
	}
	if got := g.take(); len(got) != 0 {
		t.Errorf("Seek to the open GET's offset sent GETs of %q, want none", got)
	}
	for _, bad := range []struct {
		off    int64
		whence int
	}{{-1, io.SeekStart}, {-size - 1, io.SeekEnd}, {0, 7}} {
		if _, err := r.Seek(bad.off, bad.whence); err == nil {
			t.Errorf("Seek(%d, %d) succeeded", bad.off, bad.whence)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(p); err == nil {
		t.Error("Read after Close succeeded")
	}
	if _, err := r.ReadAt(p, 0); err == nil {
		t.Error("ReadAt after Close succeeded")
	}
}

// iotestOneByteAtATimeAfter reads n bytes one at a time, then as asked:
// many small reads over one GET.
func iotestOneByteAtATimeAfter(r io.Reader, n int) io.Reader {
	return io.MultiReader(&oneByte{io.LimitReader(r, int64(n))}, r)
}

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// TestReadReplaced: a reader reads the object it opened, or fails; never
// the bytes of an object committed under the same ID since.
func TestReadReplaced(t *testing.T) {
	gw := server(t, "http")
	ctx := context.Background()
	s := newStore(t, gw, s3store.Options{})
	first := []byte(strings.Repeat("first ", 100))
	putBytes(t, s, "replaced", first)
	r, err := s.Open(ctx, "replaced")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := make([]byte, 6)
	if _, err := io.ReadFull(r, p); err != nil || string(p) != "first " {
		t.Fatalf("first Read = %q, %v", p, err)
	}

	if err := s.Delete(ctx, "replaced"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadAt(p, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ReadAt of a deleted object: %v, want ErrNotFound", err)
	}
	putBytes(t, s, "replaced", bytes.ToUpper(first))
	if n, err := r.ReadAt(p, 0); err == nil {
		t.Errorf("ReadAt of a replaced object = %q, want an error", p[:n])
	}
	r.Seek(0, io.SeekStart)
	if b, err := io.ReadAll(r); err == nil {
		t.Errorf("Read of a replaced object = %q, want an error", b)
	}
}
