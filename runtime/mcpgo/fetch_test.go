package mcpgo_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/mcpgo"
)

// TestFetcherAsGoSDK: with UseFetcher, describe_image_chatgpt fetches the
// ChatGPT file object's download_url and checks the bytes; the mcp-go
// server answers every call as the go-sdk server with the same fetcher.
func TestFetcherAsGoSDK(t *testing.T) {
	png, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/dot.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		case "/text.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("hello, world"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	f, err := fetch.New(fetch.Options{
		AllowHosts: []string{"files.test:" + port}, AllowPrivate: []string{"files.test"},
		Resolver:  staticResolver{"files.test": "127.0.0.1"},
		TLSConfig: &tls.Config{RootCAs: ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs, ServerName: "example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}

	st, ct := gosdk.NewInMemoryTransports()
	if _, err := describeimage.NewServer(describeimage.Options{Fetcher: f}).Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "test", Version: "v1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	s := newServer()
	mcpgo.UseFetcher(s, f)
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	connect(t, c)

	file := func(url string) map[string]any {
		return map[string]any{"image": map[string]any{"download_url": url, "file_id": "file_1"}}
	}
	base := "https://files.test:" + port
	for _, cl := range []call{
		{"fetched PNG", "describe_image_chatgpt", file(base + "/dot.png"), ""},
		{"fetched text declared a PNG", "describe_image_chatgpt", file(base + "/text.png"),
			`Argument 'image' fails the content check: declared "image/png" but the bytes are text; the host, not the model, declared the media type of this attached file: ask the user to attach a file that really is of that type.`},
		{"not found", "describe_image_chatgpt", file(base + "/missing.png"),
			"Argument 'image' is not a valid ChatGPT file object: the download_url's host answered with an error status."},
		{"host not allowed", "describe_image_chatgpt", file("https://elsewhere.test/dot.png"),
			"Argument 'image' is not a valid ChatGPT file object: this server does not fetch from that download_url's scheme, host or port."},
	} {
		want := goSDKCall(t, cs, cl)
		if want.isError != (cl.want != "") || cl.want != "" && want.text != cl.want {
			t.Fatalf("%s: the go-sdk server answered %+v, want the pinned %q", cl.name, want, cl.want)
		}
		var req mcp.CallToolRequest
		req.Params.Name = cl.tool
		req.Params.Arguments = cl.args
		res, err := c.CallTool(t.Context(), req)
		if err != nil {
			t.Fatalf("%s: CallTool: %v", cl.name, err)
		}
		text, _ := mcp.AsTextContent(res.Content[0])
		got := result{res.IsError, text.Text}
		if !want.isError {
			got.text, want.text = normalize(t, got.text), normalize(t, want.text)
		}
		if got != want {
			t.Errorf("%s: mcp-go answered %+v, the go-sdk server %+v", cl.name, got, want)
		}
	}
}

type staticResolver map[string]string

func (r staticResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if a, ok := r[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}
