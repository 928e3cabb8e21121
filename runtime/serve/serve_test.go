package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// protocols are the generations a handler serves: sessions up to
// 2025-11-25, none from 2026-07-28.
var protocols = []string{"2025-11-25", "2026-07-28"}

// digest answers a file's size and SHA-256.
func digest(f runtime.File) (*mcp.CallToolResult, any, error) {
	r, err := f.Open()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("%d bytes, sha256:%x", n, h.Sum(nil))), nil, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func want(b []byte) string { return fmt.Sprintf("%d bytes, sha256:%x", len(b), sha256.Sum256(b)) }

// newServer is a server with a tool taking a file of up to 5 MiB (about 7
// MB of base64: more than the go-sdk's default 4 MiB body), and one that
// asks the user for a photo.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "served", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "digest"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.BigArgs) (*mcp.CallToolResult, any, error) {
		return digest(in.Blob)
	})
	runtime.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ testtypes.ImageArgs) (*mcp.CallToolResult, any, error) {
		ans, pending, err := runtime.Elicit[testtypes.PhotoForm](ctx, req, "Please choose a photo.", nil)
		if pending != nil || err != nil {
			return pending, nil, err
		}
		if ans.Action != runtime.Accept {
			return text(string(ans.Action)), nil, nil
		}
		return digest(ans.Value.Photo)
	})
	return s
}

// connect connects a go-sdk client with opts to url on version, failing t
// unless that version was negotiated.
func connect(t *testing.T, c *mcp.Client, url, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%s: Connect: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %q, want %q", got, version)
	}
	return cs
}

// TestHandlerBothGenerations: one handler serves a go-sdk client on each
// protocol generation, with a session on 2025-11-25 and none on
// 2026-07-28; a file larger than the go-sdk's default body limit reaches
// its tool, and a tool that asks the user for a file gets it, through
// elicitation/create on 2025-11-25 and the retry of the call on
// 2026-07-28.
func TestHandlerBothGenerations(t *testing.T) {
	srv := httptest.NewServer(serve.Handler(newServer(), serve.Options{}))
	t.Cleanup(srv.Close)                            // after the sessions' Close
	big := bytes.Repeat([]byte("a file "), 500<<10) // 3.4 MiB, 4.6 MiB of base64
	photo := mcptest.PNG(t, 8, 8, false)
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			asked := 0
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked++
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"photo": mcptest.DataURI("image/png", photo)}}, nil
				},
			})
			cs := connect(t, c, srv.URL+serve.DefaultPath, version)
			if stateless := version >= serve.StatelessSince; stateless != (cs.ID() == "") {
				t.Errorf("session id %q on %s: want one only before %s", cs.ID(), version, serve.StatelessSince)
			}
			res := mcptest.Call(t, cs, "digest", map[string]any{"blob": mcptest.DataURI("application/octet-stream", big)})
			if got := mcptest.Text(t, res); res.IsError || got != want(big) {
				t.Errorf("digest of a %d-byte file: isError=%v %q, want %q", len(big), res.IsError, got, want(big))
			}
			res = mcptest.Call(t, cs, "ask", map[string]any{"image": mcptest.DataURI("image/png", photo)})
			if got := mcptest.Text(t, res); res.IsError || got != want(photo) || asked != 1 {
				t.Errorf("ask: isError=%v %q after %d elicitations, want %q after 1", res.IsError, got, asked, want(photo))
			}
		})
	}
}

// TestHandlerLimit: the request limit is computed from the tools (the
// largest request, with the forms of Options.Forms), a body over it gets
// 413 on both generations, and MaxRequestBytes replaces it.
func TestHandlerLimit(t *testing.T) {
	s := newServer()
	wantLimit, err := runtime.RequestBytes(testtypes.BigArgs{}.MCPSchema())
	if err != nil {
		t.Fatal(err)
	}
	if got := serve.RequestLimit(s, serve.Options{}); got != wantLimit {
		t.Errorf("RequestLimit = %d, want %d (the 5 MiB tool's)", got, wantLimit)
	}
	withForm, _ := runtime.RequestBytes(testtypes.BigArgs{}.MCPSchema(), testtypes.PhotoForm{}.MCPSchema())
	if got := serve.RequestLimit(s, serve.Options{Forms: []json.RawMessage{testtypes.PhotoForm{}.MCPSchema()}}); got != withForm {
		t.Errorf("RequestLimit with a form = %d, want %d", got, withForm)
	}
	if got := serve.RequestLimit(s, serve.Options{MaxRequestBytes: 1 << 30}); got != 1<<30 {
		t.Errorf("RequestLimit with MaxRequestBytes 1 GiB = %d", got)
	}

	srv := httptest.NewServer(serve.Handler(s, serve.Options{}))
	t.Cleanup(srv.Close)
	for _, version := range protocols {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+serve.DefaultPath, bytes.NewReader(make([]byte, wantLimit+1)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if wantBody := fmt.Sprintf("request body exceeds %d bytes", wantLimit); res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), wantBody) {
			t.Errorf("%s: a body of limit+1 bytes: %d %q, want 413 %q", version, res.StatusCode, body, wantBody)
		}
	}
}

// TestHandlerPaths: MCP is at Options.Path only; anything else is 404.
func TestHandlerPaths(t *testing.T) {
	srv := httptest.NewServer(serve.Handler(newServer(), serve.Options{Path: "/v1/mcp"}))
	t.Cleanup(srv.Close) // after the session's Close
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	connect(t, c, srv.URL+"/v1/mcp", "2025-11-25")
	for _, p := range []string{"/mcp", "/", "/v1/mcp/", "/v1/mcpx", "/files/upload"} {
		res, err := http.Post(srv.URL+p, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", p, res.StatusCode)
		}
	}
}

// transferServer is a server that serves uploads (transfer.Register,
// files under /files/ of the server's own URL), with a tool that takes an
// uploaded document and one that reports the files capability the client
// declared; and the httptest server that serves it with serve.Handler.
func transferServer(t *testing.T) *httptest.Server {
	t.Helper()
	return transferServerWith(t, transfer.Options{}, serve.Options{})
}

// transferServerWith is transferServer with to (its Keys, Store and
// PublicURL set here) and so.
func transferServerWith(t *testing.T, to transfer.Options, so serve.Options) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	keys, err := token.NewKeyring(token.RandomKey())
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1"}, nil)
	to.Keys, to.Store, to.PublicURL = keys, memstore.New(nil), "http://"+srv.Listener.Addr().String()+"/files/"
	if _, err := transfer.Register(s, to); err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "document"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.DocumentArgs) (*mcp.CallToolResult, any, error) {
		return digest(in.Document)
	})
	s.AddTool(&mcp.Tool{Name: "caps", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(fmt.Sprintf("download=%v", transfer.ClientFiles(req).Download)), nil
	})
	srv.Config.Handler = serve.Handler(s, so)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestHandlerTransfers: on a server that serves uploads, the handler
// mounts the upload endpoint under the path of the PublicURL given to
// transfer.Register: a go-sdk client on either generation uploads a file
// there and passes its URI to a tool, which reads the bytes.
func TestHandlerTransfers(t *testing.T) {
	srv := transferServer(t)
	doc := bytes.Repeat([]byte("a line of text\n"), 70000) // 1 MiB
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
			if err := client.Enable(c); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, c, srv.URL+serve.DefaultPath, version)
			fv, err := client.Upload(t.Context(), cs, client.File{Name: "notes.txt", MediaType: "text/plain", Size: int64(len(doc)), Body: bytes.NewReader(doc)}, &client.Options{AllowHTTP: true})
			if err != nil {
				t.Fatalf("Upload: %v", err)
			}
			res := mcptest.Call(t, cs, "document", map[string]any{"document": fv.URI})
			if got := mcptest.Text(t, res); res.IsError || got != want(doc) {
				t.Errorf("document: isError=%v %q, want %q", res.IsError, got, want(doc))
			}
		})
	}
}

// TestHandlerKeepsFilesCapability: on a server that serves transfers, the
// files capability a client declares in initialize, which the go-sdk's
// typed capabilities drop, reaches the tools.
func TestHandlerKeepsFilesCapability(t *testing.T) {
	srv := transferServer(t)
	endpoint := srv.URL + serve.DefaultPath
	session := ""
	post := func(body string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode/100 != 2 {
			b, _ := io.ReadAll(res.Body)
			t.Fatalf("POST %.40s…: %d %s", body, res.StatusCode, b)
		}
		if id := res.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		return firstMessage(t, res)
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"files":{"download":true}},"clientInfo":{"name":"raw","version":"0"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	got := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"caps","arguments":{}}}`)
	var msg struct {
		Result struct{ Content []struct{ Text string } }
	}
	if err := json.Unmarshal([]byte(got), &msg); err != nil || len(msg.Result.Content) != 1 || msg.Result.Content[0].Text != "download=true" {
		t.Errorf("tools/call caps after declaring files.download in initialize: %s, want download=true", got)
	}
}

// firstMessage returns the first JSON-RPC message of a response, JSON or
// an event stream; "" for none.
func firstMessage(t *testing.T, res *http.Response) string {
	t.Helper()
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return data
		}
	}
	return ""
}
