package transfer

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"testing/iotest"

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
			src := body(tc.size)
			in := &counting{r: wrap(bytes.NewReader(src))}
			var dst recorder
			var head []byte
			n, err := copyFile(&dst, in, int64(tc.limit), make([]byte, bufSize), func(h []byte) error {
				if dst.writes != 0 {
					t.Errorf("%s %+v: first called after %d writes", rname, tc, dst.writes)
				}
				head = append([]byte(nil), h...)
				return nil
			})
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
			if err != nil || n != int64(tc.size) || !bytes.Equal(dst.Bytes(), src) {
				t.Errorf("%s %+v: copyFile = %d, %v, wrote %d bytes (equal: %v), want %d, nil and the body", rname, tc, n, err, dst.Len(), bytes.Equal(dst.Bytes(), src), tc.size)
			}
			if want := src[:min(tc.size, content.SniffLen)]; !bytes.Equal(head, want) {
				t.Errorf("%s %+v: first saw %d bytes, want the first %d", rname, tc, len(head), len(want))
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
