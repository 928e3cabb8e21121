package analyzedoc_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// report calls export_report and returns its result and the FileValue in
// its structuredContent, checked against what was asked for.
func report(t *testing.T, cs *mcp.ClientSession, title string, size int64) (*mcp.CallToolResult, transfer.FileValue) {
	t.Helper()
	res := mcptest.Call(t, cs, "export_report", map[string]any{"title": title, "size": size})
	if res.IsError {
		t.Fatalf("export_report(%q, %d): %q", title, size, mcptest.Text(t, res))
	}
	var out analyzedoc.Export
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	v := out.Report
	if !strings.HasPrefix(v.URI, "mcp-file://127.0.0.1:") || v.Name != title+".txt" || v.MimeType != "text/plain" ||
		v.Size == nil || *v.Size != size || v.Digest == nil || v.Digest.Algorithm != transfer.DigestSHA256 {
		t.Fatalf("structuredContent.report %s, want a text/plain file %q of %d bytes with its sha-256", b, title+".txt", size)
	}
	return res, v
}

// download authorizes the download of v, GETs it (with the Range header
// rng when not "") and returns the response's status, headers and body.
func download(t *testing.T, cs *mcp.ClientSession, base string, v transfer.FileValue, rng string) (int, http.Header, []byte) {
	t.Helper()
	d, err := mcp.CallCustomMethod[*transfer.AuthorizeDownloadParams, *transfer.AuthorizeDownloadResult](t.Context(), cs, transfer.MethodAuthorizeDownload, &transfer.AuthorizeDownloadParams{URI: v.URI})
	if err != nil {
		t.Fatalf("files/authorizeDownload: %v", err)
	}
	if d.File.URI != v.URI || *d.File.Digest != *v.Digest || *d.File.Size != *v.Size ||
		d.Download.Transport != transfer.TransportHTTPS || d.Download.Method != transfer.TransferGET || !strings.HasPrefix(d.Download.URL, base+"/files/download/") {
		t.Fatalf("files/authorizeDownload = %+v, want the file and a GET under %s/files/download/", d, base)
	}
	r, err := http.NewRequestWithContext(t.Context(), d.Download.Method, d.Download.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, val := range d.Download.Headers {
		r.Header.Set(k, val)
	}
	if rng != "" {
		r.Header.Set("Range", rng)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, body
}

// wantFile checks that b is all of v: its size, its digest, and the report
// of that title.
func wantFile(t *testing.T, v transfer.FileValue, title string, b []byte) {
	t.Helper()
	if int64(len(b)) != *v.Size || transfer.SHA256Digest(sha256.Sum256(b)) != *v.Digest {
		t.Errorf("downloaded %d bytes with digest %v, want %d bytes with %v", len(b), transfer.SHA256Digest(sha256.Sum256(b)), *v.Size, *v.Digest)
	}
	if head := title + "\n\n1 the same line"; len(b) > len(head) && !bytes.HasPrefix(b, []byte(head)) {
		t.Errorf("report starts %q, want %q", b[:len(head)], head)
	}
}

// TestExportReport: a go-sdk client cannot declare files.download, so it
// gets the standard fallback: the bytes of a small report embedded, a text
// and a resource_link for a large one. Either way structuredContent.report
// is the file, which files/authorizeDownload and a GET fetch, whole or by
// range.
func TestExportReport(t *testing.T) {
	base := start(t, "/files/")
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, base, version)

			res, v := report(t, cs, "Q3 numbers", 10_000)
			_, _, body := download(t, cs, base, v, "")
			wantFile(t, v, "Q3 numbers", body)
			if len(res.Content) != 1 {
				t.Fatalf("small report: %d content blocks, want 1 embedded resource", len(res.Content))
			}
			er, ok := res.Content[0].(*mcp.EmbeddedResource)
			if !ok || er.Resource == nil || er.Resource.URI != v.URI || er.Resource.MIMEType != "text/plain" || !bytes.Equal(er.Resource.Blob, body) {
				t.Errorf("small report: content %s, want an embedded resource of the file's bytes", js(res.Content))
			}

			const big = 3 << 20
			res, v = report(t, cs, "annual", big)
			code, hdr, body := download(t, cs, base, v, "")
			if code != http.StatusOK || hdr.Get("Content-Length") != fmt.Sprint(big) || hdr.Get("Content-Type") != "text/plain" ||
				hdr.Get("Content-Disposition") != `attachment; filename="annual.txt"` {
				t.Errorf("download: %d, headers %v", code, hdr)
			}
			wantFile(t, v, "annual", body)
			if len(res.Content) != 2 {
				t.Fatalf("large report: content %s, want a text and a resource_link", js(res.Content))
			}
			text, ok := res.Content[0].(*mcp.TextContent)
			if !ok || !strings.Contains(text.Text, "annual.txt ("+fmt.Sprint(big)+" bytes) is too large for this client") {
				t.Errorf("large report: first block %s, want a text saying it is too large for this client", js(res.Content[0]))
			}
			link, ok := res.Content[1].(*mcp.ResourceLink)
			if !ok || link.URI != v.URI || link.Name != "annual.txt" || link.MIMEType != "text/plain" || link.Size == nil || *link.Size != big {
				t.Errorf("large report: second block %s, want a resource_link to %s", js(res.Content[1]), v.URI)
			}

			code, hdr, part := download(t, cs, base, v, "bytes=1000000-1000099")
			if code != http.StatusPartialContent || !bytes.Equal(part, body[1000000:1000100]) || hdr.Get("Content-Range") != fmt.Sprintf("bytes 1000000-1000099/%d", big) {
				t.Errorf("range: %d %q, Content-Range %q", code, part, hdr.Get("Content-Range"))
			}
		})
	}
}

// TestExportReportEdges: an empty report, a title that is no file name,
// and sizes outside 0 to 256 MiB, refused.
func TestExportReportEdges(t *testing.T) {
	base := start(t, "/files/")
	cs := connect(t, base, "")

	_, v := report(t, cs, "empty", 0)
	if _, _, body := download(t, cs, base, v, ""); len(body) != 0 || *v.Digest != transfer.SHA256Digest(sha256.Sum256(nil)) {
		t.Errorf("empty report: %d bytes, digest %v", len(body), *v.Digest)
	}

	res := mcptest.Call(t, cs, "export_report", map[string]any{"title": "../../etc/passwd", "size": 100})
	var out analyzedoc.Export
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || res.IsError || strings.ContainsAny(out.Report.Name, "/\\") {
		t.Errorf("title with a path: %s, want a name without separators", b)
	}

	for _, size := range []int64{-1, analyzedoc.MaxReportSize + 1} {
		res := mcptest.Call(t, cs, "export_report", map[string]any{"title": "x", "size": size})
		want := fmt.Sprintf("Argument 'size' is out of range: received %d, want 0 to 268435456 bytes (256 MiB)", size)
		if got := mcptest.Text(t, res); !res.IsError || got != want {
			t.Errorf("size %d: %q (isError %v), want %q", size, got, res.IsError, want)
		}
	}
}

// TestExportSchema: export_report's output schema, inferred from Export,
// describes report as a FileValue.
func TestExportSchema(t *testing.T) {
	cs := connect(t, start(t, "/files/"), "")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != analyzedoc.ExportTool.Name {
			continue
		}
		b, _ := json.Marshal(tool.OutputSchema)
		var s struct {
			Required   []string
			Properties struct {
				Report struct {
					Required   []string
					Properties map[string]any
				}
			}
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		r := s.Properties.Report
		if fmt.Sprint(s.Required) != "[report]" || fmt.Sprint(r.Required) != "[uri]" ||
			r.Properties["size"] == nil || r.Properties["digest"] == nil || r.Properties["mimeType"] == nil {
			t.Errorf("outputSchema %s, want report a FileValue", b)
		}
		return
	}
	t.Fatal("no export_report in tools/list")
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
