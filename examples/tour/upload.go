package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// upload plays a SEP-2631 client by hand against the analyze_document
// example, served over streamable HTTP on 127.0.0.1: files/authorizeUpload,
// the multipart POST of the bytes beside the MCP connection, and the
// tools/call that carries the returned file URI instead of the bytes.
func (t *tour) upload(ctx context.Context) {
	base, stop, ok := t.serveAnalyzeDocument()
	if !ok {
		return
	}
	defer stop()

	c := mcp.NewClient(&mcp.Implementation{Name: "tour", Version: "v1"}, nil)
	// files/authorizeUpload is not a method the SDK knows: declare it.
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload); err != nil {
		t.check(false, "declare files/authorizeUpload: %v", err)
		return
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + analyzedoc.MCPPath}, nil)
	if err != nil {
		t.check(false, "connect to analyze_document: %v", err)
		return
	}
	defer cs.Close()

	src := analyzedoc.ArgsSource
	if i := strings.Index(src, "// AnalyzeArgs"); i >= 0 {
		src = src[i:]
	}
	if i := strings.Index(src, "\n\n"); i >= 0 {
		src = src[:i+1]
	}
	t.printf("%s\n", indent(src, "   "))
	t.printf("   analyze_document serves MCP at %s%s and uploads at %s/files/upload (transfer.Register).\n\n", base, analyzedoc.MCPPath, base)
	t.uploadSchema(ctx, cs)

	doc := textFile(4 << 20)
	sum := sha256.Sum256(doc)
	size := int64(len(doc))
	digest := transfer.SHA256Digest(sum)
	params := &transfer.AuthorizeUploadParams{Name: "notes.txt", MimeType: "text/plain", Size: &size, Digest: &digest}
	pb, _ := json.Marshal(params)
	t.printf("\n   a %.1f MiB text file; first the client declares it:\n   files/authorizeUpload %s\n", float64(size)/(1<<20), pb)
	res, err := mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](ctx, cs, transfer.MethodAuthorizeUpload, params)
	if err != nil {
		t.check(false, "files/authorizeUpload: %v", err)
		return
	}
	t.printf("   result (the upload token elided):\n%s\n", indent(elideToken(res), "     "))
	d := res.Upload
	t.check(strings.HasPrefix(res.File.URI, "mcp-file://") && d.Method == "POST" && d.Multipart != nil && d.URL == base+"/files/upload",
		"a file URI (mcp-file:) and a descriptor: multipart POST to the upload endpoint")

	status, answer := post(ctx, d, "notes.txt", doc)
	t.printf("\n   POST %s (multipart/form-data: the token field, then the file part, %d bytes)\n   → %d %s\n", d.URL, size, status, answer)
	t.check(status == http.StatusCreated, "the upload endpoint stored the bytes (201), holding one buffer of them at a time")

	t.printf("\n   tools/call analyze_document {\"document\": %q}\n", res.File.URI)
	t.printf("   (the argument is %d bytes, whatever the file's size)\n", len(res.File.URI))
	cr, text := t.call(ctx, cs, "analyze_document", map[string]any{"document": res.File.URI})
	if cr == nil {
		return
	}
	t.printf("   result (isError: %v): %s\n", cr.IsError, text)
	t.check(!cr.IsError && strings.Contains(text, fmt.Sprintf("%d bytes, sha256:%s", size, hex.EncodeToString(sum[:]))),
		"the handler read the uploaded bytes through File.Open: same size, same SHA-256")

	t.printf("\n   in Go, package runtime/transfer/client does the three steps in one call, checking each answer:\n")
	t.printf("   client.Upload(ctx, cs, client.File{Name: \"notes.txt\", MediaType: \"text/plain\", Size: %d, Body: r}, &client.Options{AllowHTTP: true})\n", size)
	fv, err := client.Upload(ctx, cs, client.File{Name: "notes.txt", MediaType: "text/plain", Size: size, Body: bytes.NewReader(doc)}, &client.Options{AllowHTTP: true})
	if err != nil {
		t.check(false, "client.Upload: %v", err)
		return
	}
	cr, text = t.call(ctx, cs, "analyze_document", map[string]any{"document": fv.URI})
	if cr == nil {
		return
	}
	t.printf("   → a new file URI; analyze_document answers: %s\n", text)
	t.check(!cr.IsError && strings.Contains(text, hex.EncodeToString(sum[:])), "the same bytes, uploaded by the client package")

	t.printf("\n   the same field given the bytes inline, as a data: URI:\n")
	inline := datauri.Encode("text/plain", []byte("a short note\n"))
	t.printf("   tools/call analyze_document {\"document\": %q}\n", datauri.Redact(inline))
	cr, text = t.call(ctx, cs, "analyze_document", map[string]any{"document": inline})
	if cr == nil {
		return
	}
	t.printf("   → %s\n", text)
	t.check(cr.IsError && strings.Contains(text, "transferModes: upload"), "isError: an upload-only field refuses data: URIs, naming transferModes")

	huge := int64(3 << 30) // more than any upload-capable field takes (import_archive's archive: 2 GiB)
	t.printf("\n   declaring a 3 GiB file:\n   files/authorizeUpload {\"mimeType\":\"text/plain\",\"size\":%d}\n", huge)
	_, err = mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](ctx, cs, transfer.MethodAuthorizeUpload,
		&transfer.AuthorizeUploadParams{MimeType: "text/plain", Size: &huge})
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		t.printf("   → JSON-RPC error %d: %s\n     data: %s\n", je.Code, je.Message, je.Data)
	}
	ed, _ := transfer.ErrorDataOf(err)
	t.check(je != nil && je.Code == jsonrpc.CodeInvalidParams && ed.Reason == transfer.ReasonMaxSizeExceeded,
		"refused before a byte is sent: -32602, data.reason maxSizeExceeded")
}

// uploadSchema shows analyze_document's file argument as tools/list has it.
func (t *tour) uploadSchema(ctx context.Context, cs *mcp.ClientSession) {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.check(false, "tools/list: %v", err)
		return
	}
	var keyword json.RawMessage
	for _, tool := range res.Tools {
		if tool.Name != analyzedoc.AnalyzeTool.Name {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties struct {
				Document struct {
					File json.RawMessage `json:"x-mcp-file"`
				} `json:"document"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(b, &s)
		keyword = s.Properties.Document.File
	}
	t.printf("   tools/list: analyze_document's \"document\" has \"x-mcp-file\": %s\n", keyword)
	var f struct {
		MaxSize       int64    `json:"maxSize"`
		TransferModes []string `json:"transferModes"`
	}
	_ = json.Unmarshal(keyword, &f)
	t.check(f.MaxSize == 1<<30 && len(f.TransferModes) == 1 && f.TransferModes[0] == "upload",
		"transferModes [\"upload\"], maxSize 1 GiB: far more than a JSON-RPC message should carry")
}

// textFile returns about n bytes of text.
func textFile(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d: sent out of band, beside the MCP connection\n", i)
	}
	return b.Bytes()
}

// elideToken returns res as indented JSON with the upload token, a bearer
// capability, replaced by its length, and without the _meta the SDK adds.
func elideToken(res *transfer.AuthorizeUploadResult) string {
	r := *res
	r.Meta = nil
	if m := r.Upload.Multipart; m != nil {
		mm := *m
		mm.Fields = map[string]string{}
		for k, v := range m.Fields {
			mm.Fields[k] = v
			if k == transfer.FormFieldToken {
				mm.Fields[k] = fmt.Sprintf("[%d characters]", len(v))
			}
		}
		r.Upload.Multipart = &mm
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b)
}

// post sends data as the descriptor d says: a multipart/form-data POST
// with d's fields (the token) before the file part. It returns the status
// and the endpoint's answer.
func post(ctx context.Context, d transfer.FileTransferDescriptor, name string, data []byte) (int, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range d.Multipart.Fields {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile(d.Multipart.FileField, name)
	_, _ = fw.Write(data)
	_ = mw.Close()
	req, err := http.NewRequestWithContext(ctx, d.Method, d.URL, &body)
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	return res.StatusCode, strings.TrimSpace(string(answer))
}

// serveAnalyzeDocument starts the analyze_document example over HTTP on
// 127.0.0.1, its uploads in memory, and returns its base URL (MCP at
// analyzedoc.MCPPath, files under /files/) and the function that stops it.
// ok is false, the failure checked, if it could not start.
func (t *tour) serveAnalyzeDocument() (base string, stop func(), ok bool) {
	ts := httptest.NewUnstartedServer(nil)
	base = "http://" + ts.Listener.Addr().String()
	h, err := analyzedoc.Handler(analyzedoc.Options{PublicURL: base + "/files/", Store: memstore.New(nil)})
	if err != nil {
		ts.Listener.Close()
		t.check(false, "start analyze_document: %v", err)
		return "", nil, false
	}
	ts.Config.Handler = h
	ts.Start()
	return base, ts.Close, true
}
