package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// uploadsServer returns a server that serves uploads, its transfer
// handler on an httptest server, for clients connected in memory.
func uploadsServer(t *testing.T, o transfer.Options) *mcp.Server {
	t.Helper()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	if o.Keys == nil {
		o.Keys = testKeys(t)
	}
	if o.Store == nil {
		o.Store = memstore.New(nil)
	}
	o.PublicURL = ts.URL + "/files/"
	h, err := transfer.Register(s, o)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/files/", h)
	return s
}

// enabled returns client options whose client can call files/authorizeUpload.
func inMemory(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, opts)
	enableFiles(t, c)
	cs, err := c.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// uploadFile authorizes and uploads b, and returns its file URI.
func uploadFile(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name, mediaType string, b []byte) string {
	t.Helper()
	res, err := authorize(ctx, cs, declare(name, mediaType, b))
	if err != nil {
		t.Fatalf("authorize %s: %v", name, err)
	}
	if code := send(t, res.Upload, b); code != http.StatusCreated {
		t.Fatalf("upload %s: %d", name, code)
	}
	return res.File.URI
}

// TestUploadOnlyField: a field with transferModes [upload] takes a file
// far above the inline default, refuses a data: URI, keeps the request
// limit small, and can only be added to a server that serves uploads.
func TestUploadOnlyField(t *testing.T) {
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := uploadsServer(t, transfer.Options{Store: st})
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	cs := inMemory(t, s, nil, "")

	// 33 MiB of text: more than runtime.DefaultMaxSize, within the field's 1 GiB.
	big := bytes.Repeat([]byte("all work and no play makes a big file\n"), 33<<20/38+1)
	uri := uploadFile(t, t.Context(), cs, "notes.txt", "text/plain", big)
	out := mcptest.Text(t, mcptest.Call(t, cs, "analyze", map[string]any{"document": uri, "title": "../Q3 notes.txt"}))
	sum := sha256.Sum256(big)
	if want := "text/plain " + itoa(int64(len(big))) + " bytes sha256:" + hex.EncodeToString(sum[:]) + " name:Q3 notes.txt"; out != want {
		t.Errorf("analyze answered %q, want %q (the companion title is the name, sanitized)", out, want)
	}
	if out := mcptest.Text(t, mcptest.Call(t, cs, "analyze", map[string]any{"document": uri})); !strings.HasSuffix(out, " name:notes.txt") {
		t.Errorf("analyze without a title answered %q, want the uploaded name", out)
	}

	res := mcptest.Call(t, cs, "analyze", map[string]any{"document": "data:text/plain;base64,SGk="})
	want := "Argument 'document' is a data: URI, but it takes uploaded files only (transferModes: upload): call files/authorizeUpload, upload the bytes, and send the mcp-file: URI it returns."
	if got := mcptest.Text(t, res); !res.IsError || got != want {
		t.Errorf("data: URI to an upload-only field: %q, want %q", got, want)
	}

	var args testtypes.DocumentArgs
	limit, err := runtime.RequestBytes(args.MCPSchema())
	if err != nil {
		t.Fatal(err)
	}
	if limit > runtime.EnvelopeBytes+1024 {
		t.Errorf("RequestBytes of an upload-only 1 GiB field = %d, want the envelope and a file URI", limit)
	}
}

// TestUploadOnlyFieldNeedsRegister: AddTool refuses a tool whose file
// takes uploads only on a server that does not serve them.
func TestUploadOnlyFieldNeedsRegister(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		want := `runtime.AddTool: tool "analyze": argument document takes uploaded files only (transfer=upload), but the server does not serve files/authorizeUpload: call transfer.Register(server, …) before adding the tool that uses it`
		if msg != want {
			t.Errorf("panic %q, want %q", msg, want)
		}
	}()
	s := mcp.NewServer(&mcp.Implementation{Name: "inline-only", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
}

// TestElicitUpload: a form whose file takes uploads is answered with an
// uploaded file's URI, authorized after the form was sent (which is when
// the server starts to accept uploads for it), on every protocol.
func TestElicitUpload(t *testing.T) {
	png := mcptest.PNG(t, 8, 8, false)
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			s := uploadsServer(t, transfer.Options{})
			mcp.AddTool(s, &mcp.Tool{Name: "scan"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				ans, pending, err := runtime.Elicit[testtypes.ScanForm](ctx, req, "Scan the page.", nil)
				if pending != nil || err != nil {
					return pending, nil, err
				}
				return readAll[testtypes.ScanForm](func(f testtypes.ScanForm) runtime.File { return f.Scan })(ctx, req, ans.Value)
			})
			var cs *mcp.ClientSession
			cs = inMemory(t, s, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					var schema struct {
						Properties map[string]struct {
							File struct {
								TransferModes []string `json:"transferModes"`
							} `json:"x-mcp-file"`
						} `json:"properties"`
					}
					b, _ := json.Marshal(req.Params.RequestedSchema)
					json.Unmarshal(b, &schema)
					if m := schema.Properties["scan"].File.TransferModes; len(m) != 2 {
						t.Errorf("form's transferModes %v", m)
					}
					uri := uploadFile(t, ctx, cs, "page.png", "image/png", png)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"scan": uri}}, nil
				},
			}, version)
			// Before the form is sent, nothing on this server takes PNGs.
			if _, err := authorize(t.Context(), cs, declare("page.png", "image/png", png)); err == nil {
				t.Fatal("authorize before the form: accepted, want refused (no field takes uploads yet)")
			}
			out := mcptest.Text(t, mcptest.Call(t, cs, "scan", map[string]any{}))
			sum := sha256.Sum256(png)
			if want := "image/png " + itoa(int64(len(png))) + " bytes sha256:" + hex.EncodeToString(sum[:]) + " name:page.png"; out != want {
				t.Errorf("scan answered %q, want %q", out, want)
			}
		})
	}
}

// TestTwoReplicas: two servers sharing a key and a store directory, as
// replicas behind one public name: authorize on one, upload to the other,
// call the tool on either.
func TestTwoReplicas(t *testing.T) {
	dir := t.TempDir()
	keys := testKeys(t)
	var servers [2]*mcp.Server
	var uploadURLs [2]string
	for i := range servers {
		st, err := diskstore.New(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		ts := httptest.NewServer(mux)
		t.Cleanup(ts.Close)
		s := mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "v1"}, nil)
		h, err := transfer.Register(s, transfer.Options{Keys: keys, Store: st, PublicURL: ts.URL + "/files/", Host: "files.example.com"})
		if err != nil {
			t.Fatal(err)
		}
		mux.Handle("/files/", h)
		runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
		servers[i], uploadURLs[i] = s, ts.URL+"/files/upload"
	}
	a, b := inMemory(t, servers[0], nil, ""), inMemory(t, servers[1], nil, "")
	text := bytes.Repeat([]byte("shared by two replicas\n"), 1000)
	res, err := authorize(t.Context(), a, declare("r.txt", "text/plain", text))
	if err != nil {
		t.Fatal(err)
	}
	up := res.Upload
	up.URL = uploadURLs[1] // the load balancer sent the upload to the other replica
	if code := send(t, up, text); code != http.StatusCreated {
		t.Fatalf("upload to replica 2: %d", code)
	}
	sum := sha256.Sum256(text)
	want := "text/plain " + itoa(int64(len(text))) + " bytes sha256:" + hex.EncodeToString(sum[:]) + " name:r.txt"
	for i, cs := range []*mcp.ClientSession{a, b} {
		if out := mcptest.Text(t, mcptest.Call(t, cs, "analyze", map[string]any{"document": res.File.URI})); out != want {
			t.Errorf("replica %d answered %q, want %q", i+1, out, want)
		}
	}
	// The token is spent on both: replica 1 refuses the replay.
	up.URL = uploadURLs[0]
	if code := send(t, up, text); code != http.StatusConflict {
		t.Errorf("replay on replica 1: %d, want 409", code)
	}
}

// TestQuota: files/authorizeUpload and the upload endpoint hold each owner
// to the quota of outstanding bytes; other owners are not affected.
func TestQuota(t *testing.T) {
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := uploadsServer(t, transfer.Options{Store: st, Quota: 10000})
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	cs := inMemory(t, s, nil, "")
	six := bytes.Repeat([]byte("x"), 6000)
	uploadFile(t, t.Context(), cs, "a.txt", "text/plain", six)
	_, err = authorize(t.Context(), cs, declare("b.txt", "text/plain", six))
	d, ok := transfer.ErrorDataOf(err)
	if !ok || d.Reason != transfer.ReasonQuotaExceeded || *d.MaxSize != 10000 || *d.ActualSize != 12000 {
		t.Fatalf("authorize past the quota = %v (data %+v), want -32602 quotaExceeded with maxSize 10000, actualSize 12000", err, d)
	}
	// Two authorizations that each fit, uploaded one after the other: the second upload is refused.
	st2, _ := diskstore.New(t.TempDir(), nil)
	s2 := uploadsServer(t, transfer.Options{Store: st2, Quota: 10000})
	runtime.AddTool(s2, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	cs2 := inMemory(t, s2, nil, "")
	r1, err1 := authorize(t.Context(), cs2, declare("a.txt", "text/plain", six))
	r2, err2 := authorize(t.Context(), cs2, declare("b.txt", "text/plain", six))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if code := send(t, r1.Upload, six); code != http.StatusCreated {
		t.Fatalf("first upload: %d", code)
	}
	if code := send(t, r2.Upload, six); code != http.StatusInsufficientStorage {
		t.Errorf("second upload past the quota: %d, want 507", code)
	}
}

// TestOneQuota: Options.Upload.Quota cannot set the upload endpoint
// another quota than files/authorizeUpload's and the pages': Register
// refuses one that differs from Options.Quota, and takes one that is the
// same.
func TestOneQuota(t *testing.T) {
	for _, tc := range []struct {
		quota, upload int64
		ok            bool
	}{
		{0, 0, true},
		{10000, 0, true},
		{10000, 10000, true},
		{0, transfer.DefaultQuota, true},
		{10000, 5000, false},
		{0, 5000, false},
		{-1, 5000, false},
	} {
		s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
		_, err := transfer.Register(s, transfer.Options{
			Keys: testKeys(t), PublicURL: "https://example.com/files/", Store: memstore.New(nil),
			Quota: tc.quota, Upload: transfer.UploadOptions{Quota: tc.upload},
		})
		if ok := err == nil; ok != tc.ok || (err != nil && !strings.Contains(err.Error(), "Options.Upload.Quota")) {
			t.Errorf("Register with Quota %d, Upload.Quota %d: %v, want ok %v", tc.quota, tc.upload, err, tc.ok)
		}
	}
}

// TestElicitUploadOnlyNeedsRegister: a form whose file takes uploads only
// cannot be elicited on a server that does not serve uploads.
func TestElicitUploadOnlyNeedsRegister(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "inline-only", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_, pending, err := runtime.Elicit[testtypes.UploadForm](ctx, req, "The contract, please.", nil)
		return pending, nil, err
	})
	cs := mcptest.Connect(t, s, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Error("the form was sent")
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}}, "2025-11-25")
	res := mcptest.Call(t, cs, "ask", map[string]any{})
	want := "runtime.Elicit: testtypes.UploadForm: argument doc takes uploaded files only (transfer=upload), but the server does not serve files/authorizeUpload"
	if got := mcptest.Text(t, res); !res.IsError || !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want an error starting %q", got, want)
	}
}
