package conform

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// The SEP-2631 half of the test server: files/authorizeUpload and
// files/authorizeDownload, upload and download endpoints on an
// httptest.Server, tokens and file URIs sealed with an HMAC, and three
// tools: doc (an upload-only document), text (inline or uploaded text)
// and export (returns a file). Written from the SEP, without mcpfile's
// runtime; each break turns one rule off.

const (
	docTool    = `{"type":"object","properties":{"doc":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain","application/pdf"],"maxSize":3000,"transferModes":["upload"]}}},"required":["doc"]}`
	textTool   = `{"type":"object","properties":{"text":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain"],"maxSize":2000,"transferModes":["inline","upload"]}}},"required":["text"]}`
	exportTool = `{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`
	exportOut  = `{"type":"object","properties":{"report":{"type":"object","properties":{"uri":{"type":"string"},"size":{"type":"integer"},"digest":{"type":"object"}}}}}`
)

type pendingUpload struct {
	mt     string
	size   int64
	digest *[sha256.Size]byte
	used   bool
}

type storedFile struct {
	name, mt string
	data     []byte
}

// fileStore holds the server's uploads and files.
type fileStore struct {
	b       breaks
	url     string // the endpoints' base URL
	mu      sync.Mutex
	next    int
	uploads map[string]*pendingUpload
	files   map[string]storedFile
	checked map[string]bool // file URIs a call accepted (recheckOnce)
}

var storeKey = []byte("the test server's key")

func mac(kind, id string) string {
	h := hmac.New(sha256.New, storeKey)
	h.Write([]byte(kind + ":" + id))
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// token is the sealed token of kind for id: the MAC, then the id, so that
// altering its middle alters the MAC.
func token(kind, id string) string { return mac(kind, id) + id }

// open returns the id a token of kind names, checking its MAC unless
// trust.
func open(kind, tok string, trust bool) (string, bool) {
	if len(tok) <= 32 {
		return "", false
	}
	id := tok[32:]
	return id, trust || hmac.Equal([]byte(tok[:32]), []byte(mac(kind, id)))
}

const uriPrefix = "mcp-file://test/"

func (st *fileStore) newID() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.next++
	return fmt.Sprintf("f%03d", st.next)
}

func (st *fileStore) file(uri string, trust bool) (storedFile, bool) {
	tok, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok {
		return storedFile{}, false
	}
	id, ok := open("file", tok, trust)
	if !ok {
		return storedFile{}, false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	f, ok := st.files[id]
	return f, ok
}

func jsonError(w http.ResponseWriter, status int, msg, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg, "reason": reason})
}

// serveUpload takes an upload: a multipart POST whose token field comes
// before the file, or a PUT with a bearer token.
func (st *fileStore) serveUpload(w http.ResponseWriter, r *http.Request) {
	var tok string
	var body io.Reader
	switch r.Method {
	case http.MethodPut:
		tok, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		body = r.Body
	case http.MethodPost:
		mr, err := r.MultipartReader()
		if err != nil {
			jsonError(w, 415, "not multipart", "unsupportedBody")
			return
		}
		for {
			p, err := mr.NextPart()
			if err != nil {
				jsonError(w, 400, "no file part", "malformed")
				return
			}
			if p.FormName() == "token" {
				b, _ := io.ReadAll(io.LimitReader(p, 256))
				tok = string(b)
				continue
			}
			body = p
			break
		}
	default:
		jsonError(w, 405, "method not allowed", "methodNotAllowed")
		return
	}
	id, ok := open("upload", tok, st.b.noTokenCheck)
	if !ok {
		jsonError(w, 403, "bad token", "unauthorized")
		return
	}
	st.mu.Lock()
	p := st.uploads[id]
	st.mu.Unlock()
	switch {
	case p == nil:
		jsonError(w, 404, "no such upload", "notFound")
		return
	case p.used && !st.b.replay:
		jsonError(w, 409, "already used", "alreadyUsed")
		return
	}
	data, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		jsonError(w, 400, "broken body", "incomplete")
		return
	}
	if int64(len(data)) != p.size && !st.b.noSizeCheck {
		jsonError(w, 400, fmt.Sprintf("%d bytes came, %d were declared", len(data), p.size), "incomplete")
		return
	}
	if p.digest != nil && sha256.Sum256(data) != *p.digest && !st.b.noDigestCheck {
		if st.b.digestNoReason {
			http.Error(w, "upload rejected", 422)
		} else {
			jsonError(w, 422, "the bytes do not have the declared digest", "digestMismatch")
		}
		return
	}
	st.mu.Lock()
	p.used = true
	st.files[id] = storedFile{name: "upload", mt: p.mt, data: data}
	st.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"size":%d}`, len(data))
}

// serveDownload serves /download/<token>, Range included.
func (st *fileStore) serveDownload(w http.ResponseWriter, r *http.Request) {
	id, ok := open("download", strings.TrimPrefix(r.URL.Path, "/download/"), st.b.downloadNoTokenCheck)
	if !ok {
		jsonError(w, 403, "bad token", "unauthorized")
		return
	}
	st.mu.Lock()
	f, ok := st.files[id]
	st.mu.Unlock()
	if !ok {
		jsonError(w, 404, "no such file", "notFound")
		return
	}
	data := f.data
	if st.b.badDownload {
		data = append(slices.Clone(data[:len(data)-1]), data[len(data)-1]^1)
	}
	if st.b.badRange && r.Header.Get("Range") != "" {
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[:2])
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func (st *fileStore) fileValue(id string) wire.FileValue {
	st.mu.Lock()
	f := st.files[id]
	st.mu.Unlock()
	size := int64(len(f.data))
	d := wire.SHA256Digest(sha256.Sum256(f.data))
	return wire.FileValue{URI: uriPrefix + token("file", id), Name: f.name, MimeType: f.mt, Size: &size, Digest: &d}
}

// addTransfer adds the SEP-2631 methods and tools to s; refuse answers a
// violation as the test server does. It returns the check of a file URI
// in argument name: nil results when the file fits.
func addTransfer(t *testing.T, s *mcp.Server, b breaks, refuse func(req *mcp.CallToolRequest, name, msg, reason string, payload []byte) (*mcp.CallToolResult, error)) func(req *mcp.CallToolRequest, name, v string) (*mcp.CallToolResult, error) {
	st := &fileStore{b: b, uploads: map[string]*pendingUpload{}, files: map[string]storedFile{}, checked: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/upload", st.serveUpload)
	mux.HandleFunc("/download/", st.serveDownload)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	st.url = srv.URL

	if !b.noUploads {
		mcp.AddReceivingCustomMethod(s, wire.MethodAuthorizeUpload, func(_ context.Context, _ *mcp.ServerSession, p *wire.AuthorizeUploadParams) (*wire.AuthorizeUploadResult, error) {
			pu := &pendingUpload{mt: p.MimeType}
			if p.Digest != nil {
				sum, err := p.Digest.SHA256()
				if err != nil {
					if b.authorizeNoReason {
						return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad digest"}
					}
					return nil, wire.InvalidFileError("the digest is malformed", wire.ErrorData{Reason: wire.ReasonMalformed})
				}
				pu.digest = &sum
			}
			if p.Size == nil || *p.Size < 0 || *p.Size > 1<<20 {
				return nil, wire.InvalidFileError("size must be 0 to 1 MiB", wire.ErrorData{Reason: wire.ReasonMaxSizeExceeded})
			}
			pu.size = *p.Size
			id := st.newID()
			st.mu.Lock()
			st.uploads[id] = pu
			st.mu.Unlock()
			tok := token("upload", id)
			d := wire.FileTransferDescriptor{Transport: "https", Method: "POST", URL: srv.URL + "/upload",
				Multipart: &wire.Multipart{FileField: "file", Fields: map[string]string{"token": tok}}}
			if b.usePUT {
				d = wire.FileTransferDescriptor{Transport: "https", Method: "PUT", URL: srv.URL + "/upload", Headers: map[string]string{"Authorization": "Bearer " + tok}}
			}
			if !b.noExpiry {
				d.ExpiresAt = time.Now().Add(10 * time.Minute)
			}
			return &wire.AuthorizeUploadResult{File: wire.FileValue{URI: uriPrefix + token("file", id), Name: p.Name, MimeType: p.MimeType, Size: p.Size, Digest: p.Digest}, Upload: d}, nil
		})
	}
	mcp.AddReceivingCustomMethod(s, wire.MethodAuthorizeDownload, func(_ context.Context, _ *mcp.ServerSession, p *wire.AuthorizeDownloadParams) (*wire.AuthorizeDownloadResult, error) {
		tok, _ := strings.CutPrefix(p.URI, uriPrefix)
		id, ok := open("file", tok, false)
		st.mu.Lock()
		_, found := st.files[id]
		st.mu.Unlock()
		if (!ok || !found) && !b.downloadUnknown {
			return nil, wire.InvalidFileError("no such file", wire.ErrorData{Reason: wire.ReasonNotFound})
		}
		d := wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: srv.URL + "/download/" + token("download", id)}
		if !b.noDownloadExpiry {
			d.ExpiresAt = time.Now().Add(10 * time.Minute)
		}
		return &wire.AuthorizeDownloadResult{File: st.fileValue(id), Download: d}, nil
	})

	// resolve checks the value of argument name: a data: URI as the
	// inline test server does, or a file URI of an uploaded file.
	resolve := func(req *mcp.CallToolRequest, name, v string) (*mcp.CallToolResult, error) {
		if strings.HasPrefix(v, "data:") {
			if name == "doc" && !b.inlineToUploadOnly {
				return refuse(req, name, "must be uploaded (transferModes upload)", "malformed", nil)
			}
			if msg, reason, payload := b.check(name, v); msg != "" {
				return refuse(req, name, msg, reason, payload)
			}
			return nil, nil
		}
		st.mu.Lock()
		once := b.recheckOnce && st.checked[v]
		st.mu.Unlock()
		if once {
			return nil, nil
		}
		f, ok := st.file(v, false)
		switch {
		case b.refuseUploads:
			return refuse(req, name, "is not taken here", "unauthorized", nil)
		case !ok && b.acceptUnknown && strings.HasPrefix(v, uriPrefix):
			return nil, nil
		case !ok:
			return refuse(req, name, "is not a file URI this server issued", "notFound", nil)
		case !b.noTypeRecheck && !slices.Contains(accepts[name], strings.ToLower(f.mt)):
			return refuse(req, name, "has a media type that accept does not allow", "mimeTypeNotAccepted", f.data)
		case !b.noSizeRecheck && len(f.data) > maxSizes[name]:
			return refuse(req, name, fmt.Sprintf("exceeds maxSize: %d bytes", len(f.data)), "maxSizeExceeded", f.data)
		case slices.Contains(accepts[name], strings.ToLower(f.mt)) && !sniffs(strings.ToLower(f.mt), f.data):
			return refuse(req, name, "fails the content check", "contentMismatch", f.data)
		}
		st.mu.Lock()
		st.checked[v] = true
		st.mu.Unlock()
		return nil, nil
	}
	fileTool := func(name string) mcp.ToolHandler {
		return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			json.Unmarshal(req.Params.Arguments, &args)
			v, _ := args[name].(string)
			if res, err := resolve(req, name, v); res != nil || err != nil {
				return res, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read it"}}}, nil
		}
	}
	s.AddTool(&mcp.Tool{Name: "doc", InputSchema: json.RawMessage(docTool)}, fileTool("doc"))
	s.AddTool(&mcp.Tool{Name: "text", InputSchema: json.RawMessage(textTool)}, fileTool("text"))
	s.AddTool(&mcp.Tool{Name: "export", InputSchema: json.RawMessage(exportTool), OutputSchema: json.RawMessage(exportOut)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Title string }
			json.Unmarshal(req.Params.Arguments, &args)
			id := st.newID()
			data := []byte(strings.Repeat("report "+args.Title+"\n", 8))
			st.mu.Lock()
			st.files[id] = storedFile{name: "report.txt", mt: "text/plain", data: data}
			st.mu.Unlock()
			fv := st.fileValue(id)
			var block mcp.Content = &mcp.ResourceLink{URI: fv.URI, Name: fv.Name, MIMEType: fv.MimeType, Size: fv.Size}
			if downloads(req) || b.fileBlockToAll {
				block = &fileContent{TextContent: &mcp.TextContent{}, file: fv}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{block}, StructuredContent: map[string]any{"report": fv}}, nil
		})
	return resolve
}

// downloads reports whether the client of req declared files.download:
// in the request's _meta capabilities (2026-07-28) or its session's
// initialize capabilities, at the top level or under experimental.
func downloads(req *mcp.CallToolRequest) bool {
	var caps []any
	if req.Params != nil {
		caps = append(caps, req.Params.Meta[mcp.MetaKeyClientCapabilities])
	}
	if ip := req.Session.InitializeParams(); ip != nil && ip.Capabilities != nil {
		caps = append(caps, map[string]any{"experimental": ip.Capabilities.Experimental})
	}
	for _, c := range caps {
		b, _ := json.Marshal(c)
		var v struct {
			Files        *struct{ Download bool } `json:"files"`
			Experimental struct {
				Files *struct{ Download bool } `json:"files"`
			} `json:"experimental"`
		}
		json.Unmarshal(b, &v)
		if v.Files != nil && v.Files.Download || v.Experimental.Files != nil && v.Experimental.Files.Download {
			return true
		}
	}
	return false
}

// fileContent is a {"type": "file"} content block: the SDK has no type for
// it, so it borrows TextContent's place in the interface and writes its
// own JSON.
type fileContent struct {
	*mcp.TextContent
	file wire.FileValue
}

func (c *fileContent) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"type": "file", "file": c.file})
}
