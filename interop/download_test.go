package interop

import (
	"fmt"
	"strings"
	"testing"
)

// downloadPlan is what download.mjs reads.
type downloadPlan struct {
	SDK       string         `json:"sdk"`
	Negotiate string         `json:"negotiate,omitempty"`
	URL       string         `json:"url"`
	Declare   bool           `json:"declare"`
	Raw       bool           `json:"raw"`
	Steps     []downloadStep `json:"steps"`
}

type downloadStep struct {
	Label     string         `json:"label"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Range     string         `json:"range,omitempty"`
}

// fileValue is a SEP-2631 FileValue as the TypeScript client printed it.
type fileValue struct {
	URI, Name, MimeType string
	Size                int64
	Digest              struct{ Algorithm, Value string }
}

// contentBlock is a content block as download.mjs prints it: an embedded
// resource's blob replaced by its length and sha-256.
type contentBlock struct {
	Type, Text, URI, Name, MimeType string
	Size                            int64
	File                            *fileValue
	Resource                        *struct {
		URI, MimeType string
		Blob          *struct {
			Bytes  int64
			Digest string
		}
	}
}

// downloadOut is what download.mjs prints.
type downloadOut struct {
	OK              bool
	Error           string
	Declared        bool
	ProtocolVersion string
	Steps           []struct {
		Label string
		Call  struct {
			ContentTypes []string
			Content      []contentBlock
			IsError      bool
			Text         string
			Error        *rpcError
		}
		Report    *fileValue
		Authorize *struct {
			Result *struct {
				File     fileValue
				Download struct{ Transport, Method, URL string }
			}
			Error *rpcError
		}
		Download *struct {
			Status                                         int
			ContentType, ContentLength, ContentDisposition string
			Bytes                                          int64
			Digest                                         string
			Verified                                       bool
		}
		Range *struct {
			Status       int
			ContentRange string
			Bytes        int64
			Matches      bool
		}
	}
}

// runDownload runs download.mjs with p; it fails the test when the client
// could not run its plan.
func runDownload(t *testing.T, node string, p downloadPlan) downloadOut {
	t.Helper()
	var out downloadOut
	stderr := runScript(t, node, "download.mjs", p, &out)
	if !out.OK {
		t.Fatalf("node download.mjs failed: %s\nstderr: %.4000s", out.Error, stderr)
	}
	if len(out.Steps) != len(p.Steps) {
		t.Fatalf("download.mjs ran %d of %d steps", len(out.Steps), len(p.Steps))
	}
	return out
}

// TestTypeScriptDownload drives the analyze_document example's
// export_report with the official TypeScript SDK clients the SEP-2631 way:
// structuredContent.report read from the result, files/authorizeDownload
// sent as a custom request, the descriptor's URL fetched (whole, and one
// Range), its byte count and sha-256 compared with the FileValue.
//
// A client that does not declare files.download gets the standard
// fallback: the small report as an embedded resource with its bytes, the
// 2 MiB one as a text and a resource_link. Both SDK generations let a
// client put {"files": {"download": true}} in its capabilities, and the
// server reads it (from initialize on 2025-11-25, through
// transfer.KeepFilesCapability; from each request's _meta on 2026-07-28)
// and sends {"type": "file"} blocks. Neither SDK's callTool accepts one
// (their content-block unions know no "file"), so those passes send
// tools/call with client.request and a permissive schema, which sdk 1.x
// and client 2.x on 2025-11-25 honour. Client 2.x on 2026-07-28 checks a
// tools/call result against its own wire schema whatever schema the
// caller gives, so the pinned 2.3.1 cannot take a file block at all: that
// pass expects the call to fail with its INVALID_RESULT, and says so when
// it stops failing.
func TestTypeScriptDownload(t *testing.T) {
	node := requireNode(t)
	bin := buildAnalyzeDocument(t)
	base := startHTTP(t, bin, "-store", t.TempDir())

	const small, big = 4096, 2 << 20
	steps := []downloadStep{
		{Label: "small", Tool: "export_report", Arguments: map[string]any{"title": "Q3 summary", "size": small}},
		{Label: "2 MiB", Tool: "export_report", Arguments: map[string]any{"title": "Q3 numbers", "size": big}, Range: "bytes=1000000-1000099"},
	}
	sizes := []int64{small, big}

	for _, c := range []struct {
		name, sdk, negotiate, version string
		declare                       bool
		want                          [][]string // content block types per step; nil: the call fails
	}{
		{"sdk-v1", "v1", "", "2025-11-25", false, [][]string{{"resource"}, {"text", "resource_link"}}},
		{"client-v2-2026-07-28", "v2", "2026-07-28", "2026-07-28", false, [][]string{{"resource"}, {"text", "resource_link"}}},
		{"sdk-v1-declaring", "v1", "", "2025-11-25", true, [][]string{{"file"}, {"file"}}},
		{"client-v2-legacy-declaring", "v2", "legacy", "2025-11-25", true, [][]string{{"file"}, {"file"}}},
		{"client-v2-2026-07-28-declaring", "v2", "2026-07-28", "2026-07-28", true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runDownload(t, node, downloadPlan{SDK: c.sdk, Negotiate: c.negotiate, URL: base + "mcp", Declare: c.declare, Raw: c.declare, Steps: steps})
			if out.ProtocolVersion != c.version {
				t.Errorf("negotiated %q, want %q", out.ProtocolVersion, c.version)
			}
			for i, s := range out.Steps {
				if c.want == nil {
					if e := s.Call.Error; e == nil || fmt.Sprint(e.Code) != "INVALID_RESULT" || !strings.Contains(e.Message, "Invalid result for tools/call") {
						t.Errorf("%s: call %s; want client 2.3.1 on 2026-07-28 to reject the result with its file block (INVALID_RESULT). "+
							"If it takes it now, expect [file] here and update interop/README.md", s.Label, js(s.Call))
					}
					continue
				}
				if s.Call.Error != nil || s.Call.IsError || s.Report == nil {
					t.Fatalf("%s: call %s, want a result with structuredContent.report", s.Label, js(s.Call))
				}
				r := *s.Report
				if !strings.HasPrefix(r.URI, "mcp-file://127.0.0.1:") || r.MimeType != "text/plain" || r.Size != sizes[i] ||
					r.Digest.Algorithm != "sha-256" || len(r.Digest.Value) != 43 {
					t.Errorf("%s: structuredContent.report %+v", s.Label, r)
				}
				if got := fmt.Sprint(s.Call.ContentTypes); got != fmt.Sprint(c.want[i]) {
					t.Errorf("%s: content block types %s, want %s", s.Label, got, c.want[i])
				}
				checkDownloadContent(t, s.Label, r, s.Call.Content)

				if a := s.Authorize; a == nil || a.Result == nil || a.Result.File != r || a.Result.Download.Transport != "https" ||
					a.Result.Download.Method != "GET" || !strings.HasPrefix(a.Result.Download.URL, base+"files/download/[") {
					t.Fatalf("%s: files/authorizeDownload: %s", s.Label, js(s.Authorize))
				}
				d := s.Download
				if d == nil || d.Status != 200 || d.Bytes != r.Size || d.Digest != r.Digest.Value || !d.Verified ||
					d.ContentLength != fmt.Sprint(r.Size) || d.ContentType != "text/plain" || !strings.HasPrefix(d.ContentDisposition, "attachment; filename=") {
					t.Errorf("%s: download %s, want 200 with %d bytes of sha-256 %s", s.Label, js(d), r.Size, r.Digest.Value)
				}
				if s.Label == "2 MiB" {
					if g := s.Range; g == nil || g.Status != 206 || g.Bytes != 100 || !g.Matches || g.ContentRange != fmt.Sprintf("bytes 1000000-1000099/%d", big) {
						t.Errorf("%s: range %s, want 206 with bytes 1000000-1000099", s.Label, js(g))
					}
				}
			}
		})
	}
}

// checkDownloadContent checks the content blocks that stand for the file
// r: a file block of r itself; an embedded resource with r's bytes; or a
// text saying it is too large and a resource_link to it.
func checkDownloadContent(t *testing.T, label string, r fileValue, content []contentBlock) {
	t.Helper()
	for _, b := range content {
		ok := true
		switch b.Type {
		case "file":
			ok = b.File != nil && *b.File == r
		case "resource":
			ok = b.Resource != nil && b.Resource.URI == r.URI && b.Resource.MimeType == r.MimeType &&
				b.Resource.Blob != nil && b.Resource.Blob.Bytes == r.Size && b.Resource.Blob.Digest == r.Digest.Value
		case "text":
			ok = strings.Contains(b.Text, fmt.Sprintf("%s (%d bytes) is too large for this client", r.Name, r.Size))
		case "resource_link":
			ok = b.URI == r.URI && b.Name == r.Name && b.MimeType == r.MimeType && b.Size == r.Size
		}
		if !ok {
			t.Errorf("%s: %s block %s does not stand for %+v", label, b.Type, js(b), r)
		}
	}
}
