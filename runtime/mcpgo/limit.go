package mcpgo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	mcpfile "github.com/mcpfile/mcpfile/runtime"
)

// MaxRequestBytesFor returns the request size limit for s as its tools
// stand: runtime.RequestBytes of the input schema of each tool added to s
// with [AddTool], counted together with every one of forms, the schemas of
// the forms its tools elicit with [Elicit] (a 2026-07-28 client answers a
// form in the retry of the call, so one request carries the tool's files
// and the form's), that is the largest request one of them takes with
// every file at its maxSize (base64 growth, the URI prefix and JSON
// overhead included), and never less than 4 MiB, the go-sdk's default.
// Call it once the tools are added, and hold the transport to it with
// [LimitBody] or [LimitLines].
func MaxRequestBytesFor(s *server.MCPServer, forms ...json.RawMessage) (int64, error) {
	limit, err := mcpfile.MaxRequestBytes()
	if err != nil {
		return 0, fmt.Errorf("mcpgo.MaxRequestBytesFor: %w", err)
	}
	for _, schema := range append([]json.RawMessage{nil}, record(s).getSchemas()...) {
		one := forms
		if schema != nil {
			one = append([]json.RawMessage{schema}, forms...)
		}
		n, err := mcpfile.RequestBytes(one...)
		if err != nil {
			return 0, fmt.Errorf("mcpgo.MaxRequestBytesFor: %w", err)
		}
		limit = max(limit, n)
	}
	return limit, nil
}

// LimitBody returns h, such as mcp-go's *server.StreamableHTTPServer,
// with request bodies limited to limit bytes, as the go-sdk's
// MaxRequestBodyBytes limits them (mcp-go reads a body whole, however
// long). A body that declares a longer Content-Length is refused with
// 413 Request Entity Too Large and "request body exceeds N bytes" before
// a byte of it is read; one of unknown length is cut at the limit, which
// mcp-go answers with 400 and a JSON-RPC parse error ("read request body
// error: http: request body too large").
func LimitBody(h http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		h.ServeHTTP(w, r)
	})
}

// LimitLines returns a reader of r, for mcp-go's stdio server
// (server.NewStdioServer(s).Listen(ctx, mcpgo.LimitLines(os.Stdin, limit),
// os.Stdout)), that fails with a [*LineTooLongError] at a line longer
// than limit bytes, its newline not counted: each JSON-RPC message on
// stdio is one line, and mcp-go reads a line whole, however long. The
// lines before it are read as they are, and at most limit bytes of the
// long one, never its end; the stdio server ends the session at the
// error, as a go-sdk server does at a line over its limit.
func LimitLines(r io.Reader, limit int64) io.Reader {
	return &lineLimiter{r: r, limit: limit}
}

// LineTooLongError is the error of a reader made by [LimitLines] at a
// line longer than its limit.
type LineTooLongError struct {
	Limit int64
}

// Error returns the text of e.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("a line of the input exceeds %d bytes", e.Limit)
}

type lineLimiter struct {
	r     io.Reader
	limit int64
	n     int64 // the bytes of the current line read so far
	err   error // set at a line over the limit, returned from then on
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	k, err := l.r.Read(p)
	rest, done := p[:k], 0 // done: the bytes of the lines that ended within the limit
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.n += int64(len(rest))
		} else {
			l.n += int64(i)
		}
		if l.n > l.limit {
			l.err = &LineTooLongError{Limit: l.limit}
			return done, l.err
		}
		if i < 0 {
			break
		}
		l.n = 0
		done += i + 1
		rest = rest[i+1:]
	}
	return k, err
}
