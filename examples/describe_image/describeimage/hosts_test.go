package describeimage_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/fetch"
)

// filesServer serves files by path over TLS, with their media types, and
// returns a fetcher allowed to fetch from it (as files.test, which resolves
// to its loopback address) and the URL of a path on it.
func filesServer(t *testing.T, files map[string][2]string) (*fetch.Fetcher, func(path string) string) {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f[0])
		w.Write([]byte(f[1]))
	}))
	t.Cleanup(ts.Close)
	roots := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	f, err := fetch.New(fetch.Options{
		AllowHosts: []string{"files.test:" + port}, AllowPrivate: []string{"files.test"},
		Resolver:  staticResolver{"files.test": "127.0.0.1"},
		TLSConfig: &tls.Config{RootCAs: roots, ServerName: "example.com"}, // httptest's certificate
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, func(path string) string { return "https://files.test:" + port + path }
}

type staticResolver map[string]string

func (r staticResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if a, ok := r[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// fileData is an Odeus FileData object.
func fileData(name, mediaType string, b []byte) map[string]any {
	return map[string]any{"fileName": name, "mimeType": mediaType, "base64": base64.StdEncoding.EncodeToString(b), "size": len(b)}
}

// TestHostToolsList: the tools for hosts' objects describe those objects,
// and only describe_image_chatgpt names its image in openai/fileParams.
func TestHostToolsList(t *testing.T) {
	cs := mcptest.Connect(t, describeimage.NewServer(describeimage.Options{}), nil, "")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		fileParams, required string // JSON of _meta["openai/fileParams"], of the image's required members
	}{
		"describe_image":          {"null", "null"},
		"describe_image_filedata": {"null", `["fileName","mimeType","base64"]`},
		"describe_image_chatgpt":  {`["image"]`, `["download_url","file_id"]`},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		if got, _ := json.Marshal(tool.Meta["openai/fileParams"]); string(got) != w.fileParams {
			t.Errorf("%s: _meta openai/fileParams = %s, want %s", tool.Name, got, w.fileParams)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties struct {
				Image struct {
					Required json.RawMessage `json:"required"`
					Form     *struct {
						Accept  []string `json:"accept"`
						MaxSize int64    `json:"maxSize"`
					} `json:"x-mcpfile-form"`
				} `json:"image"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		img := s.Properties.Image
		got := string(img.Required)
		if got == "" {
			got = "null"
		}
		if got != w.required {
			t.Errorf("%s: image requires %s, want %s", tool.Name, got, w.required)
		}
		if f := img.Form; tool.Name != "describe_image" && (f == nil || f.MaxSize != 5<<20 || len(f.Accept) != 4) {
			t.Errorf("%s: inputSchema %s: x-mcpfile-form does not carry accept and maxSize", tool.Name, b)
		}
	}
}

// TestThreeShapes sends one PNG to each tool in the shape it takes and gets
// the same answer from each.
func TestThreeShapes(t *testing.T) {
	png := mcptest.PNG(t, 4, 3, false)
	jpg := encode(t, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) })
	f, at := filesServer(t, map[string][2]string{
		"/cat.png":      {"image/png", string(png)},
		"/untyped":      {"application/octet-stream", string(png)},
		"/lying.png":    {"image/png", string(jpg)},
		"/not-an-image": {"text/plain", "hello"},
	})
	cs := mcptest.Connect(t, describeimage.NewServer(describeimage.Options{Fetcher: f}), nil, "")

	want := func(b []byte) string {
		t.Helper()
		res := mcptest.Call(t, cs, "describe_image", map[string]any{"image": mcptest.DataURI("image/png", b)})
		if res.IsError {
			t.Fatalf("describe_image: %s", mcptest.Text(t, res))
		}
		j, _ := json.Marshal(res.StructuredContent)
		return string(j)
	}(png)
	for _, tt := range []struct {
		tool  string
		image any
	}{
		{"describe_image_filedata", fileData("cat.png", "image/png", png)},
		{"describe_image_chatgpt", map[string]any{"download_url": at("/cat.png"), "file_id": "file_1", "file_name": "cat.png"}},
		// mime_type, when ChatGPT sends it, is the declared type, over the download's Content-Type.
		{"describe_image_chatgpt", map[string]any{"download_url": at("/untyped"), "file_id": "file_2", "mime_type": "image/png"}},
	} {
		res := mcptest.Call(t, cs, tt.tool, map[string]any{"image": tt.image})
		if res.IsError {
			t.Errorf("%s: isError %q", tt.tool, mcptest.Text(t, res))
			continue
		}
		if got, _ := json.Marshal(res.StructuredContent); string(got) != want {
			t.Errorf("%s: structuredContent\n got %s\nwant %s", tt.tool, got, want)
		}
	}

	// One refusal each; the runtime's tests have the rest.
	for _, tt := range []struct {
		tool  string
		image any
		want  string
	}{
		{"describe_image_filedata", fileData("cat.png", "image/png", jpg), `Argument 'image' fails the content check: declared "image/png" but the bytes are image/jpeg`},
		{"describe_image_chatgpt", map[string]any{"download_url": at("/lying.png"), "file_id": "file_3"}, `Argument 'image' fails the content check: declared "image/png" but the bytes are image/jpeg`},
		{"describe_image_chatgpt", map[string]any{"download_url": at("/not-an-image"), "file_id": "file_4"}, `Argument 'image' has a media type that accept does not allow: received "text/plain"`},
		{"describe_image_chatgpt", map[string]any{"download_url": "https://169.254.169.254/latest/meta-data/", "file_id": "file_5"}, "Argument 'image' is not a valid ChatGPT file object: this server does not fetch from that download_url's scheme, host or port"},
	} {
		res := mcptest.Call(t, cs, tt.tool, map[string]any{"image": tt.image})
		if got := mcptest.Text(t, res); !res.IsError || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: isError=%v %q, want %q", tt.tool, res.IsError, got, tt.want)
		}
	}
}

// TestChatGPTWithoutFetcher: without Options.Fetcher the tool is there,
// and says that the server does not fetch files.
func TestChatGPTWithoutFetcher(t *testing.T) {
	cs := mcptest.Connect(t, describeimage.NewServer(describeimage.Options{}), nil, "")
	res := mcptest.Call(t, cs, "describe_image_chatgpt", map[string]any{"image": map[string]any{"download_url": "https://files.example.com/cat.png", "file_id": "file_1"}})
	want := "Argument 'image' is not a valid ChatGPT file object: this server does not fetch files from URLs"
	if got := mcptest.Text(t, res); !res.IsError || !strings.HasPrefix(got, want) {
		t.Errorf("isError=%v %q, want %q", res.IsError, got, want)
	}
}

// TestFileDataOverHTTP sends a 4.8 MB PNG as a FileData object over
// streamable HTTP: MaxRequestBytes counts the object, not just a data: URI.
func TestFileDataOverHTTP(t *testing.T) {
	data := mcptest.PNG(t, 1100, 1100, true)
	cs := mcptest.ConnectHTTP(t, describeimage.NewServer(describeimage.Options{}), mcptest.Limit(t, describeimage.MaxRequestBytes), nil, "")
	res := mcptest.Call(t, cs, "describe_image_filedata", map[string]any{"image": fileData("big.png", "image/png", data)})
	if res.IsError {
		t.Fatal(mcptest.Text(t, res))
	}
	if m := res.StructuredContent.(map[string]any); m["width"] != 1100.0 || m["size"] != float64(len(data)) {
		t.Errorf("structuredContent = %v", m)
	}
}
