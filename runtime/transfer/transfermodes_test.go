package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

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
