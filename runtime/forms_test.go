package runtime_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
)

// hostsServer has the tool hosts, whose arguments are testtypes.HostArgs:
// it answers with what it got of each file.
func hostsServer() *mcp.Server {
	s := newServer()
	runtime.AddTool(s, &mcp.Tool{Name: "hosts"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.HostArgs) (*mcp.CallToolResult, any, error) {
		var parts []string
		add := func(what string, f runtime.File) {
			parts = append(parts, what+"="+f.MediaType+","+strconv.FormatInt(f.Size(), 10)+","+f.Name)
		}
		if in.Photo.MediaType != "" {
			add("photo", in.Photo)
		}
		if in.Doc != nil {
			add("doc", *in.Doc)
		}
		for _, p := range in.Pages {
			add("page", p)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(parts, " ")}}}, nil, nil
	})
	return s
}

func fileData(name, mt string, b []byte) map[string]any {
	return map[string]any{"fileName": name, "mimeType": mt, "base64": base64.StdEncoding.EncodeToString(b), "size": len(b), "lastModified": "2026-04-20T18:30:00Z"}
}

// TestHostForms: Odeus FileData objects and ChatGPT file objects reach the
// handler as Files, with the checks of a data: URI; the tool carries
// openai/fileParams.
func TestHostForms(t *testing.T) {
	png := mcptest.PNG(t, 2, 2, false)
	s := hostsServer()
	cs := mcptest.Connect(t, s, nil, "")

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(tools.Tools[0].Meta["openai/fileParams"]); string(got) != `["doc"]` {
		t.Errorf("_meta openai/fileParams = %s, want [\"doc\"]", got)
	}

	res := mcptest.Call(t, cs, "hosts", map[string]any{
		"photo": fileData("../me\u202egnp.exe", "image/png", png),
		"pages": []any{fileData("1.txt", "text/plain", []byte("one")), fileData("2.txt", "text/plain", []byte("two"))},
	})
	want := "photo=image/png," + strconv.Itoa(len(png)) + "," + runtime.SanitizeName("../me\u202egnp.exe") + " page=text/plain,3,1.txt page=text/plain,3,2.txt"
	if got := mcptest.Text(t, res); res.IsError || got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"photo": fileData("a.png", "image/png", []byte("text pretending"))}, `Argument 'photo' fails the content check: declared "image/png" but the bytes are text`},
		{map[string]any{"photo": fileData("a.png", "image/png", make([]byte, 2000))}, `Argument 'photo' exceeds maxSize: received 2000 bytes, limit is 1024.`},
		{map[string]any{"photo": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}, `Argument 'photo' has the wrong JSON type: received a string, want a FileData object {fileName, mimeType, base64}.`},
		{map[string]any{"photo": fileData("a.png", "image/png", png), "doc": "chat_upload"}, `Argument 'doc' is not a valid ChatGPT file object: received a string instead of {download_url, file_id}`},
		{map[string]any{"photo": fileData("a.png", "image/png", png), "doc": map[string]any{"download_url": "https://files.example.com/a", "file_id": "file_1"}}, `Argument 'doc' is not a valid ChatGPT file object: this server does not fetch files from URLs`},
		{map[string]any{"photo": fileData("a.png", "image/png", png), "pages": []any{fileData("1.txt", "text/plain", []byte("a")), fileData("2.txt", "text/plain", []byte("b")), fileData("3.txt", "text/plain", []byte("c")), fileData("4.txt", "text/plain", []byte("d"))}}, `Argument 'pages' exceeds maxFiles: received 4 files, limit is 3.`},
		{map[string]any{"photo": map[string]any{"fileName": "a.png", "mimeType": "image/png"}}, `Argument 'photo' is not a valid FileData object: the member "base64" is missing.`},
	} {
		res := mcptest.Call(t, cs, "hosts", tt.args)
		if got := mcptest.Text(t, res); !res.IsError || !strings.Contains(got, tt.want) {
			t.Errorf("got %q (isError %v), want %q", got, res.IsError, tt.want)
		}
	}
}

// TestOpenAIFetch: with a fetcher, a ChatGPT file object's download_url is
// fetched from an allowed host and checked like any file; the fetcher's
// refusals come back as the argument's error.
func TestOpenAIFetch(t *testing.T) {
	png := mcptest.PNG(t, 2, 2, false)
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("the document"))
		case "/big.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(strings.Repeat("x", 5000)))
		case "/png":
			w.Header().Set("Content-Type", "text/plain") // a lie: the bytes are a PNG
			w.Write(png)
		}
	}))
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	cs := fetchingHosts(t, ts)
	photo := fileData("a.png", "image/png", png)
	at := func(path string) string { return "https://files.test:" + port + path }

	res := mcptest.Call(t, cs, "hosts", map[string]any{"photo": photo, "doc": map[string]any{"download_url": at("/doc.txt"), "file_id": "file_1", "file_name": "notes/../doc.txt"}})
	if got := mcptest.Text(t, res); res.IsError || !strings.Contains(got, "doc=text/plain,12,doc.txt") {
		t.Errorf("fetched: %q", got)
	}
	for _, tt := range []struct {
		url, want string
	}{
		{at("/big.txt"), "Argument 'doc' exceeds maxSize: received more than 4096 bytes, limit is 4096."},
		// The host declared the type, so the model is not told to.
		{at("/png"), `Argument 'doc' fails the content check: declared "text/plain" but the bytes are image/png; the host, not the model, declared the media type of this attached file: ask the user to attach a file that really is of that type.`},
		{"https://169.254.169.254/latest/meta-data/", "Argument 'doc' is not a valid ChatGPT file object: this server does not fetch from that download_url's scheme, host or port."},
		{"http://files.test:" + port + "/doc.txt", "Argument 'doc' is not a valid ChatGPT file object: this server does not fetch from that download_url's scheme, host or port."},
		{"https://files.test/doc.txt", "Argument 'doc' is not a valid ChatGPT file object: this server does not fetch from that download_url's scheme, host or port."}, // port 443 is not listed
	} {
		res := mcptest.Call(t, cs, "hosts", map[string]any{"photo": photo, "doc": map[string]any{"download_url": tt.url, "file_id": "file_1"}})
		if got := mcptest.Text(t, res); !res.IsError || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.url, got, tt.want)
		}
	}
	// The same when the file object declares the type (mime_type).
	res = mcptest.Call(t, cs, "hosts", map[string]any{"photo": photo, "doc": map[string]any{"download_url": at("/doc.txt"), "file_id": "file_1", "mime_type": "application/pdf"}})
	want := `Argument 'doc' fails the content check: declared "application/pdf" but the bytes are text; the host, not the model, declared the media type of this attached file: ask the user to attach a file that really is of that type.`
	if got := mcptest.Text(t, res); !res.IsError || got != want {
		t.Errorf("text declared as a PDF: %q, want %q", got, want)
	}
}

// fetchingHosts connects a client to hostsServer with a fetcher that
// reaches ts, a TLS test server, as https://files.test:<port>.
func fetchingHosts(t *testing.T, ts *httptest.Server) *mcp.ClientSession {
	t.Helper()
	roots := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	f, err := fetch.New(fetch.Options{
		AllowHosts: []string{"files.test:" + port}, AllowPrivate: []string{"files.test"},
		Resolver:  staticResolver{"files.test": "127.0.0.1"},
		TLSConfig: &tls.Config{RootCAs: roots, ServerName: "example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := hostsServer()
	runtime.UseFetcher(s, f)
	return mcptest.Connect(t, s, nil, "")
}

type staticResolver map[string]string

func (r staticResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if a, ok := r[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}
