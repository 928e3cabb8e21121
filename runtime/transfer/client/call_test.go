package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// A callSite is a real server built with the runtime, with uploads
// (transfer.Register) over streamable HTTP, that counts the requests it
// receives by method. Its tools: host (testtypes.HostArgs: FileData
// objects, single and array, and a ChatGPT file object), describe (testtypes.ImageArgs: a PNG or
// JPEG of at most 1 KiB, inline or upload), blob (testtypes.BigArgs: any
// file of up to 5 MiB), docs (testtypes.DocsArgs: up to three PDFs or
// texts of 2 KiB), document (testtypes.DocumentArgs: upload only), and
// report, which hands back the file report.txt.
type callSite struct {
	url  string
	mu   sync.Mutex
	seen map[string]int
}

// report is what the report tool hands back.
var report = []byte("line 1\nline 2\n")

func newCallSite(t *testing.T, withTransfer bool) (*callSite, *mcp.Server) {
	t.Helper()
	cs := &callSite{seen: map[string]int{}}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	cs.url = ts.URL
	s := mcp.NewServer(&mcp.Implementation{Name: "call-site", Version: "v1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			cs.mu.Lock()
			cs.seen[method]++
			cs.mu.Unlock()
			return next(ctx, method, req)
		}
	})
	if withTransfer {
		h, err := transfer.Register(s, transfer.Options{Keys: testKeyring(t), PublicURL: ts.URL + "/files/", Store: memstore.New(nil)})
		if err != nil {
			t.Fatal(err)
		}
		mux.Handle("/files/", h)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "describe"}, readAll(func(in testtypes.ImageArgs) runtime.File { return in.Image }))
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll(func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	if withTransfer {
		runtime.AddTool(s, &mcp.Tool{Name: "document"}, readAll(func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	} else {
		// The runtime refuses an upload-only tool on a server without
		// uploads; a server written otherwise may have one all the same.
		s.AddTool(&mcp.Tool{Name: "document", InputSchema: testtypes.DocumentArgs{}.MCPSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called"}}}, nil
		})
	}
	runtime.AddTool(s, &mcp.Tool{Name: "host"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.HostArgs) (*mcp.CallToolResult, any, error) {
		lines := []string{in.Photo.Name + " " + described(in.Photo.MediaType, int64(len(in.Photo.Bytes())), sum(in.Photo.Bytes()))}
		for _, p := range in.Pages {
			lines = append(lines, p.Name+" "+described(p.MediaType, int64(len(p.Bytes())), sum(p.Bytes())))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(lines, "\n")}}}, nil, nil
	})
	runtime.AddTool(s, &mcp.Tool{Name: "docs"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.DocsArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("doc ", len(in.Docs))}}}, nil, nil
	})
	if withTransfer {
		runtime.AddTool(s, &mcp.Tool{Name: "report"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, testtypes.ReportOut, error) {
			v, err := transfer.Save(ctx, transfer.Output{Name: "report.txt", MediaType: "text/plain", Data: report})
			if err != nil {
				return nil, testtypes.ReportOut{}, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{transfer.NewFileContent(v)}}, testtypes.ReportOut{Report: v, Lines: 2}, nil
		})
	}
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	return cs, s
}

// noArgs are the arguments of a tool that takes none.
type noArgs struct{}

func (noArgs) MCPSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false}`)
}

// count is how many requests of method the site received.
func (c *callSite) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[method]
}

func testKeyring(t *testing.T) *token.Keyring {
	t.Helper()
	k, err := token.NewKey("", bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(k)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// hostSession connects to url as a host that downloads: files capability
// declared, file blocks read through WrapTransport.
func hostSession(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": client.FilesCapability()}},
	})
	if err := client.Enable(c); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), client.WrapTransport(&mcp.StreamableClientTransport{Endpoint: url + "/mcp"}, nil), &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func sumHex(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func sum(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

// TestCallTool: files reach the tools inline or uploaded as the mode,
// the size and the field's transferModes say, on both protocol
// generations, and Sent reports each.
func TestCallTool(t *testing.T) {
	site, _ := newCallSite(t, true)
	png := mcptest.PNG(t, 4, 4, false)
	pngPath := writeFile(t, "dot.png", png)
	text := bytes.Repeat([]byte("a line of text\n"), 100) // 1500 bytes
	textPath := writeFile(t, "notes.txt", text)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := hostSession(t, site.url, v)
			for _, tt := range []struct {
				name     string
				tool     string
				files    map[string][]client.LocalFile
				o        client.CallOptions
				uploaded bool
				want     string
			}{
				{"auto small: inline", "describe", map[string][]client.LocalFile{"image": {{Path: pngPath}}}, client.CallOptions{}, false, "image/png"},
				{"upload mode", "describe", map[string][]client.LocalFile{"image": {{Path: pngPath}}}, client.CallOptions{Mode: client.ModeUpload}, true, "image/png"},
				{"auto over InlineMax: uploaded", "blob", map[string][]client.LocalFile{"blob": {{Path: textPath}}}, client.CallOptions{InlineMax: 1000}, true, "text/plain"},
				{"upload-only field", "document", map[string][]client.LocalFile{"document": {{Path: textPath}}}, client.CallOptions{}, true, "text/plain"},
				{"declared type with parameters", "blob", map[string][]client.LocalFile{"blob": {{Path: textPath, MediaType: "Text/Plain; charset=UTF-8"}}}, client.CallOptions{}, false, "text/plain"},
			} {
				var sent []client.SentFile
				o := tt.o
				o.Upload.AllowHTTP = true
				o.Sent = func(s client.SentFile) { sent = append(sent, s) }
				tool, err := client.FindTool(t.Context(), cs, tt.tool)
				if err != nil {
					t.Fatal(err)
				}
				res, err := client.CallTool(t.Context(), cs, tool, nil, tt.files, &o)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				var f client.LocalFile
				for _, fs := range tt.files {
					f = fs[0]
				}
				b, _ := os.ReadFile(f.Path)
				if got := mcptest.Text(t, res); res.IsError || !strings.Contains(got, sumHex(b)) || !strings.HasPrefix(got, tt.want) {
					t.Errorf("%s: %q (isError %v), want %s and the file's sha256", tt.name, got, res.IsError, tt.want)
				}
				if len(sent) != 1 || sent[0].Uploaded != tt.uploaded || sent[0].Size != int64(len(b)) || sent[0].Path != f.Path ||
					tt.uploaded != strings.HasPrefix(sent[0].URI, "mcp-file:") {
					t.Errorf("%s: Sent %+v, want one file, uploaded %v", tt.name, sent, tt.uploaded)
				}
			}
			// An array field gets an array, values go as they are.
			tool, err := client.FindTool(t.Context(), cs, "docs")
			if err != nil {
				t.Fatal(err)
			}
			doc := writeFile(t, "a.txt", []byte("short text"))
			res, err := client.CallTool(t.Context(), cs, tool, map[string]any{"names": []string{"a", "b"}},
				map[string][]client.LocalFile{"docs": {{Path: doc}, {Path: doc}}}, nil)
			if err != nil || res.IsError || mcptest.Text(t, res) != "doc doc " {
				t.Errorf("docs with two files: %+v, %v", res, err)
			}
		})
	}
	if _, err := client.FindTool(t.Context(), hostSession(t, site.url, ""), "nope"); err == nil || !strings.Contains(err.Error(), `no tool "nope" (it has `) {
		t.Errorf("FindTool(nope) = %v, want an error listing the tools", err)
	}
}

// TestCallToolChecksBeforeSending: files and values that do not fit the
// schema are ErrArguments with the reason, and nothing reaches the
// server: no upload authorized, no tool called.
func TestCallToolChecksBeforeSending(t *testing.T) {
	site, _ := newCallSite(t, true)
	cs := hostSession(t, site.url, "")
	png := mcptest.PNG(t, 4, 4, false)
	pngPath := writeFile(t, "dot.png", png)
	big := writeFile(t, "big.png", mcptest.PNG(t, 40, 40, true)) // > 1 KiB
	txt := writeFile(t, "a.txt", []byte("text"))
	exe := writeFile(t, "a.bin", randomBytes(100, 1))
	tools := map[string]*mcp.Tool{}
	for _, n := range []string{"describe", "docs", "document"} {
		tool, err := client.FindTool(t.Context(), cs, n)
		if err != nil {
			t.Fatal(err)
		}
		tools[n] = tool
	}
	before := site.count("tools/call")
	lf := func(paths ...string) []client.LocalFile {
		var out []client.LocalFile
		for _, p := range paths {
			out = append(out, client.LocalFile{Path: p})
		}
		return out
	}
	for _, tt := range []struct {
		name   string
		tool   string
		values map[string]any
		files  map[string][]client.LocalFile
		o      client.CallOptions
		want   string
	}{
		{"over maxSize", "describe", nil, map[string][]client.LocalFile{"image": lf(big)}, client.CallOptions{}, `argument "image" takes files of at most 1024 bytes (maxSize); ` + big + " is "},
		{"over maxSize, upload", "describe", nil, map[string][]client.LocalFile{"image": lf(big)}, client.CallOptions{Mode: client.ModeUpload}, "(maxSize)"},
		{"media type by extension", "describe", nil, map[string][]client.LocalFile{"image": lf(txt)}, client.CallOptions{}, `argument "image" accepts image/png, image/jpeg; ` + txt + " is text/plain"},
		{"media type sniffed", "describe", nil, map[string][]client.LocalFile{"image": lf(exe)}, client.CallOptions{}, "is application/octet-stream"},
		{"media type declared", "describe", nil, map[string][]client.LocalFile{"image": {{Path: pngPath, MediaType: "image/gif"}}}, client.CallOptions{}, "is image/gif"},
		{"bad media type", "describe", nil, map[string][]client.LocalFile{"image": {{Path: pngPath, MediaType: "png"}}}, client.CallOptions{}, `media type "png" of`},
		{"upload-only inline", "document", nil, map[string][]client.LocalFile{"document": lf(txt)}, client.CallOptions{Mode: client.ModeInline}, `argument "document" is upload only (transferModes upload): it cannot go inline`},
		{"too many", "docs", nil, map[string][]client.LocalFile{"docs": lf(txt, txt, txt, txt)}, client.CallOptions{}, `argument "docs" takes at most 3 files (maxItems), 4 are given`},
		{"two for one", "describe", nil, map[string][]client.LocalFile{"image": lf(pngPath, pngPath)}, client.CallOptions{}, `argument "image" takes one file, and is given 2`},
		{"unknown file", "describe", nil, map[string][]client.LocalFile{"imag": lf(pngPath)}, client.CallOptions{}, `tool "describe" has no argument "imag" (it takes values detail; files image)`},
		{"unknown value", "describe", map[string]any{"x": 1}, map[string][]client.LocalFile{"image": lf(pngPath)}, client.CallOptions{}, `has no argument "x"`},
		{"file for a value", "describe", nil, map[string][]client.LocalFile{"image": lf(pngPath), "detail": lf(pngPath)}, client.CallOptions{}, `argument "detail" is not a file argument`},
		{"both", "describe", map[string]any{"image": "x"}, map[string][]client.LocalFile{"image": lf(pngPath)}, client.CallOptions{}, `argument "image" is given both a value and files`},
		{"required", "describe", map[string]any{"detail": 1}, nil, client.CallOptions{}, `tool "describe" requires argument "image" (a file)`},
		{"missing", "describe", nil, map[string][]client.LocalFile{"image": lf(filepath.Join(t.TempDir(), "none.png"))}, client.CallOptions{}, "no such file"},
		{"directory", "describe", nil, map[string][]client.LocalFile{"image": lf(t.TempDir())}, client.CallOptions{}, "is not a regular file"},
		{"mode", "describe", nil, map[string][]client.LocalFile{"image": lf(pngPath)}, client.CallOptions{Mode: "sometimes"}, `mode "sometimes": want auto, inline or upload`},
	} {
		_, err := client.CallTool(t.Context(), cs, tools[tt.tool], tt.values, tt.files, &tt.o)
		if !errors.Is(err, client.ErrArguments) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrArguments with %q", tt.name, err, tt.want)
		}
	}
	if n := site.count(transfer.MethodAuthorizeUpload); n != 0 {
		t.Errorf("%d uploads authorized, want none: every case is refused before sending", n)
	}
	if n := site.count("tools/call") - before; n != 0 {
		t.Errorf("%d tool calls, want none", n)
	}
}

// TestCallToolServerDecides: a file declared of a type its bytes are not
// passes the client's checks (it cannot know better), and the server's
// content check refuses it, inline and uploaded: the client is no
// substitute for the server's checks.
func TestCallToolServerDecides(t *testing.T) {
	site, _ := newCallSite(t, true)
	cs := hostSession(t, site.url, "")
	tool, err := client.FindTool(t.Context(), cs, "describe")
	if err != nil {
		t.Fatal(err)
	}
	fake := writeFile(t, "fake.png", []byte("not a picture, just text"))
	res, err := client.CallTool(t.Context(), cs, tool, nil, map[string][]client.LocalFile{"image": {{Path: fake}}}, nil)
	if err != nil || !res.IsError || !strings.Contains(mcptest.Text(t, res), "fails the content check") {
		t.Errorf("inline: %+v, %v; want the server's content check refusal", res, err)
	}
	_, err = client.CallTool(t.Context(), cs, tool, nil, map[string][]client.LocalFile{"image": {{Path: fake}}}, &client.CallOptions{Mode: client.ModeUpload, Upload: client.Options{AllowHTTP: true}})
	if d, _ := wire.ErrorDataOf(err); err == nil || errors.Is(err, client.ErrArguments) || !strings.Contains(err.Error(), `argument "image": uploading`) {
		t.Errorf("uploaded: %v (data %+v), want the upload's refusal, naming the argument", err, d)
	}
}

// TestCallToolWithoutUploads: against a server that serves no
// files/authorizeUpload (-32601), auto mode sends a file meant for an
// upload inline where the field allows it, and says so; an upload-only
// field, or upload mode, is an error that says the server does not serve
// uploads, and no tool is called.
func TestCallToolWithoutUploads(t *testing.T) {
	site, s := newCallSite(t, false)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	if err := client.Enable(c); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	txt := writeFile(t, "notes.txt", bytes.Repeat([]byte("text\n"), 100))
	var sent []client.SentFile
	o := &client.CallOptions{InlineMax: 10, Sent: func(f client.SentFile) { sent = append(sent, f) }}
	blob, err := client.FindTool(t.Context(), cs, "blob")
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.CallTool(t.Context(), cs, blob, nil, map[string][]client.LocalFile{"blob": {{Path: txt}}}, o)
	if err != nil || res.IsError || len(sent) != 1 || !sent[0].Fallback || sent[0].Uploaded {
		t.Errorf("auto over InlineMax: %+v, %v, sent %+v; want the file inline, as a fallback", res, err, sent)
	}
	document, err := client.FindTool(t.Context(), cs, "document")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool *mcp.Tool
		name string
		mode client.Mode
		want string
	}{
		{document, "document", "", `argument "document": the server does not serve files/authorizeUpload (-32601), and the field takes files by upload only (transferModes upload)`},
		{blob, "blob", client.ModeUpload, `argument "blob": the server does not serve files/authorizeUpload (-32601), and the mode is upload`},
	} {
		_, err := client.CallTool(t.Context(), cs, tt.tool, nil, map[string][]client.LocalFile{tt.name: {{Path: txt}}}, &client.CallOptions{Mode: tt.mode})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if n := site.count("tools/call"); n != 1 {
		t.Errorf("%d tool calls, want 1: the refused ones never call the tool", n)
	}
}

// TestSave: a file block and the FileValue of structuredContent name one
// output, which Save downloads, verifies and writes under its name, then
// as report-1.txt beside it; an embedded file whose bytes contradict the
// declared digest is not saved, and leaves nothing behind.
func TestSave(t *testing.T) {
	site, _ := newCallSite(t, true)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := hostSession(t, site.url, v)
			tool, err := client.FindTool(t.Context(), cs, "report")
			if err != nil {
				t.Fatal(err)
			}
			res, err := client.CallTool(t.Context(), cs, tool, nil, nil, nil)
			if err != nil || res.IsError {
				t.Fatalf("report: %+v, %v", res, err)
			}
			outs := client.Outputs(res)
			if len(outs) != 1 || outs[0].File.Name != "report.txt" || outs[0].File.Digest == nil {
				t.Fatalf("Outputs = %+v, want report.txt once, with its digest", outs)
			}
			dir := t.TempDir()
			for _, want := range []string{"report.txt", "report-1.txt"} {
				path, err := client.Save(t.Context(), cs, outs[0], dir, &client.DownloadOptions{AllowHTTP: true})
				if err != nil || path != filepath.Join(dir, want) {
					t.Fatalf("Save = %q, %v; want %s", path, err, want)
				}
				if b, _ := os.ReadFile(path); !bytes.Equal(b, report) {
					t.Errorf("%s holds %q, want the report", path, b)
				}
			}
			if s := outs[0].String(); !strings.HasPrefix(s, "report.txt (text/plain, 14 bytes, sha-256:") {
				t.Errorf("String = %q", s)
			}
		})
	}

	size := int64(len(report))
	digest := wire.SHA256Digest(sha256.Sum256(report))
	for _, tt := range []struct {
		name string
		out  client.Output
		want string
	}{
		{"embedded, other bytes", client.Output{File: wire.FileValue{URI: "mcp-file://s/1", Name: "r.txt", Size: &size, Digest: &digest}, Data: []byte("other bytes, same count")[:size]}, "the embedded file has sha-256"},
		{"embedded, other size", client.Output{File: wire.FileValue{URI: "mcp-file://s/1", Name: "r.txt", Size: &size}, Data: []byte("short")}, "the embedded file has 5 bytes, its size is 14"},
	} {
		dir := t.TempDir()
		_, err := client.Save(t.Context(), nil, tt.out, dir, nil)
		if !errors.Is(err, client.ErrVerify) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrVerify with %q", tt.name, err, tt.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: %d files left, want none", tt.name, len(entries))
		}
	}
	// A name that would leave the directory is made safe.
	dir := t.TempDir()
	path, err := client.Save(t.Context(), nil, client.Output{File: wire.FileValue{URI: "mcp-file://s/2", Name: "../../.hidden/x.txt"}, Data: report}, dir, nil)
	if err != nil || filepath.Dir(path) != dir || strings.HasPrefix(filepath.Base(path), ".") {
		t.Errorf("Save of ../../.hidden/x.txt = %q, %v; want a visible file in %s", path, err, dir)
	}
}

// TestCallToolFileData: a field in Odeus's shape (x-mcpfile-form
// filedata) gets a FileData object the runtime decodes, single and in an
// array: name, media type and bytes arrive, always inline (the object
// carries the bytes), even where auto would upload and the server serves
// uploads; the field's accept, maxSize and maxItems are checked before
// anything is sent; upload mode and a ChatGPT file object (a URL the
// server fetches) are refused, saying why and what to do instead.
func TestCallToolFileData(t *testing.T) {
	site, _ := newCallSite(t, true)
	png := mcptest.PNG(t, 4, 4, false)
	pngPath := writeFile(t, "dot.png", png)
	page1, page2 := []byte("page one\n"), []byte("page two\n")
	p1, p2 := writeFile(t, "p1.txt", page1), writeFile(t, "p2.txt", page2)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := hostSession(t, site.url, v)
			tool, err := client.FindTool(t.Context(), cs, "host")
			if err != nil {
				t.Fatal(err)
			}
			var sent []client.SentFile
			o := &client.CallOptions{InlineMax: 1, Upload: client.Options{AllowHTTP: true}, Sent: func(s client.SentFile) { sent = append(sent, s) }}
			uploads := site.count(transfer.MethodAuthorizeUpload)
			res, err := client.CallTool(t.Context(), cs, tool, nil, map[string][]client.LocalFile{
				"photo": {{Path: pngPath}},
				"pages": {{Path: p1}, {Path: p2, MediaType: "text/plain; charset=utf-8"}},
			}, o)
			if err != nil {
				t.Fatal(err)
			}
			want := "dot.png " + described("image/png", int64(len(png)), sum(png)) + "\n" +
				"p1.txt " + described("text/plain", int64(len(page1)), sum(page1)) + "\n" +
				"p2.txt " + described("text/plain", int64(len(page2)), sum(page2))
			if got := mcptest.Text(t, res); res.IsError || got != want {
				t.Errorf("host: %q (isError %v), want %q", got, res.IsError, want)
			}
			if len(sent) != 3 {
				t.Fatalf("Sent %+v, want three files", sent)
			}
			for _, s := range sent {
				if s.Uploaded || s.Form != "filedata" || s.URI != "" {
					t.Errorf("Sent %+v, want inline as a FileData object", s)
				}
			}
			if n := site.count(transfer.MethodAuthorizeUpload) - uploads; n != 0 {
				t.Errorf("%d uploads authorized, want none: a FileData object carries its bytes", n)
			}
		})
	}

	cs := hostSession(t, site.url, "")
	tool, err := client.FindTool(t.Context(), cs, "host")
	if err != nil {
		t.Fatal(err)
	}
	big := writeFile(t, "big.png", mcptest.PNG(t, 40, 40, true)) // > 1 KiB
	before := site.count("tools/call")
	for _, tt := range []struct {
		name  string
		files map[string][]client.LocalFile
		mode  client.Mode
		want  string
	}{
		{"over maxSize", map[string][]client.LocalFile{"photo": {{Path: big}}}, "", `argument "photo" takes files of at most 1024 bytes (maxSize); ` + big + " is "},
		{"media type", map[string][]client.LocalFile{"photo": {{Path: p1}}}, "", `argument "photo" accepts image/png, image/jpeg; ` + p1 + " is text/plain"},
		{"too many", map[string][]client.LocalFile{"photo": {{Path: pngPath}}, "pages": {{Path: p1}, {Path: p1}, {Path: p1}, {Path: p1}}}, "", `argument "pages" takes at most 3 files (maxItems), 4 are given`},
		{"two for one", map[string][]client.LocalFile{"photo": {{Path: pngPath}, {Path: pngPath}}}, "", `argument "photo" takes one file, and is given 2`},
		{"upload mode", map[string][]client.LocalFile{"photo": {{Path: pngPath}}}, client.ModeUpload, `argument "photo" takes a FileData object, which carries the file's bytes (x-mcpfile-form filedata): it cannot be uploaded (use mode auto or inline)`},
		{"ChatGPT file object", map[string][]client.LocalFile{"photo": {{Path: pngPath}}, "doc": {{Path: p1}}}, "",
			`argument "doc" takes a ChatGPT file object (x-mcpfile-form openai): a URL the server downloads the file from, not the file's bytes, so a local file cannot be sent to it; give it a value instead, {"download_url": URL, "file_id": ID}`},
	} {
		_, err := client.CallTool(t.Context(), cs, tool, nil, tt.files, &client.CallOptions{Mode: tt.mode})
		if !errors.Is(err, client.ErrArguments) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrArguments with %q", tt.name, err, tt.want)
		}
	}
	if n := site.count("tools/call") - before; n != 0 {
		t.Errorf("%d tool calls, want none", n)
	}

	// The server still decides: bytes that contradict the declared type
	// pass the client and are refused by the runtime's content check.
	fake := writeFile(t, "fake.png", []byte("not a picture, just text"))
	res, err := client.CallTool(t.Context(), cs, tool, nil, map[string][]client.LocalFile{"photo": {{Path: fake}}}, nil)
	if err != nil || !res.IsError || !strings.Contains(mcptest.Text(t, res), "fails the content check") {
		t.Errorf("fake PNG: %+v, %v; want the server's content check refusal", res, err)
	}
}

// TestToolArgumentsSchemaKeywords: a FileData field's value is the object
// its schema declares; x-mcp-file stays a data: URI whatever members it
// carries; a property with both keywords, or a form this client does not
// know, cannot be given a file, and says why.
func TestToolArgumentsSchemaKeywords(t *testing.T) {
	txt := writeFile(t, "a.txt", []byte("hello"))
	schema := json.RawMessage(`{"type":"object","properties":{
		"fd":{"type":"object","x-mcpfile-form":{"form":"filedata","accept":["text/plain"]}},
		"uri":{"type":"string","x-mcp-file":{"accept":["text/plain"],"form":"filedata"}},
		"both":{"type":"string","x-mcp-file":{},"x-mcpfile-form":{"form":"filedata"}},
		"odd":{"type":"object","x-mcpfile-form":{"form":"fax"}}}}`)
	args, err := client.ToolArguments(t.Context(), nil, &mcp.Tool{Name: "t", InputSchema: schema}, nil,
		map[string][]client.LocalFile{"fd": {{Path: txt}}, "uri": {{Path: txt}}}, &client.CallOptions{Mode: client.ModeInline})
	if err != nil {
		t.Fatal(err)
	}
	fd, _ := args["fd"].(map[string]any)
	if fd["fileName"] != "a.txt" || fd["mimeType"] != "text/plain" || fd["base64"] != "aGVsbG8=" || fd["size"] != int64(5) || fd["lastModified"] == "" {
		t.Errorf("fd = %#v, want a FileData object of a.txt", args["fd"])
	}
	if args["uri"] != "data:text/plain;base64,aGVsbG8=" {
		t.Errorf("uri = %#v, want a data: URI", args["uri"])
	}
	for name, want := range map[string]string{
		"both": `argument "both" cannot be given a file: it has both x-mcp-file and x-mcpfile-form (want one)`,
		"odd":  `argument "odd" cannot be given a file: its x-mcpfile-form has form "fax" (this client knows filedata and openai)`,
	} {
		_, err := client.ToolArguments(t.Context(), nil, &mcp.Tool{Name: "t", InputSchema: schema}, nil, map[string][]client.LocalFile{name: {{Path: txt}}}, nil)
		if !errors.Is(err, client.ErrArguments) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}
