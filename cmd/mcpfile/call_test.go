package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// callRun runs mcpfile call with args.
func callRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"call"}, args...), nil, &o, &e)
	return code, o.String(), e.String()
}

// writeFile writes b to a new file named name and returns its path.
func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// dotPNG is a 1×1 PNG.
var dotPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// TestCallDescribeImage: a PNG given by path reaches describe_image (over
// stdio) inline, and the tool's answer is printed; a file larger than
// -inline-max, which the field would let be uploaded, goes inline when the
// server serves no uploads.
func TestCallDescribeImage(t *testing.T) {
	t.Setenv(serveEnv, "describe_image")
	img := writeTemp(t, "dot.png", dotPNG)
	code, stdout, stderr := callRun(t, "describe_image", "image="+"@"+img, "--", os.Args[0])
	if code != 0 || !strings.Contains(stdout, sha(dotPNG)) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the PNG's sha256", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "inline") {
		t.Errorf("stderr %q does not say the file went inline", stderr)
	}
	code, stdout, stderr = callRun(t, "-inline-max", "10", "describe_image", "image=@"+img, "--", os.Args[0])
	if code != 0 || !strings.Contains(stdout, sha(dotPNG)) || !strings.Contains(stderr, "does not serve files/authorizeUpload: sending") {
		t.Errorf("-inline-max 10: exit %d, stdout %q, stderr %q; want 0, the sha256, and the fallback to inline", code, stdout, stderr)
	}
}

// TestCallHostShapes: describe_image_filedata (form=filedata) gets the
// PNG as a FileData object, and says so; describe_image_chatgpt
// (form=openai), which takes a URL the server fetches, refuses a local
// file before anything is sent, saying what to give instead.
func TestCallHostShapes(t *testing.T) {
	t.Setenv(serveEnv, "describe_image")
	img := writeTemp(t, "dot.png", dotPNG)
	code, stdout, stderr := callRun(t, "-inline-max", "10", "describe_image_filedata", "image=@"+img, "--", os.Args[0])
	if code != 0 || !strings.Contains(stdout, sha(dotPNG)) || !strings.Contains(stderr, "inline as a FileData object for \"image\"") {
		t.Errorf("filedata: exit %d, stdout %q, stderr %q; want 0, the PNG's sha256, and a FileData object sent", code, stdout, stderr)
	}
	code, stdout, stderr = callRun(t, "describe_image_chatgpt", "image=@"+img, "--", os.Args[0])
	if code != 2 || stdout != "" || !strings.Contains(stderr, `argument "image" takes a ChatGPT file object`) || !strings.Contains(stderr, `{"download_url": URL, "file_id": ID}`) {
		t.Errorf("chatgpt: exit %d, stdout %q, stderr %q; want 2 and the reason with what to give instead", code, stdout, stderr)
	}
}

// analyzeDocument serves the analyze_document example over HTTP, with its
// upload and download endpoints, and returns its MCP URL.
func analyzeDocument(t *testing.T) string {
	t.Helper()
	var h serveHandler
	srv := httptest.NewServer(&h)
	t.Cleanup(srv.Close)
	s, _, err := analyzedoc.NewServer(analyzedoc.Options{PublicURL: srv.URL + "/files/", Store: memstore.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	h.Handler = serve.Handler(s, serve.Options{Path: analyzedoc.MCPPath})
	return srv.URL + analyzedoc.MCPPath
}

// TestCallAnalyzeDocument: against analyze_document on both protocol
// generations, an upload-only argument is uploaded, an inline-or-upload
// one goes inline when small and is uploaded above -inline-max, and the
// report export_report returns, a file block (call declares
// files.download), is downloaded with -o (into a directory it makes) and
// verified against its digest.
func TestCallAnalyzeDocument(t *testing.T) {
	url := analyzeDocument(t)
	text := bytes.Repeat([]byte("a line of text\n"), 1000)
	doc := writeTemp(t, "notes.txt", text)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			for _, tt := range []struct {
				args []string
				how  string
			}{
				{[]string{"analyze_document", "document=@" + doc}, "uploaded"},
				{[]string{"read_text", "text=@" + doc}, "inline"},
				{[]string{"-inline-max", "100", "read_text", "text=@" + doc}, "uploaded"},
				{[]string{"-mode", "upload", "read_text", "text=@" + doc}, "uploaded"},
			} {
				args := append([]string{"-protocol", v, "-url", url}, tt.args...)
				code, stdout, stderr := callRun(t, args...)
				if code != 0 || !strings.Contains(stdout, sha(text)) || !strings.Contains(stdout, "1000 lines") {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, the file's sha256 and 1000 lines", tt.args, code, stdout, stderr)
				}
				if !strings.Contains(stderr, tt.how) {
					t.Errorf("%q: stderr %q does not say the file was %s", tt.args, stderr, tt.how)
				}
			}
			for _, size := range []int{1000, 3 << 20} {
				dir := filepath.Join(t.TempDir(), "reports") // -o makes it
				code, stdout, stderr := callRun(t, "-protocol", v, "-url", url, "-o", dir, "export_report", "title=Q3", "size="+itoa(size))
				if code != 0 {
					t.Fatalf("export_report size %d: exit %d, stderr %q", size, code, stderr)
				}
				if !strings.Contains(stdout, "[file Q3.txt mcp-file:") {
					t.Errorf("export_report size %d: stdout %q has no file block: call declares files.download", size, stdout)
				}
				var sc struct {
					Report wire.FileValue `json:"report"`
				}
				i := strings.Index(stdout, "structuredContent: ")
				if i < 0 || json.Unmarshal([]byte(stdout[i+len("structuredContent: "):]), &sc) != nil {
					t.Fatalf("stdout has no structuredContent: %q", stdout)
				}
				b, err := os.ReadFile(filepath.Join(dir, "Q3.txt"))
				if err != nil {
					t.Fatalf("export_report size %d: %v (stderr %q)", size, err, stderr)
				}
				sum := sha256.Sum256(b)
				if len(b) != size || !strings.HasPrefix(string(b), "Q3\n\n") || wire.SHA256Digest(sum) != *sc.Report.Digest {
					t.Errorf("export_report size %d: saved %d bytes, digest %s; want %d bytes, digest %s", size, len(b), wire.SHA256Digest(sum).Value, size, sc.Report.Digest.Value)
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// countingServer is a server with one tool that takes an upload-only PDF
// of at most 100 bytes (upload) and an inline PNG (image), and counts the
// calls it answers.
func countingServer(t *testing.T, calls *atomic.Int32) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "counting", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "take", InputSchema: json.RawMessage(`{"type":"object","required":["image"],"properties":{
		"image":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png"],"maxSize":1000,"transferModes":["inline"]}},
		"upload":{"type":"string","format":"uri","x-mcp-file":{"accept":["application/pdf"],"maxSize":100,"transferModes":["upload"]}},
		"pages":{"type":"array","maxItems":1,"items":{"type":"string","format":"uri","x-mcp-file":{}}},
		"count":{"type":"integer"},
		"other":{"type":"string","format":"uri","x-mcp-file":{"transferModes":["carrier-pigeon"]}}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "taken"}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCallChecksBeforeSending: files that break their argument's
// x-mcp-file, and arguments that do not fit the schema, are refused with
// the reason before anything is sent: exit 2, and the tool is never called.
func TestCallChecksBeforeSending(t *testing.T) {
	var calls atomic.Int32
	url := countingServer(t, &calls)
	img := writeTemp(t, "dot.png", dotPNG)
	big := writeTemp(t, "big.png", append(append([]byte{}, dotPNG...), make([]byte, 2000)...))
	txt := writeTemp(t, "a.txt", []byte("text"))
	pdf := writeTemp(t, "a.pdf", append([]byte("%PDF-1.4\n"), make([]byte, 200)...))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"take", "image=@" + txt}, `argument "image" accepts image/png; ` + txt + " is text/plain"},
		{[]string{"take", "image=@" + big}, `argument "image" takes files of at most 1000 bytes (maxSize)`},
		{[]string{"take", "image=@" + img, "upload=@" + pdf}, `argument "upload" takes files of at most 100 bytes (maxSize)`},
		{[]string{"-mode", "upload", "take", "image=@" + img}, `argument "image" is inline only (transferModes inline): it cannot be uploaded`},
		{[]string{"-mode", "inline", "take", "image=@" + img, "upload=@" + writeTemp(t, "s.pdf", []byte("%PDF-1.4\n"))}, `argument "upload" is upload only`},
		{[]string{"take", "imag=@" + img}, `tool "take" has no argument "imag" (it takes values count; files image, other, pages, upload)`},
		{[]string{"take", "image=@" + img, "other=@" + img}, `argument "other" takes files by transferModes carrier-pigeon only; this client sends inline and upload`},
		{[]string{"take", "count=@" + img}, `argument "count" is not a file argument`},
		{[]string{"take", "image=@" + img, "count=many"}, `argument "count" is an integer: "many" is not one`},
		{[]string{"take", "count=1"}, `tool "take" requires argument "image" (a file)`},
		{[]string{"take", "image=@" + img, "image=@" + img}, `argument "image" takes one file, and is given 2`},
		{[]string{"take", "image=@" + img, "pages=@" + img, "pages=@" + img}, `argument "pages" takes at most 1 files (maxItems), 2 are given`},
		{[]string{"take", "image=@" + filepath.Join(t.TempDir(), "none.png")}, "no such file"},
		{[]string{"take", "image=@" + t.TempDir()}, "is not a regular file"},
		{[]string{"nope"}, `the server has no tool "nope" (it has take)`},
		{[]string{"take", "image"}, `argument "image": want name=@path, name=value or name:=json`},
		{[]string{"take", "image=@" + img + ";type=png"}, `;type="png" is not a media type`},
		{[]string{"take", "count:={"}, `the value after := is not JSON`},
		{[]string{"-mode", "sometimes", "take", "image=@" + img}, `mode "sometimes": want auto, inline or upload`},
	} {
		code, _, stderr := callRun(t, append([]string{"-url", url}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("call %q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the tool was called %d times, want 0: every case is refused before sending", n)
	}
	// The same server takes what fits: an inline PNG, a typed JSON value,
	// an array of one.
	code, stdout, stderr := callRun(t, "-url", url, "take", "image=@"+img, "count:=3", "pages=@"+txt)
	if code != 0 || stdout != "taken\n" || calls.Load() != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q, %d call(s); want 0, taken, 1 call", code, stdout, stderr, calls.Load())
	}
}

// TestCallUsage: command lines call cannot run exit 2 with the reason.
func TestCallUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "name the server"},
		{[]string{"-url", "http://127.0.0.1:1/mcp"}, "name the tool to call"},
		{[]string{"-url", "http://127.0.0.1:1/mcp", "t", "--", "x"}, "name one server"},
		{[]string{"-url", "http://127.0.0.1:1/mcp", "-o", "/nonexistent/dir", "t"}, `-o "/nonexistent/dir": no such file or directory`},
		{[]string{"-url", "http://127.0.0.1:1/mcp", "-o", writeTemp(t, "f", nil), "t"}, `": not a directory`},
		{[]string{"-url", "http://127.0.0.1:1/mcp", "t"}, "connecting"},
	} {
		code, _, stderr := callRun(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("call %q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestCallRefusesUnverifiedOutputs: a returned file whose bytes do not
// have the digest the result declares, downloaded or embedded, is not
// saved, and the exit status is 1; a file that matches is saved.
func TestCallRefusesUnverifiedOutputs(t *testing.T) {
	good, bad := []byte("the report"), []byte("other bytes")
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/good" {
			w.Write(good)
		} else {
			w.Write(bad)
		}
	}))
	defer files.Close()
	digest := wire.SHA256Digest(sha256.Sum256(good))
	size := int64(len(good))
	s := mcp.NewServer(&mcp.Implementation{Name: "outputs", Version: "v1"}, nil)
	err := mcp.AddReceivingCustomMethod(s, wire.MethodAuthorizeDownload, func(_ context.Context, _ *mcp.ServerSession, p *wire.AuthorizeDownloadParams) (*wire.AuthorizeDownloadResult, error) {
		path := "/bad"
		if strings.HasSuffix(p.URI, "good") {
			path = "/good"
		}
		return &wire.AuthorizeDownloadResult{File: wire.FileValue{URI: p.URI}, Download: wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: files.URL + path}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"good", "bad", "embedded"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fv := wire.FileValue{URI: "mcp-file://outputs/" + name, Name: name + ".txt", MimeType: "text/plain", Size: &size, Digest: &digest}
			res := &mcp.CallToolResult{StructuredContent: map[string]any{"report": fv}}
			if name == "embedded" {
				res.Content = []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: fv.URI, MIMEType: "text/plain", Blob: bad}}}
			}
			return res, nil
		})
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	for _, tt := range []struct {
		tool string
		code int
		want string
	}{
		{"good", 0, "good.txt: good.txt (text/plain, 10 bytes, sha-256:"},
		{"bad", 1, "11 bytes came, file.size is 10"},
		{"embedded", 1, "the embedded file has"},
	} {
		dir := t.TempDir()
		code, _, stderr := callRun(t, "-url", srv.URL, "-o", dir, tt.tool)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.tool, code, stderr, tt.code, tt.want)
		}
		entries, _ := os.ReadDir(dir)
		if tt.code == 0 {
			if b, err := os.ReadFile(filepath.Join(dir, "good.txt")); err != nil || !bytes.Equal(b, good) || len(entries) != 1 {
				t.Errorf("%s: saved %q (%v), %d entries; want the report alone", tt.tool, b, err, len(entries))
			}
		} else if len(entries) != 0 {
			t.Errorf("%s: %d files left in the directory, want none", tt.tool, len(entries))
		}
	}
}

// pngOf is a w×h PNG.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCallAnswersForms: -answer fills the form create_profile asks for
// when the call has no photo, on both protocol generations; without it,
// or after the server refused the answer, call declines and says why.
func TestCallAnswersForms(t *testing.T) {
	t.Setenv(serveEnv, "profile")
	photo := writeTemp(t, "photo.png", pngOf(t, 32, 32))
	tiny := writeTemp(t, "tiny.png", pngOf(t, 4, 4))
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		code, stdout, stderr := callRun(t, "-protocol", v, "-answer", "photo=@"+photo, "create_profile", "displayName=Mona", "--", os.Args[0])
		if code != 0 || !strings.Contains(stdout, `"photoFrom": "user"`) || !strings.Contains(stderr, `the server asks: Please select a profile photo for "Mona".`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0, the photo from the user, and the server's question", v, code, stdout, stderr)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "declined: give the form's fields with -answer name=@path"},
		{[]string{"-answer", "photo=@" + writeTemp(t, "a.txt", []byte("text"))}, `declined: argument "photo" accepts image/png, image/jpeg, image/webp`},
		{[]string{"-answer", "photo=@" + tiny}, "a profile photo needs at least 16×16"},
	} {
		args := append(append([]string{}, tt.args...), "create_profile", "displayName=Mona", "--", os.Args[0])
		code, stdout, stderr := callRun(t, args...)
		if code != 0 || !strings.Contains(stdout, `"photoFrom": "declined"`) || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, declined, and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// pageLine is how call prints the page a server asks the person to open.
var pageLine = regexp.MustCompile(`open this page \(on [^)]+\) in a browser:\n  (\S+)\n`)

// TestCallUploadPage: import_archive asks for its file through an upload
// page (runtime.ElicitUpload, URL mode) on both protocol generations: call
// prints the page and the server's message, accepts, and waits; a browser
// posts the file to the page, and the call ends with the tool's answer
// about that file.
func TestCallUploadPage(t *testing.T) {
	url := analyzeDocument(t)
	file := bytes.Repeat([]byte("an archive line\n"), 4096) // 64 KiB
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			var stdout bytes.Buffer
			var stderr mcptest.LockedBuffer
			done := make(chan int, 1)
			go func() {
				done <- run([]string{"call", "-protocol", v, "-url", url, "import_archive"}, nil, &stdout, &stderr)
			}()
			var page string
			for page == "" {
				select {
				case code := <-done:
					t.Fatalf("call ended (exit %d) without printing a page; stderr %q", code, stderr.String())
				case <-time.After(20 * time.Millisecond):
				}
				if m := pageLine.FindStringSubmatch(stderr.String()); m != nil {
					page = m[1]
				}
			}
			if !strings.Contains(stderr.String(), "the server asks: Please choose the archive to import") {
				t.Errorf("stderr %q does not give the server's message", stderr.String())
			}
			post, finish := mcptest.StartPagePost(t, page, "archive.txt", "text/plain", file[:1000])
			finish(file[1000:])
			if code := <-post; code/100 != 2 {
				t.Fatalf("the page's post: %d", code)
			}
			select {
			case code := <-done:
				if code != 0 || !strings.Contains(stdout.String(), sha(file)) {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0 and the uploaded file's sha256", code, stdout.String(), stderr.String())
				}
			case <-time.After(time.Minute):
				t.Fatalf("call did not end a minute after the upload; stderr %q", stderr.String())
			}
		})
	}
}

// TestCallURLElicitationRequired: a tool that answers -32042 (URL
// elicitation required, protocol 2025-11-25) gets its page printed, its
// message without the terminal escape it carries, and is called again
// once the server sends notifications/elicitation/complete for it (on the
// standalone stream: the call is over), or once the person presses Enter.
func TestCallURLElicitationRequired(t *testing.T) {
	for _, how := range []string{"notification", "Enter"} {
		t.Run(how, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "sign-in", Version: "v1"}, nil)
			var calls atomic.Int32
			sessions := make(chan *mcp.ServerSession, 1)
			s.AddTool(&mcp.Tool{Name: "account", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if calls.Add(1) == 1 {
					sessions <- req.Session
					return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", URL: "https://auth.example.com/start?state=1", ElicitationID: "e1", Message: "Sign in \x1b[2J first."}})
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "signed in"}}}, nil
			})
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
			defer srv.Close()

			var stdout bytes.Buffer
			var stderr mcptest.LockedBuffer
			stdin, typed := io.Pipe()
			defer typed.Close()
			done := make(chan int, 1)
			go func() {
				done <- run([]string{"call", "-protocol", "2025-11-25", "-url", srv.URL, "account"}, stdin, &stdout, &stderr)
			}()
			for !strings.Contains(stderr.String(), "press Enter here") {
				select {
				case code := <-done:
					t.Fatalf("call ended (exit %d) without waiting for the page; stderr %q", code, stderr.String())
				case <-time.After(20 * time.Millisecond):
				}
			}
			if calls.Load() != 1 {
				t.Errorf("%d calls before the page is done, want 1", calls.Load())
			}
			if how == "Enter" {
				typed.Write([]byte("\n"))
			} else {
				// The standalone stream opens after initialize, in the
				// background: until it is there, the notice has no way.
				ss := <-sessions
				for tries := 0; ; tries++ {
					err := ss.NotifyElicitationComplete(t.Context(), &mcp.ElicitationCompleteParams{ElicitationID: "e1"})
					if err == nil {
						break
					}
					if tries == 500 {
						t.Fatalf("notifications/elicitation/complete: %v", err)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			select {
			case code := <-done:
				got := stderr.String()
				if code != 0 || stdout.String() != "signed in\n" || calls.Load() != 2 || !pageLine.MatchString(got) || !strings.Contains(got, "https://auth.example.com/start?state=1") ||
					!strings.Contains(got, "Sign in \uFFFD[2J first.") || strings.Contains(got, "\x1b") {
					t.Errorf("exit %d, stdout %q, stderr %q, %d calls; want 0, signed in, 2 calls, the page, the message without the escape", code, stdout.String(), got, calls.Load())
				}
				if how == "notification" && !strings.Contains(got, "the page on auth.example.com is done") {
					t.Errorf("stderr %q does not say the server finished the page", got)
				}
			case <-time.After(time.Minute):
				t.Fatalf("call did not end a minute after the page was done; stderr %q", stderr.String())
			}
		})
	}
}

// TestCallPrintsServerNamesSafely: the names, URIs and media types a
// server gives, and the message of its error, reach the terminal without
// the characters that would drive it (escape sequences: C0 and C1
// controls) or show other text than they are (bidirectional controls).
func TestCallPrintsServerNamesSafely(t *testing.T) {
	const evil = "\x1b]0;owned\x07\x1b[2J\u009b31m\u202e"
	size := int64(3)
	s := mcp.NewServer(&mcp.Implementation{Name: "names", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "files", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{URI: "mcp-file://names/1" + evil, Name: "a" + evil + ".txt", MIMEType: "text/plain", Size: &size},
			&mcp.ResourceLink{URI: "https://example.com/" + evil, Name: "link"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mcp-file://names/2" + evil, MIMEType: "text/plain" + evil, Blob: []byte("abc")}},
			&mcp.ImageContent{MIMEType: "image/png" + evil, Data: []byte{1}},
		}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "fails", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no" + evil}
	})
	s.AddTool(&mcp.Tool{Name: "args", InputSchema: json.RawMessage(`{"type":"object","properties":{"a\u001b[2J\u202e":{"type":"string"}}}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	unsafe := func(r rune) bool { return r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) }
	for _, args := range [][]string{{"files"}, {"-o", t.TempDir(), "files"}, {"fails"}, {"args", "b=1"}} {
		_, stdout, stderr := callRun(t, append([]string{"-url", srv.URL}, args...)...)
		for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if i := strings.IndexFunc(out, unsafe); i >= 0 {
				t.Errorf("%v: %s carries %q: %q", args, name, []rune(out[i:])[0], out)
			}
		}
	}
}
