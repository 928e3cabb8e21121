package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// TestReplacedObjectRefused: after a genuine presigned upload, an object
// replaced through the S3 API (the same key and metadata, other bytes) is
// refused wherever its file URI is used, naming the argument, and the
// handler never runs on it: by the SHA-256 S3 reports on a HEAD with
// checksum mode, or by the length, against what the file URI says was
// authorized.
func TestReplacedObjectRefused(t *testing.T) {
	gw := server(t, "http")
	s := s3Server(t, gw, transfer.Options{})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.BigArgs) (*mcp.CallToolResult, any, error) {
		r, err := in.Blob.Open()
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read " + string(b)}}}, nil, err
	})
	cs := s3Client(t, s)
	client := gw.client(nil)
	original := []byte("the genuine upload")
	for _, tt := range []struct {
		name        string
		digest      bool
		replacement string
	}{
		{"declared digest, same size", true, "THE GENUINE UPLOAD"},
		{"declared digest, other size", true, "a replacement, longer than the upload"},
		{"no digest, other size", false, "shorter"},
	} {
		n := int64(len(original))
		p := &transfer.AuthorizeUploadParams{Name: "a.txt", MimeType: "text/plain", Size: &n}
		if tt.digest {
			d := transfer.SHA256Digest(sha256.Sum256(original))
			p.Digest = &d
		}
		res, err := mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](t.Context(), cs, transfer.MethodAuthorizeUpload, p)
		if err != nil {
			t.Fatal(err)
		}
		u := res.Upload
		if code, body := send(t, gw, store.SignedRequest{Method: u.Method, URL: u.URL, Headers: u.Headers}, original, nil); code != http.StatusOK {
			t.Fatalf("%s: presigned PUT: %d %s", tt.name, code, body)
		}
		uri := res.File.URI
		if got := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": uri})); got != "read "+string(original) {
			t.Fatalf("%s: before the replacement: %q", tt.name, got)
		}

		key := s3Key(t, u.URL)
		head, err := client.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.PutObject(t.Context(), &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte(tt.replacement)),
			ContentType: head.ContentType, Metadata: head.Metadata,
		}); err != nil {
			t.Fatal(err)
		}

		call := mcptest.Call(t, cs, "blob", map[string]any{"blob": uri})
		text := mcptest.Text(t, call)
		if !call.IsError || !strings.Contains(text, "Argument 'blob'") || !strings.Contains(text, "replaced") || strings.Contains(text, tt.replacement) {
			t.Errorf("%s: tools/call after the replacement: isError %v, %q; want an error naming the argument and saying the file was replaced", tt.name, call.IsError, text)
		}
		_, err = mcp.CallCustomMethod[*transfer.AuthorizeDownloadParams, *transfer.AuthorizeDownloadResult](t.Context(), cs, transfer.MethodAuthorizeDownload, &transfer.AuthorizeDownloadParams{URI: uri})
		if d, ok := transfer.ErrorDataOf(err); !ok || d.Reason != transfer.ReasonDigestMismatch {
			t.Errorf("%s: files/authorizeDownload after the replacement: %v, want -32602 %s", tt.name, err, transfer.ReasonDigestMismatch)
		}
	}
}
