package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/mcpgo"
)

// onePixelPNG is a valid 1×1 PNG.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// newServer is the describe_image server (examples/describe_image) on
// mcp-go: its three tools and argument types, answering with
// describeimage.DescribeFile.
func newServer() *server.MCPServer {
	s := server.NewMCPServer("describe_image", "v0.1.0")
	answer := func(img runtime.File) *mcp.CallToolResult {
		d, err := describeimage.DescribeFile(img)
		if err != nil {
			return mcp.NewToolResultError(err.Error())
		}
		return mcp.NewToolResultStructuredOnly(d)
	}
	mcpgo.AddTool(s, mcp.NewTool(describeimage.Tool.Name), func(_ context.Context, _ mcp.CallToolRequest, a describeimage.Args) (*mcp.CallToolResult, error) {
		return answer(a.Image), nil
	})
	mcpgo.AddTool(s, mcp.Tool{Name: describeimage.FileDataTool.Name}, func(_ context.Context, _ mcp.CallToolRequest, a describeimage.FileDataArgs) (*mcp.CallToolResult, error) {
		return answer(a.Image), nil
	})
	mcpgo.AddTool(s, mcp.Tool{Name: describeimage.ChatGPTTool.Name}, func(_ context.Context, _ mcp.CallToolRequest, a describeimage.ChatGPTArgs) (*mcp.CallToolResult, error) {
		return answer(a.Image), nil
	})
	return s
}

// A call is a tools/call of the describe_image server.
type call struct {
	name string
	tool string
	args map[string]any
	want string // the text of the isError result; "" for an answer
}

// calls are the calls both servers answer alike, with the texts the
// runtime's tests and the README pin for the refusals.
func calls() []call {
	big := "data:image/png;base64," + base64.StdEncoding.EncodeToString(make([]byte, 5<<20+1))
	img := func(v any) map[string]any { return map[string]any{"image": v} }
	return []call{
		{"valid PNG", "describe_image", img("data:image/png;base64," + onePixelPNG), ""},
		{"wrong type", "describe_image", img("data:application/pdf;base64,JVBERi0xLjcK"),
			`Argument 'image' has a media type that accept does not allow: received "application/pdf", allowed are image/png, image/jpeg, image/gif, image/webp.`},
		{"over maxSize", "describe_image", img(big),
			"Argument 'image' exceeds maxSize: received 5242881 bytes, limit is 5242880."},
		{"bad scheme", "describe_image", img("https://example.com/cat.png"),
			`Argument 'image' is not a data: URI: received scheme "https:", only data: URIs are accepted.`},
		{"malformed URI", "describe_image", img("data:image/png;base64"),
			"Argument 'image' is not a valid data: URI: there is no comma before the data; the form is data:[<mediatype>][;base64],<data>."},
		{"content", "describe_image", img("data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello, world"))),
			`Argument 'image' fails the content check: declared "image/png" but the bytes are text; send image/png data or declare the real media type.`},
		{"wrong JSON type", "describe_image", img(map[string]any{"a": 1}),
			"Argument 'image' has the wrong JSON type: received an object, want a data: URI string."},
		{"missing argument", "describe_image", map[string]any{}, "*"},
		{"unknown argument", "describe_image", map[string]any{"image": "data:image/png;base64," + onePixelPNG, "extra": 1}, "*"},
		{"uploaded file's URI", "describe_image", img("mcp-file://example.com/file_1"), "*"},
		{"FileData", "describe_image_filedata", img(map[string]any{"fileName": "dot.png", "mimeType": "image/png", "base64": onePixelPNG}), ""},
		{"FileData without base64", "describe_image_filedata", img(map[string]any{"fileName": "dot.png", "mimeType": "image/png"}), "*"},
		{"ChatGPT file without a fetcher", "describe_image_chatgpt", img(map[string]any{"download_url": "https://files.example.com/dot.png", "file_id": "file_1"}),
			"Argument 'image' is not a valid ChatGPT file object: this server does not fetch files from URLs (download_url); send the file another way."},
		{"ChatGPT mobile string", "describe_image_chatgpt", img("chat_upload"), "*"},
	}
}

// A result is what a test compares of a tools/call result.
type result struct {
	isError bool
	text    string
}

// goSDKCall returns the answer of the go-sdk describe_image server to c.
func goSDKCall(t *testing.T, cs *gosdk.ClientSession, c call) result {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &gosdk.CallToolParams{Name: c.tool, Arguments: c.args})
	if err != nil {
		t.Fatalf("%s: go-sdk: %v", c.name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: go-sdk: %d content blocks, want 1", c.name, len(res.Content))
	}
	return result{res.IsError, res.Content[0].(*gosdk.TextContent).Text}
}

// goSDKSession connects a client to the go-sdk describe_image server.
func goSDKSession(t *testing.T) *gosdk.ClientSession {
	t.Helper()
	st, ct := gosdk.NewInMemoryTransports()
	if _, err := describeimage.NewServer(describeimage.Options{}).Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "test", Version: "v1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// transports start a client of s over each of mcp-go's transports.
var transports = []struct {
	name  string
	start func(t *testing.T, s *server.MCPServer, opts ...client.ClientOption) *client.Client
}{
	{"in-process", func(t *testing.T, s *server.MCPServer, opts ...client.ClientOption) *client.Client {
		c, err := client.NewInProcessClientWithOptions(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}},
	{"stdio", func(t *testing.T, s *server.MCPServer, opts ...client.ClientOption) *client.Client {
		limit, err := mcpgo.MaxRequestBytesFor(s)
		if err != nil {
			t.Fatal(err)
		}
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- server.NewStdioServer(s).Listen(ctx, mcpgo.LimitLines(toServer, limit), fromServer)
			fromServer.Close()
		}()
		t.Cleanup(func() {
			fromClient.Close()
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("stdio server: %v", err)
			}
		})
		return client.NewClient(transport.NewIO(toClient, fromClient, nil), opts...)
	}},
	{"streamable HTTP", func(t *testing.T, s *server.MCPServer, opts ...client.ClientOption) *client.Client {
		limit, err := mcpgo.MaxRequestBytesFor(s)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(mcpgo.LimitBody(server.NewStreamableHTTPServer(s), limit))
		t.Cleanup(ts.Close)
		tr, err := transport.NewStreamableHTTP(ts.URL + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		return client.NewClient(tr, opts...)
	}},
}

// connect starts and initializes c, with the latest protocol version.
func connect(t *testing.T, c *client.Client) {
	t.Helper()
	connectVersion(t, c, mcp.LATEST_PROTOCOL_VERSION)
}

// connectVersion starts and initializes c, preferring protocol version.
func connectVersion(t *testing.T, c *client.Client, version string) {
	t.Helper()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "v1"}
	if _, err := c.Initialize(t.Context(), req); err != nil {
		t.Fatal(err)
	}
}

// TestSameAnswersAsGoSDK: over each of mcp-go's transports, an mcp-go
// server answers every call as the go-sdk server of the same tools does:
// the valid image described alike, every refusal an isError result with
// the same text, which, where the runtime pins it, is that text.
func TestSameAnswersAsGoSDK(t *testing.T) {
	cs := goSDKSession(t)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			c := tr.start(t, newServer())
			connect(t, c)
			for _, cl := range calls() {
				want := goSDKCall(t, cs, cl)
				if cl.want != "*" && (want.isError != (cl.want != "") || cl.want != "" && want.text != cl.want) {
					t.Fatalf("%s: the go-sdk server answered %+v, want the pinned %q", cl.name, want, cl.want)
				}
				var req mcp.CallToolRequest
				req.Params.Name = cl.tool
				req.Params.Arguments = cl.args
				res, err := c.CallTool(t.Context(), req)
				if err != nil {
					t.Errorf("%s: CallTool: %v", cl.name, err)
					continue
				}
				if len(res.Content) != 1 {
					t.Errorf("%s: %d content blocks, want 1", cl.name, len(res.Content))
					continue
				}
				text, _ := mcp.AsTextContent(res.Content[0])
				if text == nil {
					t.Errorf("%s: content %T, want text", cl.name, res.Content[0])
					continue
				}
				got := result{res.IsError, text.Text}
				if !want.isError {
					// The same description, as JSON.
					got.text, want.text = normalize(t, got.text), normalize(t, want.text)
				}
				if got != want {
					t.Errorf("%s: mcp-go answered %+v, the go-sdk server %+v", cl.name, got, want)
				}
			}
		})
	}
}

// normalize returns the JSON text s re-encoded, keys sorted.
func normalize(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %q", s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSchemaAsGoSDK: tools/list on the wire (stdio) shows each tool's
// input schema, x-mcp-file and x-mcpfile-form entries included, and its
// _meta, equal to what the go-sdk server publishes for the same tool.
func TestSchemaAsGoSDK(t *testing.T) {
	goTools, err := goSDKSession(t).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"v1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := server.NewStdioServer(newServer()).Listen(t.Context(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema any            `json:"inputSchema"`
				Meta        map[string]any `json:"_meta"`
			} `json:"tools"`
		} `json:"result"`
	}
	for line := range strings.Lines(out.String()) {
		if strings.Contains(line, `"id":2`) {
			if err := json.Unmarshal([]byte(line), &list); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(list.Result.Tools) != len(goTools.Tools) {
		t.Fatalf("tools/list has %d tools, the go-sdk server's %d", len(list.Result.Tools), len(goTools.Tools))
	}
	for _, want := range goTools.Tools {
		found := false
		for _, got := range list.Result.Tools {
			if got.Name != want.Name {
				continue
			}
			found = true
			if !reflect.DeepEqual(got.InputSchema, want.InputSchema) {
				t.Errorf("%s: inputSchema\n%v\nwant (go-sdk)\n%v", got.Name, got.InputSchema, want.InputSchema)
			}
			wantMeta := map[string]any(want.Meta)
			if len(wantMeta) == 0 {
				wantMeta = nil
			}
			if !reflect.DeepEqual(jsonValue(t, got.Meta), jsonValue(t, wantMeta)) {
				t.Errorf("%s: _meta %v, want (go-sdk) %v", got.Name, got.Meta, want.Meta)
			}
		}
		if !found {
			t.Errorf("tools/list lacks %s", want.Name)
		}
	}
}

// jsonValue is v through JSON.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var w any
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestMaxRequestBytesFor: the limit is runtime.MaxRequestBytes of the
// tools' input schemas, what the go-sdk example declares.
func TestMaxRequestBytesFor(t *testing.T) {
	got, err := mcpgo.MaxRequestBytesFor(newServer())
	if err != nil {
		t.Fatal(err)
	}
	want, err := describeimage.MaxRequestBytes()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("MaxRequestBytesFor = %d, want %d (describeimage.MaxRequestBytes)", got, want)
	}
	empty, err := mcpgo.MaxRequestBytesFor(server.NewMCPServer("empty", "v1"))
	if err != nil || empty != 4<<20 {
		t.Errorf("MaxRequestBytesFor(a server without tools) = %d, %v; want %d", empty, err, 4<<20)
	}
}

// TestLimitBody: over HTTP, a body longer than the limit is refused with
// 413 before it is read, with the go-sdk's text; one of unknown length is
// cut at the limit, which mcp-go answers with a parse error; one within it
// is served.
func TestLimitBody(t *testing.T) {
	s := newServer()
	limit, err := mcpgo.MaxRequestBytesFor(s)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcpgo.LimitBody(server.NewStreamableHTTPServer(s), limit))
	defer ts.Close()
	post := func(body []byte) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	over := bytes.Repeat([]byte(" "), int(limit)+1)
	code, body := post(over)
	if want := "request body exceeds " + strconv.FormatInt(limit, 10) + " bytes\n"; code != http.StatusRequestEntityTooLarge || body != want {
		t.Errorf("POST of %d bytes: %d %q, want 413 %q", len(over), code, body, want)
	}
	// Of unknown length: cut at the limit, and mcp-go's parse error.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp", io.MultiReader(bytes.NewReader(over)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"code":-32700`) || !strings.Contains(string(b), "request body too large") {
		t.Errorf("POST of %d bytes of unknown length: %d %q, want a JSON-RPC parse error saying the body is too large", len(over), resp.StatusCode, b)
	}
	t.Logf("POST of unknown length over the limit: %d %s", resp.StatusCode, b)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"v1"}}}`
	if code, body := post([]byte(init)); code != http.StatusOK || !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("initialize: %d %q, want 200 and the server's info", code, body)
	}
}

// TestLimitLines: on stdio, the lines within the limit are served and a
// longer one ends the session with a *LineTooLongError.
func TestLimitLines(t *testing.T) {
	s := newServer()
	limit, err := mcpgo.MaxRequestBytesFor(s)
	if err != nil {
		t.Fatal(err)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"v1"}}}` + "\n" +
		strings.Repeat(" ", int(limit)+1) + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	var out bytes.Buffer
	err = server.NewStdioServer(s).Listen(t.Context(), mcpgo.LimitLines(strings.NewReader(in), limit), &out)
	var lerr *mcpgo.LineTooLongError
	if !errors.As(err, &lerr) || lerr.Limit != limit {
		t.Errorf("Listen = %v, want a *LineTooLongError of limit %d", err, limit)
	}
	if !strings.Contains(out.String(), `"id":1`) || strings.Contains(out.String(), `"id":2`) {
		t.Errorf("the session answered %q; want the initialize answered and nothing after the long line", out.String())
	}
}

// TestLimitLinesReader: the reader passes every line of at most limit
// bytes, whatever the reads' boundaries, and fails at the first longer
// one, of which it passes at most limit bytes and never the end.
func TestLimitLinesReader(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		fails    bool
	}{
		{"abc\nabcd\n", "abc\nabcd\n", false},
		{"abcd", "abcd", false},
		{"ab\nabcde\nab\n", "ab\n", true},
		{"abcde", "", true},
		{"\n\n\nabcd\nabcdef", "\n\n\nabcd\n", true},
	} {
		for _, chunk := range []int{1, 2, 3, 100} {
			b, err := io.ReadAll(mcpgo.LimitLines(&chunked{s: tt.in, n: chunk}, 4))
			got := string(b)
			var lerr *mcpgo.LineTooLongError
			if tt.fails && strings.HasPrefix(got, tt.want) {
				// The start of the long line, read before its length was known.
				if rest := got[len(tt.want):]; len(rest) <= 4 && !strings.Contains(rest, "\n") {
					got = tt.want
				}
			}
			if got != tt.want || errors.As(err, &lerr) != tt.fails || (err != nil && !tt.fails) {
				t.Errorf("LimitLines(%q, 4) in reads of %d: %q, %v; want %q, failing %v", tt.in, chunk, got, err, tt.want, tt.fails)
			}
		}
	}
}

// chunked reads s n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// TestAddToolRefuses: AddTool panics, as runtime.AddTool does, for a tool
// whose input schema is already set, and for a field that takes uploaded
// files only, which an mcp-go server cannot receive yet.
func TestAddToolRefuses(t *testing.T) {
	h := func(context.Context, mcp.CallToolRequest, describeimage.Args) (*mcp.CallToolResult, error) {
		return nil, nil
	}
	for _, tt := range []struct {
		name string
		add  func()
		want string
	}{
		{"raw input schema", func() {
			mcpgo.AddTool(server.NewMCPServer("t", "v1"), mcp.NewToolWithRawSchema("t", "", json.RawMessage(`{"type":"object"}`)), h)
		}, "the input schema must be unset"},
		{"properties", func() {
			mcpgo.AddTool(server.NewMCPServer("t", "v1"), mcp.NewTool("t", mcp.WithString("image")), h)
		}, "the input schema must be unset"},
		{"upload only", func() {
			mcpgo.AddTool(server.NewMCPServer("t", "v1"), mcp.Tool{Name: "t"}, func(context.Context, mcp.CallToolRequest, testtypes.UploadForm) (*mcp.CallToolResult, error) {
				return nil, nil
			})
		}, "argument doc takes uploaded files only (transfer=upload), but the server does not serve files/authorizeUpload: call mcpgo.ServeFiles(s, …) before adding the tool that uses it"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tt.want) {
					t.Errorf("%s: AddTool panicked with %v, want %q", tt.name, r, tt.want)
				}
			}()
			tt.add()
		}()
	}
}
