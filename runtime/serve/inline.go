package serve

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// This file is the fast path of inline files on the serving side: each
// message a client sends is read here once, and a tools/call of a tool
// added with runtime.AddTool reaches the go-sdk with its files already
// decoded and checked, each replaced by a short reference (package
// inline). A message is read whole before the SDK sees any of it, within
// the same request limit; what is longer goes to the SDK as it came.
// A stdio line, and an HTTP body of unknown length, is read a piece at a
// time into a buffer read into again, each long run of base64 decoded as
// it comes (inline.Reading): the message itself stays small, and a
// file's bytes are held once, where they will stay. An HTTP body of a
// declared length is read into one buffer of that length, where its
// files are decoded in place (readBody says why).

// inlineHTTP is the MCP endpoint h with the fast path on POST bodies of
// at most limit bytes. The references of a request are forgotten when h
// has answered it; those of an answer to an elicitation/create, which
// the call that asked takes, when that call has read it (see
// inline.Elicitation).
func inlineHTTP(s *mcp.Server, limit int64, answers inline.AnswerLimits, h http.Handler) http.Handler {
	files, forms, asked := inline.ToolFiles(s), inline.ToolForms(s), inline.NewAskedWithin(answers)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session := r.Header.Get("Mcp-Session-Id")
		if session != "" {
			// The server's requests of a session, elicitation/create among
			// them, go to the client in the responses to its requests.
			w = &askingWriter{ResponseWriter: w, asked: asked, session: session}
		}
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody || r.ContentLength > limit {
			h.ServeHTTP(w, r)
			return
		}
		body, sp, err := readBody(r.Body, r.ContentLength, limit)
		if err != nil {
			// Too long, or cut: the SDK reads the same bytes and answers
			// as it does without the fast path.
			r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
			h.ServeHTTP(w, r)
			return
		}
		conn := inline.Conn{Files: files, Forms: forms}
		if session != "" {
			conn.Asked, conn.Session = asked, session
		}
		// body is the files' own now (decoded in place), or else r's as it came.
		out, sc, _ := inline.RewriteSpliced(body, sp, conn)
		defer sc.Close()
		r.Body = io.NopCloser(bytes.NewReader(out))
		r.ContentLength = int64(len(out))
		h.ServeHTTP(w, r)
	})
}

// An askingWriter is the http.ResponseWriter of a request in a session,
// which notes the elicitation/create requests of Elicit the server sends
// in it (inline.Asked), and writes them without their elicitation's key:
// the SDK writes each message, an event of a stream or a JSON body, at
// once.
type askingWriter struct {
	http.ResponseWriter
	asked   *inline.Asked
	session string
}

func (w *askingWriter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte(`"elicitation/create"`)) {
		return w.ResponseWriter.Write(p)
	}
	// An event: "data: " and the message on one line. (A JSON body, whose
	// length may be declared, carries a response, not a request.)
	i := bytes.Index(p, []byte("data: "))
	if i < 0 || (i > 0 && p[i-1] != '\n') {
		return w.ResponseWriter.Write(p)
	}
	start, end := i+len("data: "), len(p)
	if j := bytes.IndexByte(p[start:], '\n'); j >= 0 {
		end = start + j
	}
	msg := w.asked.Sent(w.session, p[start:end])
	if len(msg) == end-start {
		return w.ResponseWriter.Write(p)
	}
	out := make([]byte, 0, len(p)-(end-start)+len(msg))
	out = append(append(append(out, p[:start]...), msg...), p[end:]...)
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the ResponseWriter, for http.ResponseController.
func (w *askingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type readCloser struct {
	io.Reader
	io.Closer
}

// errTooLong is readBody's error for a body over its limit.
var errTooLong = &http.MaxBytesError{}

// readBody reads the whole body of n bytes (-1: unknown), or returns what
// it read, as it came, and an error when there are more than limit or
// reading fails. A body of a declared length is read into one buffer of
// that length, where the files are then decoded in place: the buffer of
// the call before, of the same length, is there to be read into again,
// where anything else a call allocates costs fresh memory (BENCHMARKS.md
// §10). A body of unknown length is read a piece at a time, each long run
// of base64 decoded as it comes (inline.Reading), so that it is never held
// in a buffer that grows by doubling; those runs are the splices.
func readBody(body io.Reader, n, limit int64) ([]byte, []inline.Splice, error) {
	if n >= 0 && n <= limit {
		b := make([]byte, n)
		k, err := io.ReadFull(body, b)
		if err != nil {
			return b[:k], nil, err
		}
		var one [1]byte
		if k, _ := body.Read(one[:]); k > 0 { // more than declared: leave it to the SDK
			return append(b, one[0]), nil, errTooLong
		}
		return b, nil, nil
	}
	m := inline.NewReading()
	bp := bodyBuffers.Get().(*[]byte)
	defer bodyBuffers.Put(bp)
	for {
		k, err := body.Read(*bp)
		m.Write((*bp)[:k])
		switch {
		case m.Len() > limit:
			err = errTooLong
		case err == io.EOF:
			msg, sp := m.Done()
			return msg, sp, nil
		}
		if err != nil {
			return inline.Expand(m.Done()), nil, err
		}
	}
}

// bodyBuffers are the buffers a body of unknown length is read through.
var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, bodyBuffer); return &b }}

// bodyBuffer is how much of a body of unknown length is read at a time.
const bodyBuffer = 256 << 10

// inlineIO is the fast path of one stdio connection: a reader of the
// client's messages, one a line, and a writer of the server's, which
// forgets a request's references once its response is written.
type inlineIO struct {
	conn  inline.Conn
	limit int // the line limit

	mu   sync.Mutex
	live map[string]*inline.Scope // by request id (see idKey)
}

func newInlineIO(s *mcp.Server, limit int, answers inline.AnswerLimits) *inlineIO {
	conn := inline.Conn{Files: inline.ToolFiles(s), Forms: inline.ToolForms(s), Asked: inline.NewAskedWithin(answers)}
	return &inlineIO{conn: conn, limit: limit, live: map[string]*inline.Scope{}}
}

// closeAll forgets every reference of the connection.
func (c *inlineIO) closeAll() {
	c.mu.Lock()
	live := c.live
	c.live = map[string]*inline.Scope{}
	c.mu.Unlock()
	for _, sc := range live {
		sc.Close()
	}
}

// idKey is inline.IDKey.
func idKey(id []byte) string { return inline.IDKey(id) }

// reader returns the reader of the client's messages from r.
func (c *inlineIO) reader(r io.ReadCloser) io.ReadCloser {
	return &inlineReader{c: c, r: r}
}

// writer returns the writer of the server's messages to w.
func (c *inlineIO) writer(w io.WriteCloser) io.WriteCloser {
	return &inlineWriter{c: c, w: w}
}

// An inlineReader reads the client's messages, each a line, and hands
// each to the SDK as inline.RewriteSpliced returns it; a line longer than
// the limit, and anything after the last newline, as they came.
type inlineReader struct {
	c        *inlineIO
	r        io.ReadCloser
	rb       []byte          // what is read into, again once its bytes are taken
	pos, end int             // rb[pos:end]: read, not taken yet
	line     *inline.Reading // the line being read; nil between lines
	out      []byte          // to hand over
	raw      bool            // inside a line over the limit: handing it over as it comes
	err      error
}

const (
	// readChunk is how much is read at a time, and bigRead once a line
	// is long: what a widened pipe holds (see widenPipe).
	readChunk = 64 << 10
	bigRead   = 1 << 20
)

func (l *inlineReader) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if !l.fill() {
			if l.line != nil && l.line.Len() > 0 { // a last line without a newline
				l.out = inline.Expand(l.line.Done())
				l.line = nil
				break
			}
			l.c.closeAll()
			return 0, l.err
		}
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	return n, nil
}

// fill makes the next line (or, over the limit, the next piece of one)
// ready to hand over, reading as much as that takes; it returns false
// when reading failed first.
func (l *inlineReader) fill() bool {
	limit := int64(l.c.limit)
	for {
		if l.pos < l.end {
			data := l.rb[l.pos:l.end]
			i := bytes.IndexByte(data, '\n')
			if l.raw {
				// The rest of a line over the limit, as it comes: rb is not
				// read into again before out is handed over.
				if i >= 0 {
					data, l.raw = data[:i+1], false
				}
				l.pos += len(data)
				l.out = data
				return true
			}
			if l.line == nil {
				l.line = inline.NewReading()
			}
			if i >= 0 {
				l.line.Write(data[:i+1])
				l.pos += i + 1
				over := l.line.Len() > limit
				msg, sp := l.line.Done()
				l.line = nil
				if over {
					// Over the limit, read whole: as it came.
					l.out = inline.Expand(msg, sp)
				} else {
					// The line is its own: the files taken from it live in it.
					l.out = l.c.rewrite(msg, sp)
				}
				return true
			}
			l.line.Write(data)
			l.pos = l.end
			if l.line.Len() > limit {
				l.raw = true
				l.out = inline.Expand(l.line.Done())
				l.line = nil
				return true
			}
		}
		if l.err != nil {
			return false
		}
		switch {
		case l.rb == nil:
			l.rb = make([]byte, readChunk)
		case len(l.rb) < bigRead && l.line != nil && l.line.Len() >= bigRead:
			l.rb = make([]byte, bigRead)
		}
		n, err := l.r.Read(l.rb)
		l.pos, l.end, l.err = 0, n, err
	}
}

// rewrite is inline.RewriteSpliced for a line of the connection.
func (c *inlineIO) rewrite(line []byte, sp []inline.Splice) []byte {
	out, sc, id := inline.RewriteSpliced(line, sp, c.conn)
	if sc == nil {
		return out
	}
	key := idKey(id)
	c.mu.Lock()
	_, dup := c.live[key]
	if !dup && key != "" {
		c.live[key] = sc
	}
	c.mu.Unlock()
	if dup || key == "" {
		// The SDK refuses a request whose id is in use, and then answers
		// no request of that id: its references would never be forgotten.
		sc.Close()
	}
	return out
}

func (l *inlineReader) Close() error {
	l.c.closeAll()
	return l.r.Close()
}

// An inlineWriter writes the server's messages, each a line that the SDK
// writes at once, and forgets the references of the request a response
// answers. It notes Elicit's elicitation/create requests (inline.Asked),
// and writes them without their elicitation's key.
type inlineWriter struct {
	c *inlineIO
	w io.WriteCloser
}

func (w *inlineWriter) Write(p []byte) (int, error) {
	n := len(p)
	if bytes.Contains(p, []byte(`"elicitation/create"`)) {
		p = w.c.conn.Asked.Sent("", p)
	}
	w.c.mu.Lock()
	live := len(w.c.live) > 0
	w.c.mu.Unlock()
	if live {
		w.forget(p)
	}
	k, err := w.w.Write(p)
	if len(p) != n { // without an elicitation's key: what the SDK wrote is n bytes
		if err != nil {
			return 0, err
		}
		return n, nil
	}
	return k, err
}

// forget forgets the references of the requests that the responses in p,
// a message or a batch, answer.
func (w *inlineWriter) forget(p []byte) {
	var ids []string
	one := func(msg []byte) {
		if id, ok := responseID(msg); ok {
			ids = append(ids, idKey(id))
		}
	}
	i := jsonwalk.SkipWS(p, 0)
	if i < len(p) && p[i] == '[' {
		jsonwalk.WalkArray(jsonwalk.TrimWS(p), func(elem []byte) bool { one(elem); return true })
	} else {
		one(p)
	}
	w.c.mu.Lock()
	var done []*inline.Scope
	for _, k := range ids {
		if sc, ok := w.c.live[k]; ok {
			done = append(done, sc)
			delete(w.c.live, k)
		}
	}
	w.c.mu.Unlock()
	for _, sc := range done {
		sc.Close()
	}
}

func (w *inlineWriter) Close() error { return w.w.Close() }

// responseID returns the raw id of msg when it is a response. The SDK
// writes "jsonrpc" and "id" first, then "result" or "error" (or, in a
// request, "method"): only that much of msg is read.
func responseID(msg []byte) (id []byte, ok bool) {
	i := jsonwalk.SkipWS(msg, 0)
	if i == len(msg) || msg[i] != '{' {
		return nil, false
	}
	i = jsonwalk.SkipWS(msg, i+1)
	for range 3 {
		if i == len(msg) || msg[i] != '"' {
			return nil, false
		}
		end, ok := jsonwalk.ScanString(msg, i)
		if !ok {
			return nil, false
		}
		key := string(msg[i:end])
		i = jsonwalk.SkipWS(msg, end)
		if i == len(msg) || msg[i] != ':' {
			return nil, false
		}
		i = jsonwalk.SkipWS(msg, i+1)
		switch key {
		case `"result"`, `"error"`:
			return id, id != nil
		case `"jsonrpc"`, `"id"`:
		default:
			return nil, false
		}
		end, ok = jsonwalk.ScanValue(msg, i, 1)
		if !ok {
			return nil, false
		}
		if key == `"id"` {
			id = msg[i:end]
		}
		i = jsonwalk.SkipWS(msg, end)
		if i == len(msg) || msg[i] != ',' {
			return nil, false
		}
		i = jsonwalk.SkipWS(msg, i+1)
	}
	return nil, false
}
