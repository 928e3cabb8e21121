package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession speaks MCP's streamable HTTP transport by hand (protocol
// 2025-11-25, with a session), so that it can send what no SDK client would.
type rawSession struct {
	url, id string
	hc      *http.Client
	next    int
}

const rawProtocol = "2025-11-25"

func newRawSession(t *testing.T, url string) *rawSession {
	t.Helper()
	s := &rawSession{url: url, hc: &http.Client{Timeout: 30 * time.Second}, next: 1}
	o := s.post(s.request("initialize", fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}`, rawProtocol)))
	if o.status != 200 || o.session == "" {
		t.Fatalf("raw initialize: %s", o)
	}
	s.id = o.session
	if o := s.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); o.status != http.StatusAccepted {
		t.Fatalf("raw notifications/initialized: %s", o)
	}
	return s
}

// close ends the session (DELETE), as a client going away should.
func (s *rawSession) close() {
	req, _ := http.NewRequest("DELETE", s.url, nil)
	s.header(req.Header)
	if resp, err := s.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

func (s *rawSession) request(method, params string) []byte {
	s.next++
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.next, method, params)
}

// call builds a tools/call request with args as its raw arguments object.
func (s *rawSession) call(tool string, args []byte) []byte {
	return s.request("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
}

func (s *rawSession) header(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", rawProtocol)
	if s.id != "" {
		h.Set("Mcp-Session-Id", s.id)
	}
}

func (s *rawSession) post(body []byte) outcome {
	return s.postReader(bytes.NewReader(body), int64(len(body)))
}

func (s *rawSession) postReader(body io.Reader, length int64) outcome {
	req, err := http.NewRequest("POST", s.url, body)
	if err != nil {
		return outcome{err: err}
	}
	req.ContentLength = length
	s.header(req.Header)
	resp, err := s.hc.Do(req)
	if err != nil {
		return outcome{err: err}
	}
	defer resp.Body.Close()
	return readOutcome(resp)
}

// outcome is what came back for one request.
type outcome struct {
	err     error // transport error: no HTTP response
	status  int
	session string
	body    string // a plain (non JSON-RPC) body, trimmed
	rpcErr  *struct {
		Code    int
		Message string
	}
	result *callResult
	raw    []byte // the JSON-RPC response
	note   string // added to the table
}

func readOutcome(resp *http.Response) outcome {
	o := outcome{status: resp.StatusCode, session: resp.Header.Get("Mcp-Session-Id")}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"id"`) {
				b = []byte(d)
			}
		}
	}
	o.parse(b)
	return o
}

// parse reads b as a JSON-RPC response, or keeps it as a plain body.
func (o *outcome) parse(b []byte) {
	var msg struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if json.Unmarshal(b, &msg) == nil && (msg.Result != nil || msg.Error != nil) {
		o.raw, o.rpcErr = b, msg.Error
		if msg.Result != nil {
			var r callResult
			if json.Unmarshal(msg.Result, &r) == nil && r.Content != nil {
				o.result = &r
			}
		}
		return
	}
	o.body = strings.TrimSpace(string(b))
}

// String is the outcome as the table shows it.
func (o outcome) String() string { return o.describe() + o.note }

func (o outcome) describe() string {
	cut := func(s string) string {
		if len(s) > 160 {
			return s[:160] + "…"
		}
		return s
	}
	switch {
	case o.err != nil:
		return "no response: " + cut(o.err.Error())
	case o.rpcErr != nil:
		return fmt.Sprintf("%sJSON-RPC error %d %q", o.http(), o.rpcErr.Code, cut(o.rpcErr.Message))
	case o.result != nil:
		return fmt.Sprintf("%stool result isError=%v %q", o.http(), o.result.IsError, cut(o.result.text()))
	case o.raw != nil:
		return fmt.Sprintf("%sJSON-RPC result %s", o.http(), cut(string(o.raw)))
	default:
		return fmt.Sprintf("HTTP %d %q", o.status, cut(o.body))
	}
}

// http is the status, for outcomes that came over HTTP.
func (o outcome) http() string {
	if o.status == 0 {
		return ""
	}
	return fmt.Sprintf("HTTP %d, ", o.status)
}

// rawConn sends a request's header and a part of its body over a bare TCP
// connection, then ends it as told, and reads what comes back (bounded).
func rawConn(url, id string, declared int64, body io.Reader, end string) outcome {
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return outcome{err: err}
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	h := http.Header{}
	(&rawSession{id: id}).header(h)
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", addr, declared)
	h.Write(&req)
	req.WriteString("\r\n")
	if _, err := c.Write(req.Bytes()); err != nil {
		return outcome{err: err}
	}
	written := make(chan int64, 1)
	go func() { // the server may answer before it has read it all
		n, _ := io.Copy(c, body)
		written <- n
	}()
	switch end {
	case "close": // vanish mid-upload
		n := <-written
		return outcome{err: fmt.Errorf("client closed the connection after %d of %d bytes", n, declared)}
	case "half-close": // say no more will come
		<-written
		c.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return outcome{err: err}
	}
	defer resp.Body.Close()
	return readOutcome(resp)
}

// stalledBody yields prefix, then blocks until release is closed, then fails.
type stalledBody struct {
	prefix  io.Reader
	release chan struct{}
}

func (b *stalledBody) Read(p []byte) (int, error) {
	if n, err := b.prefix.Read(p); n > 0 || err != io.EOF {
		return n, err
	}
	<-b.release
	return 0, io.ErrUnexpectedEOF
}

// hostileCase is one row of the table.
type hostileCase struct {
	name  string
	run   func() outcome
	check func(o outcome) error // nil: the outcome is recorded, not judged
}

// TestHostile sends malformed, oversized, truncated, abandoned and
// adversarial requests to the server over raw HTTP, with a well-behaved
// go-sdk client calling between every two cases and after the last. Each
// case's outcome is checked and printed as a table (go test -v).
func TestHostile(t *testing.T) {
	tg := bothTarget(t)
	srv := httptest.NewServer(tg.handler)
	defer srv.Close()
	base := settledGoroutines(0, time.Second)
	heap := startHeapSampler()

	// The well-behaved client, connected throughout.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	good, err := mcp.NewClient(&mcp.Implementation{Name: "good", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	goodPNG := noisePNG(1 << 20)
	goodURI, goodSum := dataURI("image/png", goodPNG), sha256Hex(goodPNG)
	wellBehaved := func(after string) {
		t.Helper()
		r, err := good.CallTool(ctx, &mcp.CallToolParams{Name: tg.imageTool, Arguments: map[string]any{tg.imageArg: goodURI}})
		if err != nil {
			t.Errorf("well-behaved call after %q: %v", after, err)
			return
		}
		if b, _ := json.Marshal(r); r.IsError || !bytes.Contains(b, []byte(goodSum)) {
			t.Errorf("well-behaved call after %q: wrong answer: %.300s", after, b)
		}
	}
	wellBehaved("connect")

	s := newRawSession(t, srv.URL)
	var abandoned *rawSession
	imageArgs := func(uri string) []byte {
		b, _ := json.Marshal(map[string]string{tg.imageArg: uri})
		return b
	}
	isToolError := func(want ...string) func(outcome) error {
		return func(o outcome) error {
			if o.result == nil || !o.result.IsError {
				return fmt.Errorf("want an isError tool result")
			}
			for _, w := range want {
				if !strings.Contains(o.result.text(), w) {
					return fmt.Errorf("want text containing %q", w)
				}
			}
			return nil
		}
	}
	isHTTP := func(codes ...int) func(outcome) error {
		return func(o outcome) error {
			for _, c := range codes {
				if o.status == c && o.result == nil {
					return nil
				}
			}
			return fmt.Errorf("want HTTP status %v", codes)
		}
	}
	isRPCError := func(code int) func(outcome) error {
		return func(o outcome) error {
			if o.rpcErr == nil || o.rpcErr.Code != code {
				return fmt.Errorf("want JSON-RPC error %d", code)
			}
			return nil
		}
	}
	rejected := func(o outcome) error {
		if o.err == nil && o.status == 200 && o.result != nil && !o.result.IsError {
			return fmt.Errorf("want a rejection, got a successful call")
		}
		return nil
	}
	maxFiles := tg.docsMaxFiles

	cases := []hostileCase{
		{
			name: fmt.Sprintf("body over the limit (limit %d bytes; body 1 MiB more, Content-Length true)", tg.maxBody),
			run: func() outcome {
				return s.post(s.call(tg.imageTool, imageArgs(dataURI("image/png", make([]byte, tg.maxBody*3/4+1<<20)))))
			},
			check: isHTTP(http.StatusRequestEntityTooLarge),
		},
		{
			name: "Content-Length 1 GiB, body streamed past the limit",
			run: func() outcome {
				prefix := s.call(tg.imageTool, []byte(`{"`+tg.imageArg+`":"data:image/png;base64,`))
				prefix = prefix[:bytes.LastIndexByte(prefix, '"')+1]
				body := io.MultiReader(bytes.NewReader(prefix), io.LimitReader(repeatReader('A'), tg.maxBody+(4<<20)))
				return rawConn(srv.URL, s.id, 1<<30, body, "stream")
			},
			check: isHTTP(http.StatusRequestEntityTooLarge),
		},
		{
			name: "Content-Length 1 GiB, 1 MiB sent, then the client stalls (5 s) and goes",
			run: func() outcome {
				prefix := s.call(tg.imageTool, []byte(`{"`+tg.imageArg+`":"data:image/png;base64,`+strings.Repeat("A", 1<<20)))
				release := make(chan struct{})
				time.AfterFunc(5*time.Second, func() { close(release) })
				done := make(chan outcome, 1)
				go func() { done <- s.postReader(&stalledBody{bytes.NewReader(prefix), release}, 1<<30) }()
				time.Sleep(500 * time.Millisecond)
				wellBehaved("(during the stall)") // served while the upload hangs
				return <-done
			},
			check: func(o outcome) error {
				if o.err == nil {
					return fmt.Errorf("want the client's own abort")
				}
				return nil
			},
		},
		{
			name: "truncated body (Content-Length 2 MiB, 1 MiB sent, write side closed)",
			run: func() outcome {
				b := s.call(tg.imageTool, imageArgs(dataURI("image/png", goodPNG)))
				return rawConn(srv.URL, s.id, 2<<20, bytes.NewReader(b[:1<<20]), "half-close")
			},
			check: isHTTP(http.StatusBadRequest),
		},
		{
			name: "client disconnects mid-upload (4 MiB of 7 MiB sent, connection closed)",
			run: func() outcome {
				b := s.call(tg.imageTool, imageArgs(dataURI("image/png", make([]byte, 5<<20))))
				return rawConn(srv.URL, s.id, int64(len(b)), bytes.NewReader(b[:4<<20]), "close")
			},
		},
		{
			name:  "malformed JSON (cut off mid-object)",
			run:   func() outcome { b := s.call(tg.imageTool, imageArgs(goodURI[:100])); return s.post(b[:len(b)/2]) },
			check: isHTTP(http.StatusBadRequest),
		},
		{
			name: "malformed JSON inside arguments (a bare word)",
			run: func() outcome {
				return s.post(s.call(tg.imageTool, []byte(`{"`+tg.imageArg+`": data:image/png;base64,AAAA}`)))
			},
			check: isHTTP(http.StatusBadRequest),
		},
		{
			name: "malformed JSON after a 1 MiB data: URI (is the payload echoed?)",
			run: func() outcome {
				o := s.post(s.call(tg.imageTool, []byte(`{"`+tg.imageArg+`":"`+goodURI+`",}`)))
				o.note = fmt.Sprintf("; answer %d bytes", len(o.body))
				return o
			},
			check: func(o outcome) error {
				if len(o.body) > 4<<10 {
					return fmt.Errorf("the error echoes %d bytes of the request", len(o.body))
				}
				return nil
			},
		},
		{
			name: "deeply nested JSON (100000 arrays) as the file argument",
			run: func() outcome {
				return s.post(s.call(tg.imageTool, []byte(`{"`+tg.imageArg+`":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`)))
			},
			check: rejected,
		},
		{
			name: "deeply nested JSON (5000 objects) in an extra argument",
			run: func() outcome {
				return s.post(s.call(tg.imageTool, []byte(`{"`+tg.imageArg+`":"`+goodURI[:0]+`data:image/png;base64,AAAA","x":`+strings.Repeat(`{"a":`, 5000)+`1`+strings.Repeat("}", 5000)+`}`)))
			},
			check: rejected,
		},
		{
			name: fmt.Sprintf("10000 tiny files in one array (maxFiles %d)", maxFiles),
			run: func() outcome {
				docs, names := make([]string, 10000), make([]string, 10000)
				for i := range docs {
					docs[i], names[i] = "data:text/plain,a", fmt.Sprintf("f%d.txt", i)
				}
				m := map[string]any{tg.docsArg: docs}
				if tg.namesArg != "" {
					m[tg.namesArg] = names
				}
				b, _ := json.Marshal(m)
				return s.post(s.call(tg.docsTool, b))
			},
			check: isToolError(fmt.Sprintf("Argument '%s' exceeds maxFiles: received 10000 files, limit is %d.", tg.docsArg, maxFiles)),
		},
		{
			name: "invalid UTF-8 in a filename",
			run: func() outcome {
				args := []byte(`{"` + tg.docsArg + `":["data:text/plain,hello","data:text/plain,world"]`)
				if tg.namesArg != "" {
					args = append(args, `,"`+tg.namesArg+`":["r`+"\xffe\xc3(port\xed\xa0\x80"+`.txt","ok.txt"]`...)
				}
				return s.post(s.call(tg.docsTool, append(args, '}')))
			},
			check: func(o outcome) error {
				if o.rpcErr != nil || o.result == nil {
					return fmt.Errorf("want a tool result")
				}
				if !utf8.Valid(o.raw) {
					return fmt.Errorf("the answer is not valid UTF-8")
				}
				return nil
			},
		},
		{
			name: "invalid UTF-8 in the data: URI's media type",
			run: func() outcome {
				return s.post(s.call(tg.imageTool, []byte(`{"`+tg.imageArg+`":"data:image/p`+"\xff"+`ng;base64,iVBORw0KGgo="}`)))
			},
			check: isToolError(tg.imageArg),
		},
		{
			name: "control characters, paths and U+202E in filenames",
			run: func() outcome {
				args := []byte(`{"` + tg.docsArg + `":["data:text/plain,hello","data:text/plain,world"]`)
				if tg.namesArg != "" {
					args = append(args, `,"`+tg.namesArg+`":["../../etc/passwd\u0000\u001b[31m.txt","C:\\Windows\\evil\u202egnp.exe"]`...)
				}
				return s.post(s.call(tg.docsTool, append(args, '}')))
			},
			check: func(o outcome) error {
				if o.result == nil {
					return fmt.Errorf("want a tool result")
				}
				for _, bad := range []string{"\x1b", "\x00", "\u202e", "../", `\Windows`} {
					if strings.Contains(o.result.text(), bad) {
						return fmt.Errorf("the answer echoes %q from a name", bad)
					}
				}
				return nil
			},
		},
		{
			name:  "unknown tool",
			run:   func() outcome { return s.post(s.call("no_such_tool", []byte(`{}`))) },
			check: isRPCError(-32602),
		},
		{
			// The examples set no StreamableHTTPOptions.SessionTimeout, so a
			// session whose client vanished without DELETE stays open (one
			// goroutine and its state) until the process ends. Recorded;
			// the session is deleted below, before the goroutine count.
			name: "session abandoned without DELETE, pinged 2 s later",
			run: func() outcome {
				abandoned = newRawSession(t, srv.URL)
				time.Sleep(2 * time.Second)
				return abandoned.post(abandoned.request("ping", "{}"))
			},
		},
		{
			name: "session id that does not exist",
			run: func() outcome {
				bad := &rawSession{url: s.url, id: "nope", hc: s.hc}
				return bad.post(s.call(tg.imageTool, imageArgs(goodURI)))
			},
			check: isHTTP(http.StatusNotFound),
		},
	}

	type row struct{ name, got, verdict string }
	var rows []row
	for _, c := range cases {
		o := c.run()
		verdict := "recorded"
		if c.check != nil {
			if err := c.check(o); err != nil {
				verdict = "FAIL: " + err.Error()
				t.Errorf("%s: %s; got %s", c.name, err, o)
			} else {
				verdict = "ok"
			}
		}
		rows = append(rows, row{c.name, o.String(), verdict})
		wellBehaved(c.name)
	}
	good.Close()
	s.close()
	if abandoned != nil {
		abandoned.close()
	}
	peak, peakLive := heap.stop()

	var b strings.Builder
	b.WriteString("\n| case | what came back | check |\n| --- | --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.name, strings.ReplaceAll(r.got, "|", `\|`), r.verdict)
	}
	t.Log(b.String())

	bound, why := heapBound(tg, 3) // the well-behaved client, a hostile request, one spare
	t.Logf("hostile: server live heap peak %.0f MiB, heap objects peak %.0f MiB; bound %.0f MiB = %s", mb(peakLive), mb(peak), mb(uint64(bound)), why)
	if int64(peakLive) > bound || int64(peak) > 2*bound {
		t.Errorf("hostile: heap peaked at %d live / %d objects, bound %d (%s)", peakLive, peak, bound, why)
	}
	srv.CloseClientConnections()
	if n := settledGoroutines(base, 10*time.Second); n > base {
		buf := make([]byte, 1<<20)
		t.Errorf("hostile: %d goroutines after the clients left, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

// repeatReader yields c forever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
