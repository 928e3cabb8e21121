package interop

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// The analyze_document example serves HTTP only (uploads need it), so it
// is not among examples, which every TypeScript client also drives over
// stdio; it is built on its own, into the same binDir.
var (
	analyzeOnce     sync.Once
	analyzeBin      string
	analyzeBuildErr error
)

func buildAnalyzeDocument(t *testing.T) string {
	t.Helper()
	buildExamples(t) // makes binDir, which TestMain removes
	analyzeOnce.Do(func() {
		analyzeBin = filepath.Join(binDir, "analyze_document")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", analyzeBin, "github.com/mcpfile/mcpfile/examples/analyze_document")
		if out, err := cmd.CombinedOutput(); err != nil {
			analyzeBuildErr = fmt.Errorf("go build analyze_document: %v\n%s", err, out)
		}
	})
	if analyzeBuildErr != nil {
		t.Fatal(analyzeBuildErr)
	}
	return analyzeBin
}

// uploadPlan is what upload.mjs reads.
type uploadPlan struct {
	SDK       string       `json:"sdk"`
	Negotiate string       `json:"negotiate,omitempty"`
	URL       string       `json:"url"`
	Steps     []uploadStep `json:"steps"`
}

type uploadStep struct {
	Op        string         `json:"op"` // upload, authorize or callTool
	Label     string         `json:"label"`
	File      string         `json:"file,omitempty"`
	Name      string         `json:"name,omitempty"`
	MimeType  string         `json:"mimeType,omitempty"`
	Tool      string         `json:"tool,omitempty"`
	Argument  string         `json:"argument,omitempty"`
	Params    map[string]any `json:"params,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// rpcError is a JSON-RPC error as the TypeScript client reports it.
type rpcError struct {
	Code    any
	Message string
	Data    *struct {
		Reason     string
		MaxSize    int64
		ActualSize int64
	}
}

// uploadOut is what upload.mjs prints.
type uploadOut struct {
	OK              bool
	Error           string
	ProtocolVersion string
	Steps           []struct {
		Label     string
		Authorize *struct {
			Result *struct {
				File struct {
					URI, Name, MimeType string
					Size                int64
				}
				Upload struct {
					Transport, Method, URL string
					Multipart              *struct {
						FileField string
						Fields    map[string]string
					}
				}
			}
			Error *rpcError
		}
		Upload *struct {
			Status int
			Body   json.RawMessage
		}
		Call *struct {
			Result *callResult
			Error  *rpcError
		}
	}
}

// runUpload runs upload.mjs with p; it fails the test when the client
// could not run its plan.
func runUpload(t *testing.T, node string, p uploadPlan) uploadOut {
	t.Helper()
	var out uploadOut
	stderr := runScript(t, node, "upload.mjs", p, &out)
	if !out.OK {
		t.Fatalf("node upload.mjs failed: %s\nstderr: %.4000s", out.Error, stderr)
	}
	if len(out.Steps) != len(p.Steps) {
		t.Fatalf("upload.mjs ran %d of %d steps", len(out.Steps), len(p.Steps))
	}
	return out
}

// TestTypeScriptUpload drives the analyze_document example with the
// official TypeScript SDK clients the SEP-2631 way: files/authorizeUpload
// sent as a custom request, the bytes POSTed with fetch and FormData (the
// token field, then the file), tools/call with the returned mcp-file: URI;
// the tool must answer the size and SHA-256 of the bytes sent. A declared
// size past every field's maxSize must come back to the client as -32602
// with data.reason maxSizeExceeded, and a data: URI to the upload-only
// field as an isError result naming transferModes.
func TestTypeScriptUpload(t *testing.T) {
	node := requireNode(t)
	bin := buildAnalyzeDocument(t)
	url := startHTTP(t, bin, "-store", t.TempDir()) + "mcp"

	dir := t.TempDir()
	text := bytes.Repeat([]byte("out of band, a piece at a time\n"), (3<<20)/31+1)
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
		"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	files := []struct {
		label, name, mimeType string
		data                  []byte
	}{
		{"text 3 MiB", "notes.txt", "text/plain", text},
		{"pdf", "report.pdf", "application/pdf", pdf},
	}
	var steps []uploadStep
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, uploadStep{Op: "upload", Label: f.label, File: path, Name: f.name, MimeType: f.mimeType, Tool: "analyze_document", Argument: "document"})
	}
	steps = append(steps,
		// More than any upload-capable field takes (import_archive's archive: 2 GiB of any type).
		uploadStep{Op: "authorize", Label: "too big", Params: map[string]any{"name": "huge.txt", "mimeType": "text/plain", "size": 2<<30 + 1}},
		uploadStep{Op: "callTool", Label: "inline", Name: "analyze_document", Arguments: map[string]any{"document": mcptest.DataURI("text/plain", []byte("inline"))}},
	)

	for _, c := range []struct{ name, sdk, negotiate, version string }{
		{"sdk-v1", "v1", "", "2025-11-25"},
		{"client-v2-2026-07-28", "v2", "2026-07-28", "2026-07-28"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runUpload(t, node, uploadPlan{SDK: c.sdk, Negotiate: c.negotiate, URL: url, Steps: steps})
			if out.ProtocolVersion != c.version {
				t.Errorf("negotiated %q, want %q", out.ProtocolVersion, c.version)
			}
			for i, f := range files {
				checkUploadStep(t, out.Steps[i].Label, out, i, f.name, f.mimeType, f.data)
			}

			big := out.Steps[len(files)]
			if a := big.Authorize; a == nil || a.Error == nil || fmt.Sprint(a.Error.Code) != "-32602" || a.Error.Data == nil ||
				a.Error.Data.Reason != "maxSizeExceeded" || a.Error.Data.MaxSize != 2<<30 || a.Error.Data.ActualSize != 2<<30+1 {
				t.Errorf("too big: %s, want error -32602 with data {reason: maxSizeExceeded, maxSize: %d, actualSize: %d}", js(big.Authorize), 2<<30, 2<<30+1)
			}

			inline := out.Steps[len(files)+1].Call
			const want = "Argument 'document' is a data: URI, but it takes uploaded files only (transferModes: upload)"
			if inline == nil || inline.Result == nil || !inline.Result.IsError || !strings.HasPrefix(inline.Result.text(), want) {
				t.Errorf("data: URI to analyze_document: %s, want isError %q…", js(inline), want)
			}
		})
	}
}

// checkUploadStep checks step i, the upload of data: authorized with the
// declaration echoed, stored (201, with its size and digest), and read
// back by the tool.
func checkUploadStep(t *testing.T, label string, out uploadOut, i int, name, mimeType string, data []byte) {
	t.Helper()
	s := out.Steps[i]
	sum := sha256.Sum256(data)
	if s.Authorize == nil || s.Authorize.Result == nil {
		t.Fatalf("%s: authorize: %s", label, js(s.Authorize))
	}
	r := s.Authorize.Result
	if !strings.HasPrefix(r.File.URI, "mcp-file://127.0.0.1:") || r.File.Name != name || r.File.MimeType != mimeType || r.File.Size != int64(len(data)) {
		t.Errorf("%s: authorized file %+v, want the declaration echoed", label, r.File)
	}
	if u := r.Upload; u.Transport != "https" || u.Method != "POST" || !strings.HasSuffix(u.URL, "/files/upload") || u.Multipart == nil ||
		u.Multipart.FileField != "file" || !strings.HasSuffix(u.Multipart.Fields["token"], " characters]") {
		t.Errorf("%s: upload descriptor %+v", label, u)
	}
	var stored struct {
		Size   int64
		Digest struct{ Algorithm, Value string }
	}
	if s.Upload == nil || s.Upload.Status != 201 || json.Unmarshal(s.Upload.Body, &stored) != nil ||
		stored.Size != int64(len(data)) || stored.Digest.Value != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Fatalf("%s: upload: %s, want 201 with size %d and the sha-256", label, js(s.Upload), len(data))
	}
	if s.Call == nil || s.Call.Result == nil {
		t.Fatalf("%s: tools/call: %s", label, js(s.Call))
	}
	text := s.Call.Result.text()
	want := fmt.Sprintf("%s: %s, %d bytes, sha256:%s", name, mimeType, len(data), hex.EncodeToString(sum[:]))
	if s.Call.Result.IsError || !strings.HasPrefix(text, want) {
		t.Errorf("%s: analyze_document answered %q, want %q…", label, text, want)
	}
	var sc struct {
		Size   int64
		SHA256 string
	}
	if json.Unmarshal(s.Call.Result.StructuredContent, &sc) != nil || sc.Size != int64(len(data)) || sc.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("%s: structuredContent %s", label, s.Call.Result.StructuredContent)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
