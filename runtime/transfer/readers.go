package transfer

// The readers and writers an upload's body passes through: the bounds of
// a multipart preamble, the report of a cut body as its end, and the count
// of bytes received. (The deadlines and the rate are pace.go's.)

import (
	"errors"
	"io"
	"sync/atomic"
)

// readHead reads the first n bytes of r, or all of a shorter r; an error
// other than r's end is returned (a multipart part cut short ends with
// io.ErrUnexpectedEOF, which is such an error).
func readHead(r io.Reader, n int) ([]byte, error) {
	head := make([]byte, n)
	got := 0
	for got < n {
		m, err := r.Read(head[got:])
		got += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return head[:got], err
		}
	}
	return head[:got], nil
}

// A preambleReader reads at most left bytes, then fails and sets hit;
// with left < 0 it reads without limit.
type preambleReader struct {
	r    io.Reader
	left int64
	hit  bool
}

var errPreamble = errors.New("multipart preamble too long")

func (p *preambleReader) Read(b []byte) (int, error) {
	if p.left < 0 {
		return p.r.Read(b)
	}
	if p.left == 0 {
		p.hit = true
		return 0, errPreamble
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, err := p.r.Read(b)
	p.left -= int64(n)
	return n, err
}

// endAtCut reads r, reporting a body cut short (io.ErrUnexpectedEOF, as
// net/http's and mime/multipart's readers do) as its end: the size check
// then says how much of the declared size arrived.
type endAtCut struct{ r io.Reader }

func (e endAtCut) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return n, err
}

// A countingWriter counts the bytes written through it into n.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (cw *countingWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n.Add(int64(n))
	return n, err
}
