package transfer

// The readers and writers an upload's body passes through: the bounds of
// a multipart preamble, the idle and overall deadlines, the report of a
// cut body as its end, and the count of bytes received.

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
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

// A deadlineReader fails reads after deadline: an upload that started
// before its page expired has until then to finish.
type deadlineReader struct {
	r        io.Reader
	now      func() time.Time
	deadline time.Time
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if !d.now().Before(d.deadline) {
		return 0, errors.New("the upload's deadline passed")
	}
	return d.r.Read(p)
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

// An idleReader moves the connection's read deadline idle ahead before
// each read.
type idleReader struct {
	r    io.Reader
	rc   *http.ResponseController
	idle time.Duration
	off  bool // the connection has no deadlines
}

func (d *idleReader) Read(p []byte) (int, error) {
	if !d.off {
		if err := d.rc.SetReadDeadline(time.Now().Add(d.idle)); err != nil {
			d.off = true
		}
	}
	return d.r.Read(p)
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
