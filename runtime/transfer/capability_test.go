package transfer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// declaring is a client transport that declares SEP-2631's files
// capability the way a client that supports it does (a top-level "files"
// member, which go-sdk v1.8's typed capabilities cannot carry): in
// initialize, and in every request's _meta capabilities when there are
// some (protocol 2026-07-28). It records the raw results it reads.
type declaring struct {
	mcp.Transport
	mu      sync.Mutex
	results []string
}

func (d *declaring) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := d.Transport.Connect(ctx)
	return &declaringConn{c, d}, err
}

type declaringConn struct {
	mcp.Connection
	d *declaring
}

func (c *declaringConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && len(req.Params) > 0 {
		var p map[string]any
		if json.Unmarshal(req.Params, &p) == nil {
			files := map[string]any{"upload": true, "download": true, "transports": []string{"https"}}
			if caps, ok := p["capabilities"].(map[string]any); ok && req.Method == "initialize" {
				caps["files"] = files
			}
			if meta, ok := p["_meta"].(map[string]any); ok {
				if caps, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
					caps["files"] = files
				}
			}
			req.Params, _ = json.Marshal(p)
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *declaringConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if res, ok := msg.(*jsonrpc.Response); ok && len(res.Result) > 0 {
		c.d.mu.Lock()
		c.d.results = append(c.d.results, string(res.Result))
		c.d.mu.Unlock()
	}
	return msg, err
}

func (d *declaring) last(t *testing.T, substr string) string {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.results) - 1; i >= 0; i-- {
		if strings.Contains(d.results[i], substr) {
			return d.results[i]
		}
	}
	t.Fatalf("no result with %q among %d", substr, len(d.results))
	return ""
}

// exportServer is a server whose tool export saves a text file of n bytes
// and returns it as a file content block, and in structuredContent.
func exportServer(t *testing.T, o transfer.Options) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "export", Version: "v1"}, nil)
	if o.Keys == nil {
		o.Keys = testKeys(t)
	}
	if o.Store == nil {
		o.Store = memstore.New(nil)
	}
	if o.PublicURL == "" {
		o.PublicURL = "https://files.example.com/"
	}
	if _, err := transfer.Register(s, o); err != nil {
		t.Fatal(err)
	}
	type in struct {
		N int `json:"n"`
	}
	type out struct {
		Report transfer.FileValue `json:"report"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, out, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "report.txt", MediaType: "text/plain", Data: []byte(strings.Repeat("r", in.N))})
		if err != nil {
			return nil, out{}, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "here it is"}, transfer.NewFileContent(v)}}, out{v}, nil
	})
	return s
}

// contentTypes returns the types of a raw result's content blocks.
func contentTypes(t *testing.T, raw string) (types []string, res map[string]any) {
	t.Helper()
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatal(err)
	}
	for _, b := range res["content"].([]any) {
		types = append(types, b.(map[string]any)["type"].(string))
	}
	return types, res
}

// TestFileBlockFallback: a client without files.download gets the file
// the standard way (an embedded resource with the bytes, or a text and a
// resource_link for a large one), and structuredContent keeps its
// FileValue; a client that declared it gets the file block.
func TestFileBlockFallback(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version+"/without", func(t *testing.T) {
			s := exportServer(t, transfer.Options{MaxEmbeddedOutput: 100})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(t.Context(), transfer.KeepFilesCapabilityTransport(st), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			rec := &declaring{Transport: ct}
			cs := clientOn(t, &recordOnly{rec}, version)

			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{"n": 100}})
			if err != nil {
				t.Fatal(err)
			}
			er, ok := res.Content[1].(*mcp.EmbeddedResource)
			if len(res.Content) != 2 || !ok || string(er.Resource.Blob) != strings.Repeat("r", 100) || er.Resource.MIMEType != "text/plain" || !strings.HasPrefix(er.Resource.URI, "mcp-file://") {
				t.Errorf("small file: content %#v, want the text and an embedded resource with the bytes", res.Content)
			}
			if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"uri":"mcp-file://`) {
				t.Errorf("structuredContent %s, want the FileValue", b)
			}

			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{"n": 101}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 3 {
				t.Fatalf("large file: %d blocks, want the text, a text saying the file is too large, and a resource_link", len(res.Content))
			}
			txt, ok1 := res.Content[1].(*mcp.TextContent)
			link, ok2 := res.Content[2].(*mcp.ResourceLink)
			if !ok1 || !ok2 || !strings.Contains(txt.Text, "too large for this client") || !strings.HasPrefix(link.URI, "mcp-file://") || *link.Size != 101 || link.Name != "report.txt" {
				t.Errorf("large file: %#v", res.Content)
			}
		})
		t.Run(version+"/with", func(t *testing.T) {
			s := exportServer(t, transfer.Options{})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(t.Context(), transfer.KeepFilesCapabilityTransport(st), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			d := &declaring{Transport: ct}
			cs := clientOn(t, d, version)
			// go-sdk v1.8 clients cannot read a file block: the call fails
			// on the client, after the result was read off the wire.
			cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{"n": 10}})
			types, res := contentTypes(t, d.last(t, `"structuredContent"`))
			if strings.Join(types, ",") != "text,file" {
				t.Errorf("content types %v, want text, file", types)
			}
			f := res["content"].([]any)[1].(map[string]any)["file"].(map[string]any)
			if f["size"].(float64) != 10 || f["mimeType"] != "text/plain" || f["digest"] == nil {
				t.Errorf("file block %v", f)
			}
		})
	}
}

// recordOnly is a declaring transport that does not declare.
type recordOnly struct{ d *declaring }

func (r *recordOnly) Connect(ctx context.Context) (mcp.Connection, error) {
	return r.d.Transport.Connect(ctx)
}

func clientOn(t *testing.T, tr mcp.Transport, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	cs, err := c.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestKeepFilesCapabilityHTTP: over streamable HTTP, the handler wrapper
// keeps the files capability of initialize; without it the SDK drops it
// and the client gets the fallback.
func TestKeepFilesCapabilityHTTP(t *testing.T) {
	for _, keep := range []bool{true, false} {
		s := exportServer(t, transfer.Options{})
		var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		if keep {
			h = transfer.KeepFilesCapability(h)
		}
		ts := httptest.NewServer(h)
		d := &declaring{Transport: &mcp.StreamableClientTransport{Endpoint: ts.URL}}
		cs := clientOn(t, d, "2025-11-25")
		cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{"n": 10}})
		types, _ := contentTypes(t, d.last(t, `"structuredContent"`))
		want := "text,resource"
		if keep {
			want = "text,file"
		}
		if got := strings.Join(types, ","); got != want {
			t.Errorf("KeepFilesCapability %v: content types %s, want %s", keep, got, want)
		}
		cs.Close()
		ts.Close()
	}
}

// TestFilesCapabilityPerRequest: a 2026-07-28 client's capabilities come
// with each request, in _meta, which the SDK keeps raw: no wrapper is
// needed. An older client's come in initialize only, which the SDK's
// typed capabilities drop without the wrapper.
func TestFilesCapabilityPerRequest(t *testing.T) {
	for version, want := range map[string]string{"2026-07-28": "text,file", "2025-11-25": "text,resource"} {
		s := exportServer(t, transfer.Options{})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(t.Context(), st, nil) // no KeepFilesCapabilityTransport
		if err != nil {
			t.Fatal(err)
		}
		d := &declaring{Transport: ct}
		cs := clientOn(t, d, version)
		cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{"n": 10}})
		if types, _ := contentTypes(t, d.last(t, `"structuredContent"`)); strings.Join(types, ",") != want {
			t.Errorf("%s: content types %v, want %s", version, types, want)
		}
		cs.Close()
		ss.Close()
	}
}

// TestFallbackBudget: the bytes a result embeds for a client without
// files.download come to at most MaxEmbeddedOutput in all, not per file.
func TestFallbackBudget(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "three", Version: "v1"}, nil)
	if _, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://files.example.com/", MaxEmbeddedOutput: 100}); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "three"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		var res mcp.CallToolResult
		for i := range 3 {
			v, err := transfer.Save(ctx, transfer.Output{Name: fmt.Sprintf("part%d.txt", i), MediaType: "text/plain", Data: []byte(strings.Repeat("p", 60))})
			if err != nil {
				return nil, nil, err
			}
			res.Content = append(res.Content, transfer.NewFileContent(v))
		}
		return &res, nil, nil
	})
	cs := mcptest.Connect(t, s, nil, "2025-11-25")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "three", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, b := range res.Content {
		kinds = append(kinds, fmt.Sprintf("%T", b))
	}
	if want := "*mcp.EmbeddedResource,*mcp.TextContent,*mcp.ResourceLink,*mcp.TextContent,*mcp.ResourceLink"; strings.Join(kinds, ",") != want {
		t.Errorf("content %v, want one file embedded (60 of the 100 bytes) and two linked", kinds)
	}
}

// TestKeepFilesExperimentalNull: an initialize request whose capabilities
// hold "files" and "experimental": null (valid, and taken by the SDK) is
// rewritten, not a panic that would drop the connection (HTTP) or the
// whole server (stdio).
func TestKeepFilesExperimentalNull(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	ts := httptest.NewServer(transfer.KeepFilesCapability(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"},` +
		`"capabilities":{"files":{"download":true},"experimental":null}}}`
	r, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("initialize with experimental: null through KeepFilesCapability: %v (the handler panicked)", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result"`) {
		t.Errorf("initialize: %d %s", res.StatusCode, b)
	}
}

// chunking sends every POST body chunked, with no Content-Length, as
// clients that stream their bodies do (and as HTTP/2 requests arrive when
// the client sends no content-length).
type chunking struct{ http.RoundTripper }

func (c chunking) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Body != nil {
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(r.Body)
		r.ContentLength = -1
		r.GetBody = nil
	}
	return c.RoundTripper.RoundTrip(r)
}

// TestKeepFilesChunked: a small initialize sent without Content-Length
// (chunked, ContentLength -1) keeps its files capability too.
func TestKeepFilesChunked(t *testing.T) {
	s := exportServer(t, transfer.Options{})
	ts := httptest.NewServer(transfer.KeepFilesCapability(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	defer ts.Close()
	hc := &http.Client{Transport: chunking{http.DefaultTransport}}
	d := &declaring{Transport: &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}}
	cs := clientOn(t, d, "2025-11-25")
	cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{"n": 10}})
	types, _ := contentTypes(t, d.last(t, `"structuredContent"`))
	if got := strings.Join(types, ","); got != "text,file" {
		t.Errorf("chunked initialize through KeepFilesCapability: content types %s, want text,file", got)
	}
}
