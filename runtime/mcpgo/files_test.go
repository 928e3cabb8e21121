package mcpgo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfile/mcpfile/runtime/internal/observe/observetest"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/mcpgo"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// reportBytes is what the report tool saves and hands back.
var reportBytes = []byte("line one\nline two\n")

// filesServer is an mcp-go server with files served, over its streamable
// HTTP server at /mcp (the transfer endpoints at /files/), and the server
// itself, for stdio. Its tools: scan takes a PNG of at most 64 KiB inline
// or uploaded (testtypes.ScanForm), doc a PDF uploaded only
// (testtypes.UploadForm), and report, a plain mcp-go tool, returns a file
// it saved, which forget, given its URI, releases.
func filesServer(t *testing.T) (*server.MCPServer, *mcpgo.Files, *httptest.Server) {
	return filesServerWith(t, nil)
}

// filesServerLog is filesServer whose transfer layer logs to log.
func filesServerLog(t *testing.T, log *slog.Logger) (*server.MCPServer, *mcpgo.Files, *httptest.Server) {
	return filesServerWith(t, func(o *transfer.Options) { o.Logger = log })
}

// filesServerWith is filesServer with options set by set (nil: none).
func filesServerWith(t *testing.T, set func(*transfer.Options)) (*server.MCPServer, *mcpgo.Files, *httptest.Server) {
	t.Helper()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	key, err := token.NewKey("k1", bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("files", "v1")
	o := transfer.Options{Keys: keys, PublicURL: ts.URL + "/files/", Store: memstore.New(nil)}
	if set != nil {
		set(&o)
	}
	files, err := mcpgo.ServeFiles(s, mcpgo.FilesOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcpgo.ServeFiles(s, mcpgo.FilesOptions{Options: transfer.Options{Keys: keys, PublicURL: ts.URL + "/files/"}}); err == nil {
		t.Error("ServeFiles twice for one server: no error")
	}
	mcpgo.AddTool(s, mcp.Tool{Name: "scan"}, func(_ context.Context, _ mcp.CallToolRequest, in testtypes.ScanForm) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprintf("%d bytes of %s", in.Scan.Size(), in.Scan.MediaType)), nil
	})
	mcpgo.AddTool(s, mcp.Tool{Name: "doc"}, func(_ context.Context, _ mcp.CallToolRequest, in testtypes.UploadForm) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprintf("%d bytes of %s", in.Doc.Size(), in.Doc.MediaType)), nil
	})
	s.AddTool(mcp.NewTool("report"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "report.txt", MediaType: "text/plain", Data: reportBytes})
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("the report"), mcpgo.NewFileContent(v)}}, nil
	})
	s.AddTool(mcp.NewTool("forget", mcp.WithString("uri", mcp.Required())), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := transfer.Release(ctx, req.GetString("uri", "")); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText("released"), nil
	})
	mux.Handle("/mcp", files.HTTP(server.NewStreamableHTTPServer(s)))
	mux.Handle("/files/", files.Handler())
	return s, files, ts
}

// A reply is a JSON-RPC response, with the HTTP status it came with.
type reply struct {
	status int
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// toolResult is the CallToolResult of r.
func (r reply) toolResult(t *testing.T) (text string, isError bool, content []map[string]any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("tools/call: error %d %s", r.Error.Code, r.Error.Message)
	}
	var res struct {
		Content []map[string]any `json:"content"`
		IsError bool             `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) > 0 {
		text, _ = res.Content[0]["text"].(string)
	}
	return text, res.IsError, res.Content
}

// A peer speaks MCP to the server raw, over one transport and protocol
// generation.
type peer interface {
	call(t *testing.T, method string, params map[string]any) reply
}

var ids atomic.Int64

// httpPeer speaks to /mcp: with a session (2025-11-25) when sid is set,
// else as a 2026-07-28 client, whose _meta carries caps.
type httpPeer struct {
	url    string
	sid    string
	modern bool
	caps   map[string]any
	header http.Header // extra headers, for the hostile cases
}

// legacyPeer initializes a 2025-11-25 session, declaring caps.
func legacyPeer(t *testing.T, ts *httptest.Server, caps map[string]any) *httpPeer {
	t.Helper()
	p := &httpPeer{url: ts.URL + "/mcp"}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ids.Add(1), "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": map[string]any{"name": "test", "version": "v1"}}})
	resp, err := http.Post(p.url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p.sid = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || p.sid == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, p.sid)
	}
	p.post(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, "notifications/initialized", nil)
	return p
}

func (p *httpPeer) call(t *testing.T, method string, params map[string]any) reply {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if p.modern {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
			mcp.MetaKeyClientInfo:         map[string]any{"name": "test", "version": "v1"},
			mcp.MetaKeyClientCapabilities: p.caps,
		}
	}
	return p.post(t, map[string]any{"jsonrpc": "2.0", "id": ids.Add(1), "method": method, "params": params}, method, params)
}

func (p *httpPeer) post(t *testing.T, msg map[string]any, method string, params map[string]any) reply {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if p.modern {
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
		req.Header.Set(mcp.HeaderMethod, method)
		if name, ok := params["name"].(string); ok && method == "tools/call" {
			req.Header.Set(mcp.HeaderName, name)
		}
	} else {
		req.Header.Set(mcp.HeaderProtocolVersion, "2025-11-25")
		req.Header.Set("Mcp-Session-Id", p.sid)
	}
	for k, v := range p.header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.Lines(string(b)) {
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.Contains(d, `"id"`) {
				b = []byte(d)
			}
		}
	}
	if len(bytes.TrimSpace(b)) > 0 && bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v in %s", method, err, b)
		}
	} else if msg["id"] != nil && resp.StatusCode == http.StatusOK {
		t.Fatalf("%s: no JSON-RPC response: %s", method, b)
	}
	return r
}

// stdioPeer speaks to the server over mcp-go's stdio server, wrapped by
// Files.Stdio.
type stdioPeer struct {
	w  io.Writer
	rd *bufio.Reader
}

func newStdioPeer(t *testing.T, s *server.MCPServer, files *mcpgo.Files, caps map[string]any) *stdioPeer {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		in, out := files.Stdio(ctx, sr, sw)
		server.NewStdioServer(s).Listen(ctx, in, out)
	}()
	t.Cleanup(func() { cw.Close(); cancel(); sw.Close(); <-done })
	p := &stdioPeer{w: cw, rd: bufio.NewReader(cr)}
	r := p.call(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": map[string]any{"name": "test", "version": "v1"}})
	if r.Error != nil {
		t.Fatalf("initialize: %s", r.Error.Message)
	}
	fmt.Fprintf(cw, "%s\n", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *stdioPeer) call(t *testing.T, method string, params map[string]any) reply {
	t.Helper()
	id := ids.Add(1)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := fmt.Fprintf(p.w, "%s\n", body); err != nil {
		t.Fatal(err)
	}
	for {
		line, err := p.rd.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var r struct {
			ID any `json:"id"`
			reply
		}
		if json.Unmarshal(line, &r) != nil || r.ID == nil {
			continue // a notification
		}
		if err := json.Unmarshal(line, &r.reply); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(r.ID) != fmt.Sprint(id) {
			t.Fatalf("%s: response to %v, want %d", method, r.ID, id)
		}
		return r.reply
	}
}

// authorizeUpload asks p to authorize an upload of size bytes of mt.
func authorizeUpload(t *testing.T, p peer, mt string, size int) (wire.AuthorizeUploadResult, reply) {
	t.Helper()
	r := p.call(t, "files/authorizeUpload", map[string]any{"name": "f", "mimeType": mt, "size": size})
	var res wire.AuthorizeUploadResult
	if r.Error == nil && r.Result != nil {
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
	}
	return res, r
}

// send posts data as the descriptor d says, and returns the status.
func send(t *testing.T, d wire.FileTransferDescriptor, data []byte) int {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range d.Multipart.Fields {
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile(d.Multipart.FileField, "f")
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequestWithContext(t.Context(), d.Method, d.URL, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// uploaded authorizes and uploads data as mt through p, and returns its
// file URI.
func uploaded(t *testing.T, p peer, mt string, data []byte) string {
	t.Helper()
	res, r := authorizeUpload(t, p, mt, len(data))
	if r.Error != nil {
		t.Fatalf("files/authorizeUpload: %d %s", r.Error.Code, r.Error.Message)
	}
	if st := send(t, res.Upload, data); st/100 != 2 {
		t.Fatalf("upload: status %d", st)
	}
	return res.File.URI
}

func callTool(t *testing.T, p peer, tool string, args map[string]any) (string, bool, []map[string]any) {
	t.Helper()
	return p.call(t, "tools/call", map[string]any{"name": tool, "arguments": args}).toolResult(t)
}

// minimalPDF is a PDF header, enough for the content check.
var minimalPDF = []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")

// TestServeFiles: over each of mcp-go's transports and both protocol
// generations, a file is authorized, uploaded, and resolved into a tool's
// argument, checked against that tool's field.
func TestServeFiles(t *testing.T) {
	s, files, ts := filesServer(t)
	png := mustPNG(t)
	peers := map[string]func() peer{
		"http 2025-11-25": func() peer { return legacyPeer(t, ts, nil) },
		"http 2026-07-28": func() peer { return &httpPeer{url: ts.URL + "/mcp", modern: true, caps: map[string]any{}} },
		"stdio":           func() peer { return newStdioPeer(t, s, files, nil) },
	}
	for name, newPeer := range peers {
		t.Run(name, func(t *testing.T) {
			p := newPeer()
			uri := uploaded(t, p, "image/png", png)
			if text, isErr, _ := callTool(t, p, "scan", map[string]any{"scan": uri}); isErr || text != fmt.Sprintf("%d bytes of image/png", len(png)) {
				t.Errorf("scan with an uploaded PNG: %q (isError %v)", text, isErr)
			}
			// The same URI to a field that takes PDFs only: checked again.
			text, isErr, _ := callTool(t, p, "doc", map[string]any{"doc": uri})
			if !isErr || !strings.Contains(text, "'doc'") || !strings.Contains(text, "image/png") {
				t.Errorf("doc with an uploaded PNG: %q (isError %v), want a media type refusal", text, isErr)
			}
			doc := uploaded(t, p, "application/pdf", minimalPDF)
			if text, isErr, _ := callTool(t, p, "doc", map[string]any{"doc": doc}); isErr || text != fmt.Sprintf("%d bytes of application/pdf", len(minimalPDF)) {
				t.Errorf("doc with an uploaded PDF: %q (isError %v)", text, isErr)
			}
			// A data: URI to a field that takes uploads only.
			data := "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(minimalPDF)
			if text, isErr, _ := callTool(t, p, "doc", map[string]any{"doc": data}); !isErr || !strings.Contains(text, "upload") {
				t.Errorf("doc with a data: URI: %q (isError %v), want a transfer mode refusal", text, isErr)
			}
			// A request longer than what the wrappers read to tell what it
			// is goes on to mcp-go whole.
			big := append(append([]byte{}, png...), make([]byte, 60<<10)...)
			if text, isErr, _ := callTool(t, p, "scan", map[string]any{"scan": "data:image/png;base64," + base64.StdEncoding.EncodeToString(big)}); isErr || text != fmt.Sprintf("%d bytes of image/png", len(big)) {
				t.Errorf("scan with %d bytes inline: %q (isError %v)", len(big), text, isErr)
			}
			// A tampered URI.
			bad := uri[:len(uri)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(uri, "AA")]
			if text, isErr, _ := callTool(t, p, "scan", map[string]any{"scan": bad}); !isErr || !strings.Contains(text, "is not a usable file URI") {
				t.Errorf("scan with a tampered URI: %q (isError %v)", text, isErr)
			}
		})
	}
}

// TestServeFilesHostile: the refusals of files/authorizeUpload, of the
// upload endpoint and of the resolution are a go-sdk server's.
func TestServeFilesHostile(t *testing.T) {
	_, _, ts := filesServer(t)
	a := legacyPeer(t, ts, nil)
	png := mustPNG(t)

	// Size ±1 around the largest a PNG field takes (64 KiB).
	if _, r := authorizeUpload(t, a, "image/png", 64<<10); r.Error != nil {
		t.Errorf("authorize 64 KiB of PNG: %s", r.Error.Message)
	}
	if _, r := authorizeUpload(t, a, "image/png", 64<<10+1); r.Error == nil || r.Error.Code != -32602 || !strings.Contains(string(r.Error.Data), "maxSizeExceeded") {
		t.Errorf("authorize 64 KiB + 1 of PNG: %+v, want -32602 maxSizeExceeded", r.Error)
	}
	if _, r := authorizeUpload(t, a, "image/gif", 10); r.Error == nil || !strings.Contains(string(r.Error.Data), "mimeTypeNotAccepted") {
		t.Errorf("authorize a GIF: %+v, want mimeTypeNotAccepted", r.Error)
	}

	// The upload held to the declared size, one byte short or over.
	for _, n := range []int{len(png) - 1, len(png) + 1} {
		res, _ := authorizeUpload(t, a, "image/png", len(png))
		body := append(append([]byte{}, png...), 0)[:n]
		if st := send(t, res.Upload, body); st/100 == 2 {
			t.Errorf("upload of %d bytes declared as %d: status %d", n, len(png), st)
		}
	}

	// A tampered token, and a replayed one.
	res, _ := authorizeUpload(t, a, "image/png", len(png))
	tampered := res.Upload
	tok := tampered.Multipart.Fields[transfer.FormFieldToken]
	tampered.Multipart = &wire.Multipart{FileField: tampered.Multipart.FileField, Fields: map[string]string{transfer.FormFieldToken: tok[:len(tok)-3] + "xyz"}}
	if st := send(t, tampered, png); st/100 == 2 {
		t.Errorf("upload with a tampered token: status %d", st)
	}
	if st := send(t, res.Upload, png); st/100 != 2 {
		t.Fatalf("upload: status %d", st)
	}
	if st := send(t, res.Upload, png); st/100 == 2 {
		t.Errorf("upload replayed: status %d", st)
	}

	// Another session's URI, and a 2026-07-28 caller's (no session).
	b := legacyPeer(t, ts, nil)
	if text, isErr, _ := callTool(t, b, "scan", map[string]any{"scan": res.File.URI}); !isErr || !strings.Contains(text, "did not issue it to this caller") {
		t.Errorf("scan with another session's URI: %q (isError %v)", text, isErr)
	}
	modern := &httpPeer{url: ts.URL + "/mcp", modern: true, caps: map[string]any{}}
	if text, isErr, _ := callTool(t, modern, "scan", map[string]any{"scan": res.File.URI}); !isErr || !strings.Contains(text, "did not issue it to this caller") {
		t.Errorf("2026-07-28 scan with a session's URI: %q (isError %v)", text, isErr)
	}
	if r := b.call(t, "files/authorizeDownload", map[string]any{"uri": res.File.URI}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("authorizeDownload of another session's URI: %+v", r.Error)
	}
	if text, isErr, _ := callTool(t, b, "forget", map[string]any{"uri": res.File.URI}); !isErr || !strings.Contains(text, "not a file URI this server issued to this caller") {
		t.Errorf("Release of another session's URI: %q (isError %v)", text, isErr)
	}
	if text, isErr, _ := callTool(t, a, "scan", map[string]any{"scan": res.File.URI}); isErr {
		t.Errorf("scan with its own URI, after another session tried to release it: %q", text)
	}

	// Requests mcp-go's transport refuses are refused as mcp-go refuses a ping.
	bogus := &httpPeer{url: ts.URL + "/mcp", sid: "bogus"}
	if _, r := authorizeUpload(t, bogus, "image/png", 10); r.status != http.StatusNotFound {
		t.Errorf("authorize in an unknown session: status %d, want 404", r.status)
	}
	noMethod := &httpPeer{url: ts.URL + "/mcp", modern: true, caps: map[string]any{}, header: http.Header{mcp.HeaderMethod: {"tools/list"}}}
	if _, r := authorizeUpload(t, noMethod, "image/png", 10); r.status != http.StatusBadRequest || r.Error == nil {
		t.Errorf("authorize with a Mcp-Method that disagrees: status %d, %+v, want 400", r.status, r.Error)
	}
	if _, r := authorizeUpload(t, modern, "image/png", 64<<10+1); r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("2026-07-28 authorize of too large a file: status %d, want 400 and -32602", r.status)
	}
}

// TestServeFilesOutputs: a handler's saved file reaches a client that
// declared files.download as a file block, which files/authorizeDownload
// lets it fetch, and any other client as an embedded resource.
func TestServeFilesOutputs(t *testing.T) {
	s, files, ts := filesServer(t)
	caps := map[string]any{"files": map[string]any{"download": true, "upload": true}}
	peers := map[string]func(caps map[string]any) peer{
		"http 2025-11-25": func(caps map[string]any) peer { return legacyPeer(t, ts, caps) },
		"http 2026-07-28": func(caps map[string]any) peer {
			if caps == nil {
				caps = map[string]any{} // required on 2026-07-28
			}
			return &httpPeer{url: ts.URL + "/mcp", modern: true, caps: caps}
		},
		"stdio": func(caps map[string]any) peer { return newStdioPeer(t, s, files, caps) },
	}
	for name, newPeer := range peers {
		t.Run(name, func(t *testing.T) {
			p := newPeer(caps)
			_, _, content := callTool(t, p, "report", nil)
			if len(content) != 2 || content[1]["type"] != "file" {
				t.Fatalf("report for a client with files.download: %v, want a text and a file block", content)
			}
			file, _ := content[1]["file"].(map[string]any)
			uri, _ := file["uri"].(string)
			r := p.call(t, "files/authorizeDownload", map[string]any{"uri": uri})
			if r.Error != nil {
				t.Fatalf("files/authorizeDownload: %s", r.Error.Message)
			}
			var dl wire.AuthorizeDownloadResult
			if err := json.Unmarshal(r.Result, &dl); err != nil {
				t.Fatal(err)
			}
			resp, err := http.Get(dl.Download.URL)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, reportBytes) {
				t.Errorf("download: %s, %q, want %q", resp.Status, got, reportBytes)
			}

			// Released by the caller's handler: gone for files/authorizeDownload.
			if text, isErr, _ := callTool(t, p, "forget", map[string]any{"uri": uri}); isErr || text != "released" {
				t.Errorf("forget: %q (isError %v)", text, isErr)
			}
			if r := p.call(t, "files/authorizeDownload", map[string]any{"uri": uri}); r.Error == nil || !strings.Contains(r.Error.Message, "names no file") {
				t.Errorf("files/authorizeDownload after Release: %+v, want a refusal", r.Error)
			}

			if name == "stdio" {
				return // one client per stdio server
			}
			_, _, content = callTool(t, newPeer(nil), "report", nil)
			if len(content) != 2 || content[1]["type"] != "resource" {
				t.Fatalf("report for a client without files: %v, want a text and an embedded resource", content)
			}
			res, _ := content[1]["resource"].(map[string]any)
			if blob, _ := res["blob"].(string); blob != base64.StdEncoding.EncodeToString(reportBytes) {
				t.Errorf("embedded report: %q", blob)
			}
		})
	}
}

// TestServeFilesStdioWritesWhole: an answer Files.Stdio writes never
// lands inside a line of mcp-go's, however mcp-go splits its writes.
func TestServeFilesStdioWritesWhole(t *testing.T) {
	_, files, _ := filesServer(t)
	var out bytes.Buffer
	req := `{"jsonrpc":"2.0","id":7,"method":"files/authorizeUpload","params":{"mimeType":"image/png","size":10}}` + "\n"
	in, w := files.Stdio(t.Context(), strings.NewReader(req), &out)
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,`)) // half a line of mcp-go's
	if b, err := io.ReadAll(in); err != nil || len(b) != 0 {
		t.Errorf("mcp-go read %q, %v: want nothing (the request is answered by Files)", b, err)
	}
	w.Write([]byte(`"result":{}}` + "\n"))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":7,"result":{`) || lines[1] != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("written:\n%s\nwant the answer to 7, then mcp-go's line whole", out.String())
	}
}

// TestServeFilesRecords: an mcp-go server's authorizations, uploads and
// refused calls are recorded as a go-sdk server's, with the tool's name,
// and nothing in them is a token, a file URI or a file's bytes.
func TestServeFilesRecords(t *testing.T) {
	var rec observetest.Recorder
	_, _, ts := filesServerLog(t, rec.Logger())
	p := legacyPeer(t, ts, nil)
	png := mustPNG(t)
	uri := uploaded(t, p, "image/png", png)
	callTool(t, p, "doc", map[string]any{"doc": uri})
	if got := rec.Find("authorized", "op", "files/authorizeUpload", "mediaType", "image/png"); len(got) != 1 {
		t.Errorf("authorized records: %d, want 1", len(got))
	}
	if got := rec.Find("refused", "op", "tools/call", "tool", "doc", "arg", "doc"); len(got) != 1 {
		t.Errorf("refused tools/call records of tool doc: %d, want 1; records: %v", len(got), rec.Records())
	}
	if got := rec.Find("upload", "op", "upload", "via", "endpoint", "status", "201", "mediaType", "image/png"); len(got) != 1 {
		t.Errorf("upload records: %d, want 1; records: %v", len(got), rec.Records())
	}
	for _, pr := range rec.Problems(png, []byte(uri)) {
		t.Error(pr)
	}
}

// uploadAnswerer is a client's elicitation handler that uploads doc, by
// files/authorizeUpload through p, and answers with its URI.
type uploadAnswerer struct {
	t     *testing.T
	p     peer
	doc   []byte
	asked atomic.Int32
}

func (a *uploadAnswerer) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked.Add(1)
	uri := uploaded(a.t, a.p, "application/pdf", a.doc)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"doc": uri}}}, nil
}

// TestServeFilesElicit: on a server with files, Elicit asks for a form
// whose file is uploaded only; the form's field counts for
// files/authorizeUpload once asked, and the answer's file URI is resolved
// for the caller, whom Principal names (the same on every request).
func TestServeFilesElicit(t *testing.T) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	key, _ := token.NewKey("k1", bytes.Repeat([]byte{9}, 32))
	keys, _ := token.NewKeyring(key)
	s := server.NewMCPServer("ask", "v1")
	files, err := mcpgo.ServeFiles(s, mcpgo.FilesOptions{
		Options:   transfer.Options{Keys: keys, PublicURL: ts.URL + "/files/", Store: memstore.New(nil)},
		Principal: func(context.Context) string { return "alice" },
	})
	if err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ans, pending, err := mcpgo.Elicit[testtypes.UploadForm](ctx, req, "Please upload the contract.", nil)
		switch {
		case err != nil:
			return mcp.NewToolResultError(err.Error()), nil
		case pending != nil:
			return pending, nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("%s %s %d bytes", ans.Action, ans.Value.Doc.MediaType, ans.Value.Doc.Size())), nil
	})
	mux.Handle("/mcp", files.HTTP(server.NewStreamableHTTPServer(s)))
	mux.Handle("/files/", files.Handler())

	raw := &httpPeer{url: ts.URL + "/mcp", modern: true, caps: map[string]any{}}
	if _, r := authorizeUpload(t, raw, "application/pdf", len(minimalPDF)); r.Error == nil || !strings.Contains(r.Error.Message, "no argument that takes uploaded files") {
		t.Fatalf("authorize before the form is asked: %+v, want a refusal", r.Error)
	}
	for _, version := range []string{mcp.LATEST_PROTOCOL_VERSION, "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			a := &uploadAnswerer{t: t, p: raw, doc: minimalPDF}
			tr, err := transport.NewStreamableHTTP(ts.URL + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			c := client.NewClient(tr, client.WithElicitationHandler(a))
			connectVersion(t, c, version)
			text, isError := callText(t, c, "ask")
			if want := fmt.Sprintf("accept application/pdf %d bytes", len(minimalPDF)); isError || text != want || a.asked.Load() != 1 {
				t.Errorf("ask: %q (isError %v, asked %d times), want %q", text, isError, a.asked.Load(), want)
			}
		})
	}
}

// TestServeFilesAddressQuota: callers without auth and without a session
// (2026-07-28 over HTTP) hold the quota per address, as on a go-sdk server
// that runtime/serve serves.
func TestServeFilesAddressQuota(t *testing.T) {
	png := mustPNG(t)
	_, _, ts := filesServerWith(t, func(o *transfer.Options) { o.Quota = int64(len(png)) + 10 })
	p := &httpPeer{url: ts.URL + "/mcp", modern: true, caps: map[string]any{}}
	uri := uploaded(t, p, "image/png", png)
	if _, r := authorizeUpload(t, p, "image/png", len(png)); r.Error == nil || !strings.Contains(r.Error.Message, "callers without auth from this address") {
		t.Errorf("authorize past the address's quota: %+v, want quotaExceeded for the address", r.Error)
	}
	// Another anonymous 2026-07-28 caller may use the file by its URI.
	other := &httpPeer{url: ts.URL + "/mcp", modern: true, caps: map[string]any{}}
	if text, isErr, _ := callTool(t, other, "scan", map[string]any{"scan": uri}); isErr {
		t.Errorf("scan: %q", text)
	}
}

// TestServeFilesEraAsMcpGo: a request's generation is the one mcp-go
// checked it as. A 2025-11-25 request whose _meta names 2026-07-28 under a
// key in other case (which mcp-go does not read) is its session's: its
// file goes to that session, not to the callers without a session.
func TestServeFilesEraAsMcpGo(t *testing.T) {
	_, _, ts := filesServer(t)
	a := legacyPeer(t, ts, nil)
	png := mustPNG(t)
	r := a.call(t, "files/authorizeUpload", map[string]any{"name": "f", "mimeType": "image/png", "size": len(png),
		"_meta": map[string]any{strings.ToUpper(mcp.MetaKeyProtocolVersion): mcp.ProtocolVersion20260728}})
	if r.Error != nil {
		t.Fatalf("files/authorizeUpload: %d %s", r.Error.Code, r.Error.Message)
	}
	var res wire.AuthorizeUploadResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if st := send(t, res.Upload, png); st/100 != 2 {
		t.Fatalf("upload: status %d", st)
	}
	modern := &httpPeer{url: ts.URL + "/mcp", modern: true, caps: map[string]any{}}
	if text, isErr, _ := callTool(t, modern, "scan", map[string]any{"scan": res.File.URI}); !isErr || !strings.Contains(text, "did not issue it to this caller") {
		t.Errorf("2026-07-28 scan with the session's URI: %q (isError %v), want a refusal", text, isErr)
	}
	if text, isErr, _ := callTool(t, a, "scan", map[string]any{"scan": res.File.URI}); isErr {
		t.Errorf("scan with the session's own URI: %q", text)
	}
}
