package mcpgo

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/mcpfile/mcpfile/runtime/internal/fileserve"
)

// Stdio returns the reader and writer to give mcp-go's StdioServer.Listen
// instead of in and out, so that files/authorizeUpload and
// files/authorizeDownload are answered on stdio: each such request line is
// taken out of what mcp-go reads and answered here, its response written
// to out whole, never inside a line of mcp-go's (whose writes go through
// the returned writer, a line at a time). An initialize request's files
// capability is copied where mcp-go keeps it, as [Files.HTTP] does. A
// line longer than 64 KiB is passed on as it comes, not copied whole (an
// authorize request that long is answered as mcp-go answers a method it
// does not know). ctx is
// the context given to Listen: [FilesOptions.Principal] reads the caller
// from it.
//
//	in, out := files.Stdio(ctx, mcpgo.LimitLines(os.Stdin, limit), os.Stdout)
//	err := server.NewStdioServer(s).Listen(ctx, in, out)
func (f *Files) Stdio(ctx context.Context, in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	w := &lineWriter{w: out}
	return &stdioReader{ctx: ctx, f: f, in: bufio.NewReaderSize(in, maxPeekBytes), out: w}, w
}

// A stdioReader hands mcp-go the lines of a client's messages, but for
// the requests it answers itself.
type stdioReader struct {
	ctx     context.Context
	f       *Files
	in      *bufio.Reader
	out     *lineWriter
	pending []byte // what is left of the line being read
	midLine bool   // pending is part of a line longer than maxPeekBytes
	err     error  // the error after pending
}

func (r *stdioReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		chunk, err := r.in.ReadSlice('\n') // valid until the next ReadSlice, once pending is read
		switch {
		case err == bufio.ErrBufferFull:
			// A line longer than maxPeekBytes, such as a tools/call with
			// files inline: no request taken here, so it goes on as it
			// comes, not copied whole.
			r.pending, r.midLine = chunk, true
		case r.midLine: // the end of such a line
			r.pending, r.midLine, r.err = chunk, false, err
		default:
			r.err = err
			if len(chunk) > 0 {
				r.pending = r.take(chunk)
			}
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// take returns line as mcp-go is to read it: nothing for a request
// answered here, a copy with the files capability kept for initialize.
func (r *stdioReader) take(line []byte) []byte {
	if m, ok := authorizeRequest(line); ok {
		from := r.f.sender(r.ctx, "", metaFiles(m.meta()))
		res, rerr := r.f.svc.Authorize(r.ctx, from, m.Method, m.Params)
		msg, _ := response(m.ID, res, rerr)
		r.out.writeLine(msg)
		return nil
	}
	if bytes.Contains(line, []byte(`"initialize"`)) {
		if nb, ok := fileserve.KeepFiles(bytes.TrimSpace(line)); ok {
			return append(nb, '\n')
		}
	}
	return line
}

// A lineWriter writes whole lines to w, one writer at a time: a write
// that ends inside a line is held until the line is complete.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte // the start of a line not yet written
	err error  // the first failed write
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, l.err
	}
	if len(l.buf) == 0 && len(p) > 0 && p[len(p)-1] == '\n' {
		if _, err := l.w.Write(p); err != nil {
			l.err = err
			return 0, err
		}
		return len(p), nil
	}
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		_, err := l.w.Write(l.buf[:i+1])
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
		if err != nil {
			l.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// writeLine writes msg, a line, whole.
func (l *lineWriter) writeLine(msg []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.w.Write(msg)
	}
}
