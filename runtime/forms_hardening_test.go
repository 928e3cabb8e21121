package runtime_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestFormFieldsAuthorizeUploads: a file field that takes a host's object
// never takes an uploaded file's URI, so files/authorizeUpload does not
// count it: a server whose only files come as hosts' objects authorizes no
// upload.
func TestFormFieldsAuthorizeUploads(t *testing.T) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	key, err := token.NewKey("k1", bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer()
	h, err := transfer.Register(s, transfer.Options{Keys: keys, Store: memstore.New(nil), PublicURL: ts.URL + "/files/"})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/files/", h)
	runtime.AddTool(s, &mcp.Tool{Name: "hosts"}, func(context.Context, *mcp.CallToolRequest, testtypes.HostArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})

	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	n := int64(20 << 20)
	d := transfer.SHA256Digest(sha256.Sum256(nil))
	res, err := mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](t.Context(), cs, transfer.MethodAuthorizeUpload,
		&transfer.AuthorizeUploadParams{Name: "big.txt", MimeType: "text/plain", Size: &n, Digest: &d})
	if err == nil {
		t.Errorf("files/authorizeUpload of 20 MiB of text, on a server whose only file fields take hosts' objects, authorized %s; want it refused: no argument takes uploaded files", res.File.URI)
	}
}

// TestFileDataMemberErrorNamesMember: a FileData member of the wrong type
// is named in the argument's error (RuleForm), not left to the schema
// validator, whose schema path the redaction of base64-like runs would
// hide.
func TestFileDataMemberErrorNamesMember(t *testing.T) {
	png := mcptest.PNG(t, 2, 2, false)
	enc := base64.StdEncoding.EncodeToString(png)
	cs := mcptest.Connect(t, hostsServer(), nil, "")
	for member, raw := range map[string]string{
		"size":     `{"photo":{"fileName":"a.png","mimeType":"image/png","base64":"` + enc + `","size":-1}}`,
		"mimeType": `{"photo":{"fileName":"a.png","mimeType":7,"base64":"` + enc + `"}}`,
		"base64":   `{"photo":{"fileName":"a.png","mimeType":"image/png","base64":7}}`,
	} {
		res := mcptest.Call(t, cs, "hosts", json.RawMessage(raw))
		if got := mcptest.Text(t, res); !res.IsError || !strings.Contains(got, member) {
			t.Errorf("bad %s: %q; want an error that names the member %q", member, got, member)
		}
	}
}

// TestFetchErrorLeaksAddress: a download_url whose allowed host resolves to
// a private address is refused with a fixed text that quotes neither the
// address nor any other network detail.
func TestFetchErrorLeaksAddress(t *testing.T) {
	f, err := fetch.New(fetch.Options{
		AllowHosts: []string{"*.files.test"},
		Resolver:   staticResolver{"internal.files.test": "10.1.2.3"},
		TLSConfig:  &tls.Config{},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := hostsServer()
	runtime.UseFetcher(s, f)
	cs := mcptest.Connect(t, s, nil, "")
	photo := fileData("a.png", "image/png", mcptest.PNG(t, 2, 2, false))
	res := mcptest.Call(t, cs, "hosts", map[string]any{"photo": photo, "doc": map[string]any{"download_url": "https://internal.files.test/a", "file_id": "file_1"}})
	if got := mcptest.Text(t, res); !res.IsError || strings.Contains(got, "10.1.2.3") {
		t.Errorf("refusal %q quotes the address the host resolved to", got)
	}
}

// TestFetchErrorQuotesLocation: a redirect with a Location header net/http
// cannot parse (and a signed query) is refused with a fixed text that
// quotes no part of it.
func TestFetchErrorQuotesLocation(t *testing.T) {
	sig := strings.Repeat("9f3a", 16) // an AWS SigV4 signature is 64 hex digits
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "https://files.test/a%zz?X-Amz-Signature="+sig)
		w.WriteHeader(http.StatusFound)
	}))
	defer ts.Close()
	cs := fetchingHosts(t, ts)
	photo := fileData("a.png", "image/png", mcptest.PNG(t, 2, 2, false))
	res := mcptest.Call(t, cs, "hosts", map[string]any{"photo": photo, "doc": map[string]any{"download_url": strings.Replace(ts.URL, "127.0.0.1", "files.test", 1) + "/a", "file_id": "file_1"}})
	if got := mcptest.Text(t, res); !res.IsError || strings.Contains(got, sig) {
		t.Errorf("refusal %q quotes the redirect's query", got)
	}
}

// TestFileDataMembersOnceInCalls: a tool call whose FileData object gives
// a member twice or has a member it does not have is refused before the
// handler runs, for a single file and for an item of an array of them.
func TestFileDataMembersOnceInCalls(t *testing.T) {
	png := mcptest.PNG(t, 2, 2, false)
	enc := base64.StdEncoding.EncodeToString(png)
	obj := `{"fileName":"a.png","mimeType":"image/png","base64":"` + enc + `"`
	page := `{"fileName":"a.txt","mimeType":"text/plain","base64":"aGk="`
	cs := mcptest.Connect(t, hostsServer(), nil, "")
	for _, tt := range []struct{ raw, want string }{
		{`{"photo":` + obj + `,"base64":"aGk="}}`,
			`Argument 'photo' is not a valid FileData object: the member "base64" is given twice (give each member once).`},
		{`{"photo":` + obj + `,"filename":"b.png"}}`,
			`Argument 'photo' is not a valid FileData object: it has a member named "filename", which a FileData object does not have (its members are fileName, mimeType, base64, size and lastModified).`},
		{`{"photo":` + obj + `},"pages":[` + page + `},` + page + `,"mimeType":"text/html"}]}`,
			`Argument 'pages[1]' is not a valid FileData object: the member "mimeType" is given twice (give each member once).`},
	} {
		res := mcptest.Call(t, cs, "hosts", json.RawMessage(tt.raw))
		if got := mcptest.Text(t, res); !res.IsError || got != tt.want {
			t.Errorf("hosts(%.60s…) = %q (isError %v), want %q", tt.raw, got, res.IsError, tt.want)
		}
	}
}
