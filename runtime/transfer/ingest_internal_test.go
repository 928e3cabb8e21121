package transfer

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpfile/mcpfile/runtime/internal/content"
)

// recorder is the store's side of copyFile: it keeps what is written,
// fails the write that would pass failAt, and notices two writes at once.
type recorder struct {
	bytes.Buffer
	writes  int
	failAt  int // fail a write that would end past this many bytes; 0: never
	active  atomic.Int32
	overlap bool
}

var errFull = errors.New("store full")

func (r *recorder) Write(p []byte) (int, error) {
	if r.active.Add(1) != 1 {
		r.overlap = true
	}
	defer r.active.Add(-1)
	r.writes++
	if r.failAt > 0 && r.Len()+len(p) > r.failAt {
		return 0, errFull
	}
	return r.Buffer.Write(p)
}

// counting counts the bytes read from r.
type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func body(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

// TestCopyFile: the copy through two halves writes exactly what it read,
// in order, one write at a time, whatever the reads return; stops at the
// first byte past the limit having read only that one; and checks the
// first bytes before it writes any.
func TestCopyFile(t *testing.T) {
	const bufSize = MinBufferSize // halves of content.SniffLen: the smallest case
	readers := map[string]func(io.Reader) io.Reader{
		"whole":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
		"dataerr": iotest.DataErrReader,
	}
	for rname, wrap := range readers {
		for _, tc := range []struct {
			size, limit int
			oversize    bool
		}{
			{0, 10, false},
			{1, 10, false},
			{content.SniffLen - 1, 1 << 20, false},
			{content.SniffLen, content.SniffLen, false},
			{bufSize*3 + 5, bufSize*3 + 5, false},
			{bufSize*3 + 5, bufSize * 4, false}, // short of the limit: the caller's undersize
			{bufSize*3 + 6, bufSize*3 + 5, true},
			{bufSize * 10, bufSize, true},
			{1, 0, true},
		} {
			for _, check := range []bool{true, false} {
				src := body(tc.size)
				in := &counting{r: wrap(bytes.NewReader(src))}
				var dst recorder
				var head []byte
				first := func(h []byte) error {
					if dst.writes != 0 {
						t.Errorf("%s %+v: first called after %d writes", rname, tc, dst.writes)
					}
					head = append([]byte(nil), h...)
					return nil
				}
				if !check {
					first = nil
				}
				n, err := copyFile(&dst, in, int64(tc.limit), make([]byte, bufSize), first)
				if dst.overlap {
					t.Errorf("%s %+v: two writes at once", rname, tc)
				}
				if tc.oversize {
					if !errors.Is(err, errOversize) {
						t.Errorf("%s %+v: err = %v, want errOversize", rname, tc, err)
					}
					if in.n != tc.limit+1 {
						t.Errorf("%s %+v: read %d bytes, want the limit and one more, %d", rname, tc, in.n, tc.limit+1)
					}
					if dst.Len() > tc.limit {
						t.Errorf("%s %+v: wrote %d bytes, past the limit", rname, tc, dst.Len())
					}
					continue
				}
				if check && tc.size < tc.limit && tc.size < bufSize/2 {
					// Short, within the first half: left to the caller's size
					// check, with nothing written and nothing sniffed.
					if err != nil || n != int64(tc.size) || dst.Len() != 0 || head != nil {
						t.Errorf("%s %+v: copyFile = %d, %v, wrote %d bytes, first saw %d, want %d, nil, none, none", rname, tc, n, err, dst.Len(), len(head), tc.size)
					}
					continue
				}
				if err != nil || n != int64(tc.size) || !bytes.Equal(dst.Bytes(), src) {
					t.Errorf("%s %+v first=%v: copyFile = %d, %v, wrote %d bytes (equal: %v), want %d, nil and the body", rname, tc, check, n, err, dst.Len(), bytes.Equal(dst.Bytes(), src), tc.size)
				}
				if want := src[:min(tc.size, content.SniffLen)]; check && !bytes.Equal(head, want) {
					t.Errorf("%s %+v: first saw %d bytes, want the first %d", rname, tc, len(head), len(want))
				}
			}
		}
	}
}

// TestCopyFileFailures: the first check's error, a source that fails or
// is cut short, and a store that fails stop the copy with their errors,
// and copyFile returns only once no write is in flight.
func TestCopyFileFailures(t *testing.T) {
	const bufSize = MinBufferSize
	src := body(bufSize * 8)

	var dst recorder
	errType := errors.New("not a PNG")
	if _, err := copyFile(&dst, bytes.NewReader(src), 1<<20, make([]byte, bufSize), func([]byte) error { return errType }); err != errType {
		t.Errorf("first fails: err = %v, want its error", err)
	}
	if dst.writes != 0 {
		t.Errorf("first fails: %d writes, want none", dst.writes)
	}

	for _, cut := range []error{io.ErrUnexpectedEOF, iotest.ErrTimeout} {
		dst = recorder{}
		r := io.MultiReader(bytes.NewReader(src[:bufSize*2+100]), iotest.ErrReader(cut))
		n, err := copyFile(&dst, r, 1<<20, make([]byte, bufSize), nil)
		if !errors.Is(err, errRead) || !errors.Is(err, cut) {
			t.Errorf("source fails with %v: err = %v, want errRead wrapping it", cut, err)
		}
		if n != bufSize*2+100 {
			t.Errorf("source fails with %v: n = %d, want the %d bytes read", cut, n, bufSize*2+100)
		}
	}

	dst = recorder{failAt: bufSize * 3}
	buf := make([]byte, bufSize)
	if _, err := copyFile(&dst, bytes.NewReader(src), 1<<20, buf, nil); err != errFull {
		t.Errorf("store fails: err = %v, want its error", err)
	}
	if dst.active.Load() != 0 {
		t.Error("store fails: copyFile returned with a write in flight")
	}
	if got := dst.Len(); got > bufSize*3 || !bytes.Equal(dst.Bytes(), src[:got]) {
		t.Errorf("store fails: wrote %d bytes, not a prefix of the body up to the failure", got)
	}
}

// trickle returns n bytes a read, every gap, count times, then io.EOF;
// after that many reads it fails with err instead, if err is not nil.
type trickle struct {
	n, count int
	gap      time.Duration
	err      error
	reads    atomic.Int32
}

func (t *trickle) Read(p []byte) (int, error) {
	if int(t.reads.Load()) == t.count {
		if t.err != nil {
			return 0, t.err
		}
		return 0, io.EOF
	}
	t.reads.Add(1)
	time.Sleep(t.gap)
	return copy(p, bytes.Repeat([]byte("x"), t.n)), nil
}

// TestCopyFileStoreFirst: when the store fails, the copy stops reading at
// the next read and returns the store's error, even if the source then
// fails or sends too much; a panic in the store's Write comes back in the
// caller's goroutine.
func TestCopyFileStoreFirst(t *testing.T) {
	buf := make([]byte, MinBufferSize)
	src := &trickle{n: 512, count: 1000, gap: time.Millisecond, err: errors.New("client gone")}
	dst := recorder{failAt: 1}
	if _, err := copyFile(&dst, src, 1<<30, buf, nil); err != errFull {
		t.Errorf("store fails, then the client: err = %v, want the store's", err)
	}
	if r := src.reads.Load(); r > 10 {
		t.Errorf("store fails: %d reads after it, want the reading stopped", r)
	}

	dst = recorder{failAt: 1}
	if _, err := copyFile(&dst, bytes.NewReader(body(MinBufferSize*4)), MinBufferSize, buf, nil); err != errFull {
		t.Errorf("store fails, then the body is too large: err = %v, want the store's", err)
	}

	defer func() {
		if p := recover(); p != "store bug" {
			t.Errorf("store panics: recovered %v in the caller, want its panic", p)
		}
	}()
	copyFile(panicking{}, bytes.NewReader(body(100)), 1<<20, buf, nil)
	t.Error("store panics: copyFile returned")
}

type panicking struct{}

func (panicking) Write([]byte) (int, error) { panic("store bug") }

// TestCopyFileTrickle: bytes that trickle in reach the store at least
// every flushAfter, without waiting for a half to fill; the first write
// still holds the first content.SniffLen bytes.
func TestCopyFileTrickle(t *testing.T) {
	src := &trickle{n: 100, count: 40, gap: 25 * time.Millisecond} // 4,000 bytes in a second
	var dst recorder
	var head int
	n, err := copyFile(&dst, src, 1<<20, make([]byte, 1<<20), func(h []byte) error { head = len(h); return nil })
	if err != nil || n != 4000 || dst.Len() != 4000 {
		t.Fatalf("copyFile = %d, %v, wrote %d, want 4000, nil, 4000", n, err, dst.Len())
	}
	if dst.writes < 3 {
		t.Errorf("%d writes of a file that took a second to arrive, want one at least every %v", dst.writes, flushAfter)
	}
	if head != content.SniffLen {
		t.Errorf("first saw %d bytes, want %d", head, content.SniffLen)
	}
}

// TestBufferPool: a file of a few bytes gets a buffer of a few KiB, a big
// one the full buffer, and only full buffers are kept.
func TestBufferPool(t *testing.T) {
	p := newBufferPool(DefaultBufferSize)
	for _, tc := range []struct {
		limit int64
		want  int
	}{
		{0, MinBufferSize},
		{10, MinBufferSize},
		{100 << 10, 2 * (100<<10 + 1)},
		{DefaultBufferSize / 2, DefaultBufferSize},
		{1 << 40, DefaultBufferSize},
	} {
		b := p.get(tc.limit)
		if len(b) != tc.want {
			t.Errorf("get(%d): %d bytes, want %d", tc.limit, len(b), tc.want)
		}
		p.put(b)
	}
	a, b := p.get(1<<40), p.get(1<<40)
	if len(p.idle) != 0 || &a[0] == &b[0] {
		t.Error("two gets: want the kept buffer, then a new one")
	}
	p.put(a)
	p.put(b)
	p.put(make([]byte, MinBufferSize))
	if len(p.idle) != 2 {
		t.Errorf("%d buffers kept, want the 2 full ones", len(p.idle))
	}
}
