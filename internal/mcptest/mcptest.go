// Package mcptest has the helpers the tests of the runtime and of the
// example servers share: a go-sdk client connected in memory or over
// streamable HTTP, results' text, and test files.
package mcptest

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/serve"
)

// Limit returns the request limit maxRequest gives, failing t on an error.
func Limit(t testing.TB, maxRequest func() (int64, error)) int64 {
	t.Helper()
	n, err := maxRequest()
	if err != nil {
		t.Fatalf("request limit: %v", err)
	}
	return n
}

// Connect connects a go-sdk client with opts to s over in-memory transports,
// on protocol version ("": the SDK's latest).
func Connect(t testing.TB, s *mcp.Server, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return Client(t, ct, opts, version)
}

// ConnectHTTP serves s over streamable HTTP on 127.0.0.1 with request bodies
// up to limit bytes, as the example commands do (serve.Handler), and
// connects a client.
func ConnectHTTP(t testing.TB, s *mcp.Server, limit int64, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(serve.Handler(s, serve.Options{MaxRequestBytes: limit}))
	t.Cleanup(srv.Close)
	return Client(t, &mcp.StreamableClientTransport{Endpoint: srv.URL + serve.DefaultPath}, opts, version)
}

// Client connects a go-sdk client with opts over tr, on protocol version
// ("": the SDK's latest), and closes it when the test ends.
func Client(t testing.TB, tr mcp.Transport, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "v1"}, opts)
	cs, err := c.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Call calls the tool and fails the test on a protocol error: file
// violations must come back as isError results.
func Call(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", tool, err)
	}
	return res
}

// Text returns the text of the result's one content block, a text block.
func Text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d content blocks, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// PNG returns a decodable w×h PNG. With noise set its pixels are random, so
// that it does not compress: a 1100×1100 one is about 4.8 MB.
func PNG(t testing.TB, w, h int, noise bool) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if noise {
		_, _ = rand.NewChaCha8([32]byte{byte(w), byte(h)}).Read(img.Pix)
	} else {
		for x := range w {
			img.Set(x, x%h, color.NRGBA{B: 255, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// DataURI is the base64 data: URI of b.
func DataURI(mediaType string, b []byte) string {
	return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// DecodeByHand is what a server without mcpfile does with a file argument
// declared as a string: split the base64 data: URI and decode its payload
// with the standard library. The benchmarks measure against it.
func DecodeByHand(uri string) ([]byte, error) {
	head, payload, ok := strings.Cut(uri, ",")
	if !ok || !strings.HasPrefix(head, "data:") || !strings.HasSuffix(head, ";base64") {
		return nil, errors.New("not a base64 data: URI")
	}
	return base64.StdEncoding.DecodeString(payload)
}

// JSONValue returns v as JSON sees it: marshalled, then unmarshalled into
// an any (maps, slices, strings, float64s, bools and nils).
func JSONValue(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// Zip returns a zip archive of at least n bytes: entries of 256 KiB of
// random bytes (from seed), stored, not compressed.
func Zip(t testing.TB, n int, seed uint64) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; b.Len() < n; i++ {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("data/%d.bin", i), Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		chunk := make([]byte, 256<<10)
		for j := range chunk {
			chunk[j] = byte(r.Uint32())
		}
		w.Write(chunk)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Structured decodes the structured content of a tool's result into a T,
// failing t when the result is an error or does not decode.
func Structured[T any](t testing.TB, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	if res.IsError {
		t.Fatalf("isError result: %s", Text(t, res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return v
}

// An UploadPage is what a browser reads of an upload page
// (runtime.ElicitUpload): its status, headers and markup, and its form's
// action (absolute) and hidden token, "" when there is no form.
type UploadPage struct {
	Status        int
	Header        http.Header
	HTML          string
	Action, Token string
}

var (
	formAction  = regexp.MustCompile(`<form id="upload" method="post" action="([^"]*)"`)
	hiddenToken = regexp.MustCompile(`<input type="hidden" name="token" value="([^"]*)">`)
)

// OpenUploadPage GETs an upload page with c (nil: http.DefaultClient), as
// a browser opens it.
func OpenUploadPage(c *http.Client, pageURL string) (UploadPage, error) {
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Get(pageURL)
	if err != nil {
		return UploadPage{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	p := UploadPage{Status: res.StatusCode, Header: res.Header, HTML: string(b)}
	if m := formAction.FindStringSubmatch(p.HTML); m != nil {
		u, _ := url.Parse(pageURL)
		if a, err := u.Parse(html.UnescapeString(m[1])); err == nil {
			p.Action = a.String()
		}
	}
	if m := hiddenToken.FindStringSubmatch(p.HTML); m != nil {
		p.Token = html.UnescapeString(m[1])
	}
	return p, err
}

// A PagePost is a post of an upload page's form as a browser sends it:
// multipart/form-data with the token field (none when Token is ""), then
// the file part, named Name, of type MediaType ("" for none), from Origin
// ("" for no Origin header); with JSON set, it asks for JSON as the page's
// script does.
type PagePost struct {
	Action, Origin, Token string
	Name, MediaType       string
	Body                  []byte
	JSON                  bool
}

// Post sends the post with c (nil: http.DefaultClient) and returns the
// response's status and body.
func (p PagePost) Post(c *http.Client) (int, string, error) {
	if c == nil {
		c = http.DefaultClient
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if p.Token != "" {
		mw.WriteField("token", p.Token)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, p.Name))
	if p.MediaType != "" {
		h.Set("Content-Type", p.MediaType)
	}
	fw, _ := mw.CreatePart(h)
	fw.Write(p.Body)
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, p.Action, &body)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if p.Origin != "" {
		req.Header.Set("Origin", p.Origin)
	}
	if p.JSON {
		req.Header.Set("Accept", "application/json")
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	return res.StatusCode, string(out), err
}

// OriginOf is the origin of an absolute URL, as a browser sends it.
func OriginOf(u string) string {
	p, _ := url.Parse(u)
	return p.Scheme + "://" + p.Host
}

// URLElicitationRequired checks that err is the -32042 URL elicitation
// required error carrying one URL-mode elicitation, and returns it.
func URLElicitationRequired(t testing.TB, err error) *mcp.ElicitParams {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeURLElicitationRequired {
		t.Fatalf("call: %v, want the -32042 error", err)
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if err := json.Unmarshal(je.Data, &data); err != nil || len(data.Elicitations) != 1 {
		t.Fatalf("error data %s (%v), want one elicitation", je.Data, err)
	}
	e := data.Elicitations[0]
	if e.Mode != "url" || e.URL == "" || e.ElicitationID == "" {
		t.Fatalf("elicitation %+v, want a URL-mode one", e)
	}
	return e
}

// WantCompleted waits, up to ten seconds, for the ID that a client's
// handler of notifications/elicitation/complete sent on completed, and
// checks that it is id, the elicitation the server was to complete.
func WantCompleted(t testing.TB, completed <-chan string, id string) {
	t.Helper()
	select {
	case got := <-completed:
		if got != id {
			t.Errorf("notifications/elicitation/complete for %q, want %q", got, id)
		}
	case <-time.After(10 * time.Second):
		t.Error("no notifications/elicitation/complete")
	}
}
