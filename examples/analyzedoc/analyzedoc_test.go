package analyzedoc_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// start serves analyzedoc.Handler on 127.0.0.1 with uploads under path
// (such as "/files/") into a diskstore in a temporary directory, and
// returns the server's base URL (no trailing slash).
func start(t *testing.T, path string) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(token.RandomKey())
	if err != nil {
		t.Fatal(err)
	}
	h, err := analyzedoc.Handler(analyzedoc.Options{PublicURL: base + path, Keys: keys, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(ts.Close)
	return base
}

// connect connects a go-sdk client that can call files/authorizeUpload and
// files/authorizeDownload to the server at base, on protocol version ("":
// the SDK's latest).
func connect(t *testing.T, base, version string) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, base, version, nil)
}

// connectWith is connect for a client with options opts.
func connectWith(t *testing.T, base, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "analyzedoc-test", Version: "v1"}, opts)
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeDownloadParams, *transfer.AuthorizeDownloadResult](c, transfer.MethodAuthorizeDownload); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + analyzedoc.MCPPath}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func authorize(t *testing.T, cs *mcp.ClientSession, p *transfer.AuthorizeUploadParams) (*transfer.AuthorizeUploadResult, error) {
	t.Helper()
	return mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](t.Context(), cs, transfer.MethodAuthorizeUpload, p)
}

// declare returns the params that declare b, with its size and SHA-256.
func declare(name, mediaType string, b []byte) *transfer.AuthorizeUploadParams {
	n := int64(len(b))
	d := transfer.SHA256Digest(sha256.Sum256(b))
	return &transfer.AuthorizeUploadParams{Name: name, MimeType: mediaType, Size: &n, Digest: &d}
}

// upload authorizes b, sends it as the descriptor says (a multipart POST:
// the fields, then the file) and returns the file URI.
func upload(t *testing.T, cs *mcp.ClientSession, name, mediaType string, b []byte) string {
	t.Helper()
	res, err := authorize(t, cs, declare(name, mediaType, b))
	if err != nil {
		t.Fatalf("authorize %s: %v", name, err)
	}
	d := res.Upload
	if d.Method != transfer.TransferPOST || d.Multipart == nil {
		t.Fatalf("descriptor %+v: want a multipart POST", d)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range d.Multipart.Fields { // the token: fields go before the file
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile(d.Multipart.FileField, name)
	fw.Write(b)
	mw.Close()
	r, err := http.Post(d.URL, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("upload %s: %d %s", name, r.StatusCode, reply)
	}
	return res.File.URI
}

// wantAnalysis checks a tool's answer for the file b.
func wantAnalysis(t *testing.T, res *mcp.CallToolResult, name, mediaType string, b []byte) {
	t.Helper()
	text := mcptest.Text(t, res)
	sum := sha256.Sum256(b)
	want := fmt.Sprintf("%s: %s, %d bytes, sha256:%s", name, mediaType, len(b), hex.EncodeToString(sum[:]))
	if res.IsError || !strings.HasPrefix(text, want) {
		t.Errorf("answer %q (isError %v), want it to start %q", text, res.IsError, want)
	}
	var a analyzedoc.Analysis
	sc, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(sc, &a); err != nil || a.Size != int64(len(b)) || a.SHA256 != hex.EncodeToString(sum[:]) || a.MediaType != mediaType {
		t.Errorf("structuredContent %s", sc)
	}
}

// text returns about n bytes of text/plain in lines of random words, and
// its line count.
func text(n int) ([]byte, int64) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"upload", "out", "of", "band", "file", "bytes", "streaming", "mcp", "digest"}
	var b bytes.Buffer
	var lines int64
	for b.Len() < n {
		for range 1 + r.IntN(12) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
		lines++
	}
	return b.Bytes(), lines
}

// pdf is a small PDF: one empty page.
var pdf = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
	"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n" +
	"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n" +
	"trailer\n<< /Root 1 0 R >>\n%%EOF\n")

func TestToolsList(t *testing.T) {
	cs := connect(t, start(t, "/files/"), "")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		Accept        []string `json:"accept"`
		MaxSize       int64    `json:"maxSize"`
		TransferModes []string `json:"transferModes"`
	}
	got := map[string]file{}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				File *file `json:"x-mcp-file"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		for name, p := range s.Properties {
			if p.File != nil { // export_report's title and size are not files
				got[tool.Name+"."+name] = *p.File
			}
		}
	}
	want := map[string]file{
		"analyze_document.document": {[]string{"application/pdf", "text/plain"}, 1 << 30, []string{"upload"}},
		"read_text.text":            {[]string{"text/plain"}, 5 << 20, []string{"inline", "upload"}},
		// import_archive's file comes through a page; a client that could
		// not show it sends the page's file URI back here.
		"import_archive.archive": {nil, 2 << 30, []string{"upload"}},
	}
	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
		t.Errorf("file arguments\n got %s\nwant %s", g, w)
	}
	slices.Sort(names)
	if g, w := fmt.Sprint(names), "[analyze_document export_report import_archive read_text]"; g != w {
		t.Errorf("tools %s, want %s", g, w)
	}
	// import_archive asks the person for its file: the model need give nothing.
	for _, tool := range res.Tools {
		if b, _ := json.Marshal(tool.InputSchema); tool.Name == "import_archive" && strings.Contains(string(b), `"required"`) {
			t.Errorf("import_archive's input schema %s, want no required argument", b)
		}
	}
}

// TestAnalyzeUploads uploads a 3 MiB text file and a PDF, on both protocol
// generations, and calls analyze_document with their file URIs.
func TestAnalyzeUploads(t *testing.T) {
	base := start(t, "/files/")
	big, lines := text(3 << 20)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, base, version)
			for _, f := range []struct {
				name, mediaType string
				b               []byte
			}{
				{"notes.txt", "text/plain", big},
				{"report.pdf", "application/pdf", pdf},
			} {
				uri := upload(t, cs, f.name, f.mediaType, f.b)
				if !strings.HasPrefix(uri, "mcp-file://127.0.0.1:") {
					t.Errorf("file URI %q", uri)
				}
				res := mcptest.Call(t, cs, "analyze_document", map[string]any{"document": uri})
				wantAnalysis(t, res, f.name, f.mediaType, f.b)
				if f.mediaType == "text/plain" && !strings.HasSuffix(mcptest.Text(t, res), fmt.Sprintf(", %d lines", lines)) {
					t.Errorf("answer %q: want %d lines", mcptest.Text(t, res), lines)
				}
			}
		})
	}
}

// TestReadText: read_text takes its file inline and uploaded.
func TestReadText(t *testing.T) {
	cs := connect(t, start(t, "/files/"), "")
	b, _ := text(1 << 20)
	wantAnalysis(t, mcptest.Call(t, cs, "read_text", map[string]any{"text": mcptest.DataURI("text/plain", b)}), "(unnamed)", "text/plain", b)
	wantAnalysis(t, mcptest.Call(t, cs, "read_text", map[string]any{"text": upload(t, cs, "a.txt", "text/plain", b)}), "a.txt", "text/plain", b)
}

// TestRejections: what the runtime refuses before a handler runs, and what
// files/authorizeUpload refuses before a byte is sent.
func TestRejections(t *testing.T) {
	cs := connect(t, start(t, "/files/"), "")
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"analyze_document", map[string]any{"document": mcptest.DataURI("text/plain", []byte("inline"))},
			"Argument 'document' is a data: URI, but it takes uploaded files only (transferModes: upload)"},
		{"analyze_document", map[string]any{"document": "mcp-file://127.0.0.1/file_X.k.1.m"}, "Argument 'document' is not a usable file URI"},
		{"read_text", map[string]any{"text": mcptest.DataURI("text/plain", make([]byte, 5<<20+1))}, "Argument 'text' exceeds maxSize: received 5242881 bytes, limit is 5242880."},
		// An uploaded PDF, authorized for analyze_document, is still held to read_text's accept.
		{"read_text", map[string]any{"text": upload(t, cs, "r.pdf", "application/pdf", pdf)}, `Argument 'text' has a media type that accept does not allow: received "application/pdf"`},
	}
	for _, c := range calls {
		res := mcptest.Call(t, cs, c.tool, c.args)
		if got := mcptest.Text(t, res); !res.IsError || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q (isError %v), want %q", c.tool, got, res.IsError, c.want)
		}
	}

	size := func(n int64) *int64 { return &n }
	auths := []struct {
		name   string
		p      *transfer.AuthorizeUploadParams
		reason string
	}{
		// import_archive's archive takes any type of up to 2 GiB.
		{"larger than every field", &transfer.AuthorizeUploadParams{MimeType: "text/plain", Size: size(2<<30 + 1)}, transfer.ReasonMaxSizeExceeded},
	}
	for _, a := range auths {
		_, err := authorize(t, cs, a.p)
		var je *jsonrpc.Error
		d, _ := transfer.ErrorDataOf(err)
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || d.Reason != a.reason {
			t.Errorf("%s: %v (data %+v), want -32602 with reason %s", a.name, err, d, a.reason)
		}
		if a.reason == transfer.ReasonMaxSizeExceeded && (d.MaxSize == nil || *d.MaxSize != 2<<30) {
			t.Errorf("%s: data %+v, want maxSize %d", a.name, d, 2<<30)
		}
	}
}

// TestPublicURLPath: the upload endpoint is mounted at PublicURL's path,
// whatever characters it holds.
func TestPublicURLPath(t *testing.T) {
	for _, path := range []string{"/some/where/", "/my%20files/{x}/", "/"} {
		base := start(t, path)
		cs := connect(t, base, "")
		res, err := authorize(t, cs, declare("a.txt", "text/plain", []byte("hello\n")))
		if err != nil {
			t.Fatal(err)
		}
		if want := base + path + "upload"; res.Upload.URL != want {
			t.Errorf("upload URL %q, want %q", res.Upload.URL, want)
		}
		uri := upload(t, cs, "b.txt", "text/plain", []byte("hello\n"))
		wantAnalysis(t, mcptest.Call(t, cs, "analyze_document", map[string]any{"document": uri}), "b.txt", "text/plain", []byte("hello\n"))
	}
}

// TestMaxRequestBytes: the limit fits read_text's inline 5 MiB and counts
// analyze_document's 1 GiB as the file URI it travels as.
func TestMaxRequestBytes(t *testing.T) {
	n, err := analyzedoc.MaxRequestBytes()
	if err != nil {
		t.Fatal(err)
	}
	if inline := int64(5<<20) * 4 / 3; n < inline || n > 8<<20 {
		t.Errorf("MaxRequestBytes = %d, want between %d (5 MiB in base64) and 8 MiB", n, inline)
	}
}

func TestHandlerBadPublicURL(t *testing.T) {
	for _, u := range []string{"", "files/", "ftp://example.com/files/", "https://example.com/files/?x=1"} {
		if _, err := analyzedoc.Handler(analyzedoc.Options{PublicURL: u}); err == nil {
			t.Errorf("Handler(PublicURL %q) succeeded", u)
		}
	}
}

// browse plays the person's browser on an upload page: it GETs the page
// and posts its form as a browser does, from the page's origin, with the
// file b named name of type mediaType, asking for JSON as the page's
// script does; it returns the size the server says it stored.
func browse(pageURL, name, mediaType string, b []byte) (int64, error) {
	p, err := mcptest.OpenUploadPage(nil, pageURL)
	if err != nil {
		return 0, err
	}
	if p.Status != http.StatusOK || p.Action == "" || p.Token == "" {
		return 0, fmt.Errorf("GET the page: %d, no form with an action and a token:\n%s", p.Status, p.HTML)
	}
	code, body, err := mcptest.PagePost{Action: p.Action, Origin: mcptest.OriginOf(pageURL), Token: p.Token, Name: name, MediaType: mediaType, Body: b, JSON: true}.Post(nil)
	if err != nil {
		return 0, err
	}
	var stored struct {
		Size  int64  `json:"size"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &stored); err != nil || code != http.StatusCreated {
		return 0, fmt.Errorf("POST the form: %d %q (%v)", code, stored.Error, err)
	}
	return stored.Size, nil
}

// wantImport checks import_archive's answer for the file b, named name,
// of type mediaType: the text has its byte count and digest, the
// structured answer the same and action accept.
func wantImport(t *testing.T, res *mcp.CallToolResult, name, mediaType string, b []byte) {
	t.Helper()
	text := mcptest.Text(t, res)
	sum := hex.EncodeToString(digestOf(b))
	if want := fmt.Sprintf("%s: %s, %d bytes, sha256:%s", name, mediaType, len(b), sum); res.IsError || !strings.HasPrefix(text, want) {
		t.Errorf("answer %q (isError %v), want it to start %q", text, res.IsError, want)
	}
	var got analyzedoc.Import
	sc, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(sc, &got); err != nil || got.Action != runtime.Accept || got.File == nil ||
		got.File.Size != int64(len(b)) || got.File.SHA256 != sum || got.File.Name != name || got.File.MediaType != mediaType {
		t.Errorf("structuredContent %s", sc)
	}
}

func digestOf(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

// urlClient returns the options of a client that declares URL-mode
// elicitation and answers each with action; when it accepts, the person
// uploads file (named archive.zip) through the page, in the background,
// as after the client opened the page in a browser. The client records
// the elicitations it was sent in shown, the outcome of each upload in
// uploaded, and each notifications/elicitation/complete in completed
// (when not nil).
func urlClient(action string, file []byte, shown chan<- *mcp.ElicitParams, uploaded chan<- error, completed chan<- string) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			shown <- req.Params
			if req.Params.Mode != "url" {
				return nil, fmt.Errorf("asked in mode %q, want url", req.Params.Mode)
			}
			if action == "accept" {
				go func() {
					n, err := browse(req.Params.URL, "archive.zip", "application/zip", file)
					if err == nil && n != int64(len(file)) {
						err = fmt.Errorf("the page stored %d bytes, want %d", n, len(file))
					}
					uploaded <- err
				}()
			}
			return &mcp.ElicitResult{Action: action}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
			if completed != nil {
				completed <- r.Params.ElicitationID
			}
		},
	}
}

// TestImportArchive: a client that declares elicitation.url gets the
// upload page (as an input request on 2026-07-28, whose retry waits for
// the upload; as elicitation/create on 2025-11-25, followed by
// notifications/elicitation/complete), the person uploads a 3 MiB zip
// through it as a browser would, and import_archive answers with the size
// and SHA-256 of the bytes it read back.
func TestImportArchive(t *testing.T) {
	base := start(t, "/files/")
	archive := mcptest.Zip(t, 3<<20, 3)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			shown := make(chan *mcp.ElicitParams, 4)
			uploaded := make(chan error, 4)
			completed := make(chan string, 4)
			cs := connectWith(t, base, version, urlClient("accept", archive, shown, uploaded, completed))
			wantImport(t, mcptest.Call(t, cs, "import_archive", map[string]any{}), "archive.zip", "application/zip", archive)
			select {
			case err := <-uploaded:
				if err != nil {
					t.Errorf("upload through the page: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("the person's upload through the page did not end")
			}
			if len(shown) != 1 {
				t.Fatalf("the client was sent %d elicitations, want 1", len(shown))
			}
			e := <-shown
			if e.ElicitationID == "" || !strings.HasPrefix(e.URL, base+"/files/page/") || !strings.Contains(e.Message, "archive") {
				t.Errorf("elicitation %+v, want the page under /files/page/ with an id and a message", e)
			}
			if version == "2026-07-28" {
				return // the answer is the retry's result: nothing to complete
			}
			mcptest.WantCompleted(t, completed, e.ElicitationID)
		})
	}
}

// TestImportArchiveDeclined: a person who declines or dismisses the page
// gets a text that says they declined, not an error.
func TestImportArchiveDeclined(t *testing.T) {
	base := start(t, "/files/")
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		for _, action := range []runtime.Action{runtime.Decline, runtime.Cancel} {
			t.Run(version+"/"+string(action), func(t *testing.T) {
				shown := make(chan *mcp.ElicitParams, 4)
				cs := connectWith(t, base, version, urlClient(string(action), nil, shown, nil, nil))
				res := mcptest.Call(t, cs, "import_archive", map[string]any{})
				if text := mcptest.Text(t, res); res.IsError || !strings.Contains(text, "declined") {
					t.Errorf("answer %q (isError %v), want a text saying the person declined", text, res.IsError)
				}
				var got analyzedoc.Import
				sc, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(sc, &got); err != nil || got.Action != action || got.File != nil {
					t.Errorf("structuredContent %s, want action %s and no file", sc, action)
				}
			})
		}
	}
}

// linkOf checks that res is import_archive's answer to a client without
// URL-mode elicitation: a text with the page's link, what to upload and
// what to do after, and a resource_link to the page. It returns the page
// and the file URI to send back as the archive argument.
func linkOf(t *testing.T, base string, res *mcp.CallToolResult) (pageURL, fileURI string) {
	t.Helper()
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("result %q (isError %v), want a text and a resource_link", mcptest.Text(t, res), res.IsError)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	link, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok || !strings.HasPrefix(link.URI, base+"/files/page/") {
		t.Fatalf("second content %#v, want a resource_link to the page under /files/page/", res.Content[1])
	}
	for _, want := range []string{link.URI, "any type, up to 2 GiB", "call import_archive again"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text %q lacks %q", text, want)
		}
	}
	var sc analyzedoc.Import
	if b, _ := json.Marshal(res.StructuredContent); json.Unmarshal(b, &sc) != nil || sc.Pending != text || sc.Action != "" || sc.File != nil {
		t.Errorf("structuredContent %s, want the link's text as pending, for hosts that show the model only that", b)
	}
	var arg struct{ Archive string }
	if err := json.Unmarshal([]byte(regexp.MustCompile(`\{"archive":"[^"]*"\}`).FindString(text)), &arg); err != nil || !strings.HasPrefix(arg.Archive, "mcp-file:") {
		t.Fatalf("the text %q names no file URI to send back as the archive", text)
	}
	return link.URI, arg.Archive
}

// TestImportArchiveLink: a client without any elicitation, on 2025-11-25
// (a stateful session), gets the page's link as import_archive's result;
// the person uploads through it, and the retry in the same session, with
// no argument, gets the file.
func TestImportArchiveLink(t *testing.T) {
	base := start(t, "/files/")
	archive := mcptest.Zip(t, 1<<20, 3)
	cs := connect(t, base, "2025-11-25")
	page, _ := linkOf(t, base, mcptest.Call(t, cs, "import_archive", map[string]any{}))
	if n, err := browse(page, "archive.zip", "application/zip", archive); err != nil || n != int64(len(archive)) {
		t.Fatalf("upload through the page: %d bytes, %v", n, err)
	}
	wantImport(t, mcptest.Call(t, cs, "import_archive", map[string]any{}), "archive.zip", "application/zip", archive)
}

// TestImportArchiveLinkStateless: on 2026-07-28, serve.Handler serves each
// request in a session of its own, so an anonymous client's retry finds
// nothing of the first call but what it sends back: the page's file URI,
// as the archive argument, which gets the file once.
func TestImportArchiveLinkStateless(t *testing.T) {
	base := start(t, "/files/")
	archive := mcptest.Zip(t, 1<<20, 3)
	cs := connect(t, base, "2026-07-28")
	page, uri := linkOf(t, base, mcptest.Call(t, cs, "import_archive", map[string]any{}))
	if n, err := browse(page, "archive.zip", "application/zip", archive); err != nil || n != int64(len(archive)) {
		t.Fatalf("upload through the page: %d bytes, %v", n, err)
	}
	wantImport(t, mcptest.Call(t, cs, "import_archive", map[string]any{"archive": uri}), "archive.zip", "application/zip", archive)
	res := mcptest.Call(t, cs, "import_archive", map[string]any{"archive": uri})
	if text := mcptest.Text(t, res); !res.IsError || !strings.Contains(text, "earlier call took already") {
		t.Errorf("a second call with the page's file URI: %q (isError %v), want it refused", text, res.IsError)
	}
}
