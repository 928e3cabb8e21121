package client

// The streamable HTTP side of WrapTransport. go-sdk tells a streamable
// HTTP connection when the session is initialized, through a method of
// its own that a wrapper of the connection cannot forward (it is
// unexported); without it the connection never opens its standalone
// stream, and the notifications and requests a server sends outside a
// call (notifications/elicitation/complete after a -32042, list changes)
// never arrive. So for a *mcp.StreamableClientTransport the rewriting is
// done under the SDK, in its HTTP client: request bodies going out,
// JSON answers and the events of SSE streams coming in.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wrapStreamable returns a copy of t whose HTTP client rewrites messages
// as fileBlockConn does.
func wrapStreamable(t *mcp.StreamableClientTransport, c *fileBlockConn) *mcp.StreamableClientTransport {
	cp := *t
	hc := http.Client{}
	if t.HTTPClient != nil {
		hc = *t.HTTPClient
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	limit := t.MaxEventSize
	if limit == 0 {
		limit = mcp.DefaultMaxEventSize
	}
	hc.Transport = &fileBlockRoundTripper{next: next, c: c, maxEvent: limit}
	cp.HTTPClient = &hc
	return &cp
}

type fileBlockRoundTripper struct {
	next http.RoundTripper
	c    *fileBlockConn // its rewrite and seen; its Connection is nil
	// maxEvent is the transport's bound on an event (MaxEventSize; < 0:
	// none): an event that grows past it is passed on as it came, for the
	// SDK to refuse, and is not held whole here.
	maxEvent int
}

func (rt *fileBlockRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if out, ok := outgoing(b); ok {
			b = out
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.ContentLength = int64(len(b))
		req.Header.Set("Content-Length", strconv.Itoa(len(b)))
	}
	res, err := rt.next.RoundTrip(req)
	if err != nil || res.Body == nil {
		return res, err
	}
	switch mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt {
	case "application/json":
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		if out, ok := rt.c.incoming(b); ok {
			b = out
		}
		res.Body = io.NopCloser(bytes.NewReader(b))
		res.ContentLength = int64(len(b))
		res.Header.Del("Content-Length")
	case "text/event-stream":
		res.Body = &sseRewriter{r: bufio.NewReaderSize(res.Body, 64<<10), body: res.Body, c: rt.c, max: rt.maxEvent}
	}
	return res, nil
}

// outgoing is the JSON-RPC message b with the files capability copied
// where SEP-2631 puts it (see withFiles), or false when nothing changed.
func outgoing(b []byte) ([]byte, bool) {
	if !bytes.Contains(b, []byte(`"files"`)) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m["method"] == nil || m["params"] == nil {
		return nil, false
	}
	p, ok := withFiles(m["params"])
	if !ok {
		return nil, false
	}
	m["params"] = p
	out, err := json.Marshal(m)
	return out, err == nil
}

// incoming is the JSON-RPC message b with the file blocks of its result
// made resource links (see rewrite), or false when nothing changed.
func (c *fileBlockConn) incoming(b []byte) ([]byte, bool) {
	if !bytes.Contains(b, []byte(`"file"`)) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m["result"] == nil {
		return nil, false
	}
	res, ok := c.rewrite(m["result"])
	if !ok {
		return nil, false
	}
	m["result"] = res
	out, err := json.Marshal(m)
	return out, err == nil
}

// An sseRewriter is a text/event-stream body whose events' data, each a
// JSON-RPC message, are rewritten by incoming. It reads one event at a
// time, as the SDK reads them: the stream may stay open for the session.
type sseRewriter struct {
	r    *bufio.Reader
	body io.ReadCloser
	c    *fileBlockConn
	max  int    // the most bytes of an event held (< 0: no bound)
	out  []byte // rewritten, not yet read
	err  error  // of the body, once out is empty
	// through: an event grew past max; the rest of the stream is passed
	// on as it comes.
	through bool
}

func (s *sseRewriter) Read(p []byte) (int, error) {
	if s.through && len(s.out) == 0 {
		return s.r.Read(p)
	}
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.next()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

func (s *sseRewriter) Close() error { return s.body.Close() }

// next reads one event (its lines up to a blank one) into out: as it
// came, or when incoming rewrote its data, its fields other than data as
// they came, then the new data on one line. An event cut short by the end
// of the body goes as it came; one that grows past max goes as it came,
// and so does the rest of the stream.
func (s *sseRewriter) next() {
	var raw, fields, data []byte
	hasData := false
	start := 0 // of the line being read, in raw
	for {
		chunk, err := s.r.ReadSlice('\n')
		raw = append(raw, chunk...)
		if s.max >= 0 && len(raw) > s.max {
			s.out, s.through = raw, true
			return
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line := raw[start:]
		start = len(raw)
		if err != nil {
			s.out, s.err = raw, err
			return
		}
		text := bytes.TrimRight(line, "\r\n")
		if len(text) == 0 { // the event's end
			s.out = raw
			if hasData {
				if out, ok := s.c.incoming(data); ok {
					s.out = append(append(fields, dataLines(out)...), '\n')
				}
			}
			return
		}
		if v, ok := bytes.CutPrefix(text, []byte("data:")); ok {
			v = bytes.TrimPrefix(v, []byte(" "))
			if hasData { // a copy, which raw's bytes are not written over by
				data = append(append(data[:len(data):len(data)], '\n'), v...)
			} else { // the usual one line, not copied
				data = v
			}
			hasData = true
			continue
		}
		fields = append(fields, line...)
	}
}

// dataLines is data as the data field lines of an event.
func dataLines(data []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		out = append(append(append(out, "data: "...), l...), '\n')
	}
	return out
}
