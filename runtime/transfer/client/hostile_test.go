package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// The secrets a hostile server hands out, and the file's bytes: no error
// may hold them.
const (
	secretToken = "tok_SECRET_6f1d2c3b4a5e"
	secretSig   = "sig_SECRET_9a8b7c6d5e4f"
	fileText    = "FILE-BYTES-do-not-leak-"
)

// A hostile is an MCP server whose files/authorizeUpload answers what
// the test says, and an https upload endpoint that does what the test
// says. By default both are correct: the answer echoes the declaration
// and describes a multipart POST to the endpoint, which takes the body
// and answers 201 with its size and digest.
type hostile struct {
	mcpURL   string
	endpoint *httptest.Server
	client   *http.Client // trusts endpoint's certificate

	mu     sync.Mutex
	answer func(p *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult)
	handle http.HandlerFunc
	got    []*received
}

// received is a request the endpoint got.
type received struct {
	method        string
	header        http.Header
	contentLength int64
	body          []byte
	parts         []string // the names of the multipart parts, in order
	file          []byte   // the file's bytes, from the file part or the body
}

func newHostile(t *testing.T) *hostile {
	t.Helper()
	h := &hostile{}
	h.endpoint = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		handle := h.handle
		h.mu.Unlock()
		if handle == nil {
			handle = h.take
		}
		handle(w, r)
	}))
	t.Cleanup(h.endpoint.Close)
	h.client = h.endpoint.Client()

	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	err := mcp.AddReceivingCustomMethod(s, transfer.MethodAuthorizeUpload, func(_ context.Context, _ *mcp.ServerSession, p *transfer.AuthorizeUploadParams) (*transfer.AuthorizeUploadResult, error) {
		res := &transfer.AuthorizeUploadResult{
			File: transfer.FileValue{URI: "mcp-file://hostile/file_1", Name: p.Name, MimeType: p.MimeType, Size: p.Size, Digest: p.Digest},
			Upload: transfer.FileTransferDescriptor{
				Transport: "https", Method: "POST", URL: h.endpoint.URL + "/upload/" + secretSig + "?X-Sig=" + secretSig,
				Headers:   map[string]string{"Content-Type": "multipart/form-data"},
				Multipart: &transfer.Multipart{FileField: "file", Fields: map[string]string{"token": secretToken, "a-first": "1", "z-last": "2"}},
				ExpiresAt: time.Now().Add(time.Hour).UTC(),
			},
		}
		h.mu.Lock()
		answer := h.answer
		h.mu.Unlock()
		if answer != nil {
			answer(p, res)
		}
		return res, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	h.mcpURL = ts.URL
	return h
}

// take is the correct endpoint: it records the request and answers 201
// with the size and digest of the file it got.
func (h *hostile) take(w http.ResponseWriter, r *http.Request) {
	rc := h.record(r)
	d := transfer.SHA256Digest(sha256.Sum256(rc.file))
	writeJSON(w, http.StatusCreated, map[string]any{"size": len(rc.file), "digest": d})
}

// record reads and records the request.
func (h *hostile) record(r *http.Request) *received {
	b, _ := io.ReadAll(r.Body)
	rc := &received{method: r.Method, header: r.Header.Clone(), contentLength: r.ContentLength, body: b, file: b}
	if mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		rc.file = nil
		mr := multipart.NewReader(bytes.NewReader(b), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			rc.parts = append(rc.parts, p.FormName())
			pb, _ := io.ReadAll(p)
			if p.FormName() == "file" {
				rc.file = pb
			}
		}
	}
	h.mu.Lock()
	h.got = append(h.got, rc)
	h.mu.Unlock()
	return rc
}

func (h *hostile) set(answer func(*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult), handle http.HandlerFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.answer, h.handle, h.got = answer, handle, nil
}

func (h *hostile) received() []*received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// fileBytes is a file that says what it is, so that a leak shows.
func fileBytes(n int) []byte {
	return bytes.Repeat([]byte(fileText), n/len(fileText)+1)[:n]
}

// TestHostileServer: every answer that breaks SEP-2631 or contradicts
// the declaration is refused, with an error that says so and holds
// neither the token, the URL's signature, nor the file's bytes.
func TestHostileServer(t *testing.T) {
	h := newHostile(t)
	cs := connect(t, h.mcpURL)
	b := fileBytes(100 << 10)
	other := transfer.SHA256Digest(sha256.Sum256([]byte("other")))
	size := func(n int64) *int64 { return &n }
	type answer = func(*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult)
	tests := []struct {
		name     string
		stream   bool // upload from a non-seekable reader (no digest declared)
		opts     client.Options
		answer   answer
		handle   http.HandlerFunc
		want     string
		noUpload bool // the endpoint must get no request
	}{
		// The file.
		{name: "no uri", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) { r.File.URI = "" },
			want: "files/authorizeUpload answered no file.uri", noUpload: true},
		{name: "data uri", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.File.URI = "data:text/plain;base64," + secretToken
		}, want: `a file.uri of scheme "data" (want mcp-file:)`, noUpload: true},
		{name: "other size", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) { r.File.Size = size(1) },
			want: "answered file.size 1, not the declared 102400", noUpload: true},
		{name: "other digest", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) { r.File.Digest = &other },
			want: "answered file.digest \"" + other.Value[:24] + "\"…, not the declared", noUpload: true},
		{name: "other digest algorithm", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.File.Digest = &transfer.FileDigest{Algorithm: "md5", Value: "x"}
		}, want: "a file.digest that is not the declared one: digest algorithm \"md5\"", noUpload: true},
		{name: "other media type", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.File.MimeType = "text/html"
		},
			want: `answered file.mimeType "text/html", not the declared "application/octet-stream"`, noUpload: true},
		{name: "announced digest not of the bytes", stream: true, answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) { r.File.Digest = &other },
			want: "answered file.digest " + other.Value + ", but the bytes sent have"},

		// The descriptor.
		{name: "transport", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) { r.Upload.Transport = "ftp" },
			want: `answered upload.transport "ftp" (want "https")`, noUpload: true},
		{name: "download descriptor", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) { r.Upload.Method = "GET" },
			want: `answered upload.method "GET", a download (want POST or PUT)`, noUpload: true},
		{name: "method", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) { r.Upload.Method = "DELETE" },
			want: `answered upload.method "DELETE" (want POST or PUT)`, noUpload: true},
		{name: "no file field", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Multipart.FileField = ""
		},
			want: "upload.multipart without a fileField", noUpload: true},
		{name: "field is file field", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Multipart.Fields["file"] = "x"
		}, want: `a field "file", which is the fileField`, noUpload: true},
		{name: "field name injects a header", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Multipart.Fields["x\"\r\nX-Evil: 1"] = "x"
		}, want: "which is not a form field name", noUpload: true},
		{name: "plain http", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.URL = strings.Replace(r.Upload.URL, "https:", "http:", 1)
		}, want: "an upload.url of http://127.0.0.1:", noUpload: true},
		{name: "relative url", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.URL = "/upload?t=" + secretToken
		},
			want: "an upload.url that is not an absolute URL", noUpload: true},
		{name: "file url", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.URL = "file:///etc/passwd"
		},
			want: "an upload.url that is not an absolute URL", noUpload: true},
		{name: "ftp url", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.URL = "ftp://example.com/x"
		},
			want: `an upload.url of scheme "ftp" (want https)`, noUpload: true},
		{name: "user info", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.URL = strings.Replace(r.Upload.URL, "https://", "https://u:"+secretToken+"@", 1)
		}, want: "with user info", noUpload: true},
		{name: "expired", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.ExpiresAt = time.Date(2026, 4, 20, 18, 30, 0, 0, time.UTC)
		}, want: "an upload descriptor that expired at 2026-04-20T18:30:00Z", noUpload: true},
		{name: "transfer-encoding", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["transfer-encoding"] = "chunked"
		}, want: `upload.headers with "Transfer-Encoding", which the client sets itself`, noUpload: true},
		{name: "connection", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["Connection"] = "close"
		}, want: `upload.headers with "Connection", which the client sets itself`, noUpload: true},
		{name: "host", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["Host"] = "internal.example"
		}, want: "upload.headers with a Host other than upload.url's", noUpload: true},
		{name: "content-length", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["Content-Length"] = "5"
		}, want: `upload.headers with Content-Length "5", but the body is`, noUpload: true},
		{name: "header value injects a header", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["Authorization"] = "Bearer " + secretToken + "\r\nX-Evil: 1"
		}, want: `a value of "Authorization" that is not a header value`, noUpload: true},
		{name: "header twice", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["content-type"] = "multipart/form-data"
		}, want: `upload.headers with "Content-Type" twice`, noUpload: true},
		{name: "multipart with another content type", answer: func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["Content-Type"] = "application/json"
		}, want: `upload.headers Content-Type "application/json" (want multipart/form-data)`, noUpload: true},

		// The endpoint's answer.
		{name: "redirect", handle: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			http.Redirect(w, r, "https://elsewhere.example/x?sig="+secretSig, http.StatusTemporaryRedirect)
		}, want: "answered 307 Temporary Redirect, a redirect to https://elsewhere.example/…, which was not followed"},
		{name: "302 with a client that follows redirects", opts: client.Options{HTTPClient: &http.Client{}}, handle: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, want: "answered 302 Found, a redirect to https://127.0.0.1:"},
		{name: "403", handle: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "token " + secretToken + " expired, sig " + secretSig})
		}, want: `the upload endpoint refused the upload: 403 Forbidden: "token [redacted] expired, sig [redacted]"`},
		{name: "S3 error", handle: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message><Signature>`+secretSig+`</Signature></Error>`)
		}, want: `403 Forbidden: "SignatureDoesNotMatch: The request signature we calculated does not match"`},
		{name: "500 echoing the body", handle: func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(b)
		}, want: "the upload endpoint refused the upload: 500 Internal Server Error"},
		{name: "receipt size", handle: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			writeJSON(w, http.StatusCreated, map[string]any{"size": 7})
		}, want: "the upload endpoint answered size 7, but 102400 bytes were sent"},
		{name: "receipt digest", stream: true, handle: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			writeJSON(w, http.StatusCreated, map[string]any{"digest": other})
		}, want: "the upload endpoint answered digest \"" + other.Value[:24] + "\"…, but the bytes sent have"},
		{name: "receipt not JSON", handle: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, "[1,2")
		}, want: "answered 201 Created with JSON that is not an upload receipt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.set(tt.answer, tt.handle)
			o := tt.opts
			if o.HTTPClient == nil {
				o.HTTPClient = h.client
			} else {
				o.HTTPClient.Transport = h.client.Transport
			}
			f := client.File{Name: "f.bin", MediaType: "application/octet-stream", Size: int64(len(b)), Body: bytes.NewReader(b)}
			if tt.stream {
				f.Body = onlyReader{f.Body}
			}
			_, err := client.Upload(t.Context(), cs, f, &o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Upload = %v, want an error saying %q", err, tt.want)
			}
			var se *client.StatusError
			if !errors.Is(err, client.ErrBadAnswer) && !errors.As(err, &se) {
				t.Errorf("error %v is neither ErrBadAnswer nor a *StatusError", err)
			}
			for _, secret := range []string{secretToken, secretSig, fileText[:12]} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q holds %q", err, secret)
				}
			}
			if got := h.received(); tt.noUpload && len(got) > 0 {
				t.Errorf("the endpoint got %d requests, want none", len(got))
			}
		})
	}
}

// TestHostileStatusError: a refusal is a *StatusError with the status,
// the reason and the machine code, for a caller that retries or reports;
// a "code" that could carry a sentence or a secret is dropped.
func TestHostileStatusError(t *testing.T) {
	h := newHostile(t)
	cs := connect(t, h.mcpURL)
	for _, tc := range []struct{ sent, want string }{
		{"alreadyUsed", "alreadyUsed"},
		{"", ""},
		{"not a code: it has spaces", ""},
		{strings.Repeat("a", 65), ""},
	} {
		h.set(nil, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			writeJSON(w, http.StatusConflict, map[string]string{"error": "upload token already used", "reason": tc.sent})
		})
		_, err := client.Upload(t.Context(), cs, client.File{MediaType: "text/plain", Size: 2, Body: strings.NewReader("hi")}, &client.Options{HTTPClient: h.client})
		var se *client.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusConflict || se.Reason != "upload token already used" || se.Code != tc.want {
			t.Errorf("Upload with reason %q = %#v, want a *StatusError 409 with the reason and code %q", tc.sent, err, tc.want)
		}
	}
}

// TestHostileEarlyAnswer: a 2xx before the whole file was sent is no
// success.
func TestHostileEarlyAnswer(t *testing.T) {
	h := newHostile(t)
	cs := connect(t, h.mcpURL)
	release := make(chan struct{})
	h.set(nil, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{})
		w.(http.Flusher).Flush()
		<-release // hold the connection, reading nothing
	})
	defer close(release)
	const size = 64 << 20 // more than the connection's buffers
	_, err := client.Upload(t.Context(), cs, client.File{MediaType: "application/octet-stream", Size: size, Body: onlyReader{io.LimitReader(zeros{}, size)}}, &client.Options{HTTPClient: h.client})
	if !errors.Is(err, client.ErrBadAnswer) || !strings.Contains(err.Error(), "answered 201 Created before the whole file was sent") {
		t.Errorf("Upload = %v, want the early answer refused", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestHostileSendsAsDescribed: what reaches the endpoint is what the
// descriptor says. A multipart POST has its fields in name order before
// the file part, our boundary in its Content-Type (not the descriptor's
// bare multipart/form-data), an exact Content-Length, and the
// descriptor's other headers; a PUT has the bytes as its body, with the
// signed Content-Length and Content-Type of the descriptor.
func TestHostileSendsAsDescribed(t *testing.T) {
	h := newHostile(t)
	cs := connect(t, h.mcpURL)
	o := &client.Options{HTTPClient: h.client}
	b := fileBytes(300 << 10)

	t.Run("multipart", func(t *testing.T) {
		h.set(func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Headers["X-Extra"] = "yes"
		}, nil)
		fv, err := client.Upload(t.Context(), cs, client.File{Name: "a\"b\r\n.txt", MediaType: "text/plain", Size: int64(len(b)), Body: bytes.NewReader(b)}, o)
		if err != nil {
			t.Fatal(err)
		}
		got := h.received()
		if len(got) != 1 {
			t.Fatalf("the endpoint got %d requests", len(got))
		}
		rc := got[0]
		if rc.method != "POST" || rc.contentLength != int64(len(rc.body)) || rc.header.Get("X-Extra") != "yes" || !strings.HasPrefix(rc.header.Get("Content-Type"), "multipart/form-data; boundary=") {
			t.Errorf("request %s, Content-Length %d of a %d-byte body, headers %v", rc.method, rc.contentLength, len(rc.body), rc.header)
		}
		if want := []string{"a-first", "token", "z-last", "file"}; strings.Join(rc.parts, ",") != strings.Join(want, ",") {
			t.Errorf("parts %v, want %v", rc.parts, want)
		}
		if !bytes.Equal(rc.file, b) {
			t.Errorf("the file part has %d bytes, not the file's %d", len(rc.file), len(b))
		}
		if !bytes.Contains(rc.body, []byte(`filename="a\"b.txt"`)) {
			t.Errorf("the file part's header does not carry the escaped name")
		}
		wantFile(t, fv, "text/plain", b)
	})

	t.Run("put", func(t *testing.T) {
		h.set(func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Method, r.Upload.Multipart = "PUT", nil
			r.Upload.Headers = map[string]string{
				"Content-Length":             strconv.Itoa(len(b)),
				"content-type":               "text/plain",
				"If-None-Match":              "*",
				"X-Amz-Meta-Mcpfile-Name":    "f",
				"Host":                       strings.TrimPrefix(h.endpoint.URL, "https://"),
				"X-Amz-Checksum-Sha256-Fake": "x",
			}
		}, func(w http.ResponseWriter, r *http.Request) {
			h.record(r)
			w.WriteHeader(http.StatusOK) // as S3: no body
		})
		fv, err := client.Upload(t.Context(), cs, client.File{MediaType: "text/plain", Size: int64(len(b)), Body: onlyReader{bytes.NewReader(b)}}, o)
		if err != nil {
			t.Fatal(err)
		}
		rc := h.received()[0]
		if rc.method != "PUT" || rc.contentLength != int64(len(b)) || !bytes.Equal(rc.body, b) || rc.header.Get("Content-Type") != "text/plain" || rc.header.Get("If-None-Match") != "*" {
			t.Errorf("request %s, Content-Length %d, %d bytes, headers %v", rc.method, rc.contentLength, len(rc.body), rc.header)
		}
		wantFile(t, fv, "text/plain", b) // the digest computed while sending
	})

	t.Run("empty put", func(t *testing.T) {
		h.set(func(_ *transfer.AuthorizeUploadParams, r *transfer.AuthorizeUploadResult) {
			r.Upload.Method, r.Upload.Multipart, r.Upload.Headers = "PUT", nil, nil
		}, nil)
		fv, err := client.Upload(t.Context(), cs, client.File{MediaType: "text/plain"}, o)
		if err != nil {
			t.Fatal(err)
		}
		rc := h.received()[0]
		if rc.contentLength != 0 || len(rc.body) != 0 || rc.header.Get("Transfer-Encoding") != "" {
			t.Errorf("request Content-Length %d, %d bytes, headers %v", rc.contentLength, len(rc.body), rc.header)
		}
		wantFile(t, fv, "text/plain", nil)
	})
}
