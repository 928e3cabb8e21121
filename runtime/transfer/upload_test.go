package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

var now = time.Date(2026, 4, 20, 18, 0, 0, 0, time.UTC)

// data is the file of most tests: text, longer than content.SniffLen.
var data = bytes.Repeat([]byte("hello, world\n"), 300)

const fileID = "file_TEST0123456789"

// A fixture is an upload handler over one store.
type fixture struct {
	store   store.Store
	tmpDir  string // diskstore's tmp/, "" for memstore
	objDir  string // diskstore's objects/
	keys    *token.Keyring
	handler http.Handler
}

func key(t testing.TB, b byte) token.Key {
	t.Helper()
	k, err := token.NewKey("", bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// stores runs f once per store.
func stores(t *testing.T, f func(t *testing.T, fx *fixture)) {
	for _, name := range []string{"memstore", "diskstore"} {
		t.Run(name, func(t *testing.T) { f(t, newFixture(t, name)) })
	}
}

func newFixture(t testing.TB, kind string) *fixture {
	t.Helper()
	fx := &fixture{}
	clock := func() time.Time { return now }
	switch kind {
	case "memstore":
		fx.store = memstore.New(&memstore.Options{Now: clock})
	case "diskstore":
		dir := t.TempDir()
		s, err := diskstore.New(dir, &diskstore.Options{Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		fx.store, fx.tmpDir, fx.objDir = s, filepath.Join(dir, "tmp"), filepath.Join(dir, "objects")
	}
	keys, err := token.NewKeyring(key(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	fx.keys = keys
	fx.handler = transfer.UploadHandler(transfer.UploadOptions{
		Store: fx.store,
		Keys:  keys,
		Owner: func(r *http.Request) (string, bool) {
			o := r.Header.Get("X-Test-Owner")
			return o, o != ""
		},
		Now:      clock,
		ErrorLog: log.New(io.Discard, "", 0),
	})
	return fx
}

// claims returns the claims of an upload of body as text/plain.
func claims(body []byte) token.Claims {
	sum := sha256.Sum256(body)
	return token.Claims{
		Purpose:   token.PurposeUpload,
		FileID:    fileID,
		Size:      int64(len(body)),
		SHA256:    sum[:],
		MediaType: "text/plain; charset=utf-8",
		Expires:   now.Add(time.Hour),
	}
}

func sign(t testing.TB, keys *token.Keyring, c token.Claims) string {
	t.Helper()
	tok, err := keys.Sign(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// part is one part of a multipart body.
type part struct{ name, value string }

func multipartBody(t testing.TB, parts ...part) (body []byte, contentType string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.name == transfer.FormFieldFile {
			w, err = mw.CreateFormFile(p.name, "report.txt")
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p.value)
	}
	mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

func post(t testing.TB, tok string, file []byte) *http.Request {
	body, ct := multipartBody(t, part{"token", tok}, part{"file", string(file)})
	r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
	r.Header.Set("Content-Type", ct)
	return r
}

// put returns a PUT of body; with chunked, the length is not sent.
func put(tok string, body io.Reader, chunked bool) *http.Request {
	r := httptest.NewRequest(http.MethodPut, "/upload", body)
	if chunked {
		r.ContentLength = -1
	}
	if tok != "" {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// wantCreated checks a 201 for body and that the store holds it.
func wantCreated(t *testing.T, fx *fixture, w *httptest.ResponseRecorder, body []byte) {
	t.Helper()
	if w.Code != http.StatusCreated {
		t.Fatalf("status %d %s, want 201", w.Code, w.Body)
	}
	var got struct {
		Size   int64
		Digest struct{ Algorithm, Value string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	if want := base64.RawURLEncoding.EncodeToString(sum[:]); got.Size != int64(len(body)) || got.Digest.Algorithm != "sha-256" || got.Digest.Value != want {
		t.Errorf("response %s, want size %d and sha-256 %s", w.Body, len(body), want)
	}
	rd, err := fx.store.Open(context.Background(), fileID)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	stored, _ := io.ReadAll(rd)
	if !bytes.Equal(stored, body) {
		t.Errorf("store holds %d bytes, want the %d uploaded", len(stored), len(body))
	}
}

// wantNothingLeft checks that the store has no object and no temporary
// file, and that the ID is still free: the genuine upload succeeds.
func wantNothingLeft(t *testing.T, fx *fixture) {
	t.Helper()
	if _, err := fx.store.Stat(context.Background(), fileID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat after a rejection: %v, want ErrNotFound", err)
	}
	if fx.tmpDir != "" {
		for _, dir := range []string{fx.tmpDir, fx.objDir} {
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%s holds %d entries after a rejection, want none", filepath.Base(dir), len(ents))
			}
		}
	}
	w := serve(fx.handler, put(sign(t, fx.keys, claims(data)), bytes.NewReader(data), false))
	wantCreated(t, fx, w, data)
}

// wantRejected checks status and reason, and that the response holds no
// token and no file bytes.
func wantRejected(t *testing.T, w *httptest.ResponseRecorder, status int, reason, tok string) {
	t.Helper()
	var got struct{ Error string }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("status %d, body %q: %v", w.Code, w.Body, err)
	}
	if w.Code != status || !strings.Contains(got.Error, reason) {
		t.Errorf("got %d %q, want %d and a reason containing %q", w.Code, got.Error, status, reason)
	}
	if tok != "" && strings.Contains(w.Body.String(), tok) {
		t.Errorf("response %q holds the token", w.Body)
	}
	if strings.Contains(w.Body.String(), "hello") {
		t.Errorf("response %q holds file bytes", w.Body)
	}
	if h := w.Header().Get("Location"); h != "" {
		t.Errorf("response redirects to %q", h)
	}
}

// wantCode checks the machine code of a refusal: the "reason" of its
// JSON body.
func wantCode(t *testing.T, w *httptest.ResponseRecorder, code string) {
	t.Helper()
	var got struct{ Reason string }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got.Reason != code {
		t.Errorf("status %d, body %q: reason %q (%v), want %q", w.Code, w.Body, got.Reason, err, code)
	}
}

func TestUploadCreated(t *testing.T) {
	t.Run("POST", func(t *testing.T) {
		stores(t, func(t *testing.T, fx *fixture) {
			wantCreated(t, fx, serve(fx.handler, post(t, sign(t, fx.keys, claims(data)), data)), data)
		})
	})
	t.Run("PUT", func(t *testing.T) {
		stores(t, func(t *testing.T, fx *fixture) {
			wantCreated(t, fx, serve(fx.handler, put(sign(t, fx.keys, claims(data)), bytes.NewReader(data), true)), data)
			m, err := fx.store.Stat(context.Background(), fileID)
			if err != nil {
				t.Fatal(err)
			}
			if m.MediaType != "text/plain; charset=utf-8" || !m.Expires.Equal(now.Add(transfer.DefaultUploadTTL)) {
				t.Errorf("Meta %+v, want the declared media type and expiry now+DefaultUploadTTL", m)
			}
		})
	})
}

func TestUploadWithoutDigestOrType(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		c := claims(data)
		c.SHA256, c.MediaType, c.Owner = nil, "", "alice"
		r := post(t, sign(t, fx.keys, c), data)
		r.Header.Set("X-Test-Owner", "alice")
		wantCreated(t, fx, serve(fx.handler, r), data) // the digest comes from the store
	})
}

// TestUploadTokenIsTheCapability: a request that carries no principal
// (the endpoint is not behind auth) uploads with a token issued to one,
// and the file is that principal's.
func TestUploadTokenIsTheCapability(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		c := claims(data)
		c.Owner = "bob"
		wantCreated(t, fx, serve(fx.handler, put(sign(t, fx.keys, c), bytes.NewReader(data), true)), data)
		m, err := fx.store.Stat(context.Background(), fileID)
		if err != nil || m.Owner != "bob" {
			t.Errorf("Stat = %+v, %v; want the file of bob", m, err)
		}
	})
}

func TestUploadOtherFieldsIgnored(t *testing.T) {
	fx := newFixture(t, "memstore")
	body, ct := multipartBody(t, part{"name", "report.txt"}, part{"token", sign(t, fx.keys, claims(data))}, part{"x", "y"}, part{"file", string(data)}, part{"after", "z"})
	r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
	r.Header.Set("Content-Type", ct)
	wantCreated(t, fx, serve(fx.handler, r), data)
}

func TestUploadSmallFile(t *testing.T) {
	// Shorter than content.SniffLen: sniffed at the end.
	fx := newFixture(t, "diskstore")
	small := []byte("hi\n")
	wantCreated(t, fx, serve(fx.handler, put(sign(t, fx.keys, claims(small)), bytes.NewReader(small), true)), small)
}

// A countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestUploadOversizeStopsAtExtraByte(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		tok := sign(t, fx.keys, claims(data))
		body := &countingReader{r: io.MultiReader(bytes.NewReader(data), strings.NewReader("x"), neverEnding('y'))}
		w := serve(fx.handler, put(tok, body, true))
		wantRejected(t, w, http.StatusRequestEntityTooLarge, "larger than the declared size", tok)
		if want := int64(len(data)) + 1; body.n != want {
			t.Errorf("handler read %d bytes, want exactly %d (the declared size and one)", body.n, want)
		}
		wantNothingLeft(t, fx)
	})
}

// neverEnding is an endless body.
type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestUploadOversizeMultipartIsBounded(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		tok := sign(t, fx.keys, claims(data))
		body, ct := multipartBody(t, part{"token", tok}, part{"file", string(data) + strings.Repeat("x", 1<<20)})
		cr := &countingReader{r: bytes.NewReader(body)}
		r := httptest.NewRequest(http.MethodPost, "/upload", cr)
		r.Header.Set("Content-Type", ct)
		wantRejected(t, serve(fx.handler, r), http.StatusRequestEntityTooLarge, "larger than the declared size", tok)
		// The multipart reader reads ahead by at most its 4 KiB buffer.
		if limit := int64(len(data)) + 2*4096 + 1024; cr.n > limit {
			t.Errorf("handler read %d bytes of a %d-byte file, want at most %d", cr.n, len(data), limit)
		}
		wantNothingLeft(t, fx)
	})
}

func TestUploadRejections(t *testing.T) {
	other, _ := token.NewKeyring(key(t, 2))
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	png := claims(data)
	png.MediaType = "image/png"
	tampered := data[:len(data):len(data)]
	tampered = append(append([]byte(nil), tampered[:100]...), append([]byte{'H'}, tampered[101:]...)...)

	tests := []struct {
		name   string
		req    func(t *testing.T, fx *fixture) (*http.Request, string) // the request and its token
		status int
		reason string
		code   string // the JSON body's "reason"
	}{
		{"oversize Content-Length", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			return put(tok, bytes.NewReader(append(data, 'x')), false), tok
		}, 413, "Content-Length 3901 is larger than the declared size 3900", transfer.ReasonMaxSizeExceeded},
		{"oversize POST", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			return post(t, tok, append(data, 'x')), tok
		}, 413, "larger than the declared size 3900", transfer.ReasonMaxSizeExceeded},
		{"undersize PUT", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			return put(tok, bytes.NewReader(data[:len(data)-1]), true), tok
		}, 400, "body ended after 3899 of the declared 3900 bytes", transfer.ReasonIncomplete},
		{"undersize Content-Length", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			return put(tok, bytes.NewReader(data[:10]), false), tok
		}, 400, "Content-Length 10 is smaller than the declared size 3900", transfer.ReasonIncomplete},
		{"undersize POST", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			return post(t, tok, data[:len(data)-1]), tok
		}, 400, "body ended after 3899 of the declared 3900 bytes", transfer.ReasonIncomplete},
		{"digest mismatch", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			return post(t, tok, tampered), tok
		}, 422, "digest mismatch", transfer.ReasonDigestMismatch},
		{"sniff mismatch", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, png)
			return put(tok, bytes.NewReader(data), false), tok
		}, 415, "content is text, not the declared image/png", transfer.ReasonContentMismatch},
		{"tampered token", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			bad := flip(tok, len(tok)-10)
			return put(bad, bytes.NewReader(data), false), bad
		}, 403, "bad signature", transfer.ReasonUnauthorized},
		{"unknown key", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, other, claims(data))
			return post(t, tok, data), tok
		}, 403, "unknown signing key", transfer.ReasonUnauthorized},
		{"expired", func(t *testing.T, fx *fixture) (*http.Request, string) {
			c := claims(data)
			c.Expires = now.Add(-time.Second)
			tok := sign(t, fx.keys, c)
			return put(tok, bytes.NewReader(data), false), tok
		}, 403, "expired", transfer.ReasonExpired},
		{"expiring now", func(t *testing.T, fx *fixture) (*http.Request, string) {
			c := claims(data)
			c.Expires = now
			tok := sign(t, fx.keys, c)
			return put(tok, bytes.NewReader(data), false), tok
		}, 403, "expired", transfer.ReasonExpired},
		{"foreign owner", func(t *testing.T, fx *fixture) (*http.Request, string) {
			c := claims(data)
			c.Owner = "bob"
			tok := sign(t, fx.keys, c)
			r := put(tok, bytes.NewReader(data), false)
			r.Header.Set("X-Test-Owner", "alice")
			return r, tok
		}, 403, "another owner", transfer.ReasonUnauthorized},
		{"download token", func(t *testing.T, fx *fixture) (*http.Request, string) {
			c := claims(data)
			c.Purpose = token.PurposeDownload
			tok := sign(t, fx.keys, c)
			return post(t, tok, data), tok
		}, 403, "wrong purpose", transfer.ReasonUnauthorized},
		{"malformed token", func(t *testing.T, fx *fixture) (*http.Request, string) {
			return put("not-a-token", bytes.NewReader(data), false), "not-a-token"
		}, 400, "malformed", transfer.ReasonMalformed},
		{"no token PUT", func(t *testing.T, fx *fixture) (*http.Request, string) {
			return put("", bytes.NewReader(data), false), ""
		}, 401, "no token", transfer.ReasonNoToken},
		{"basic auth PUT", func(t *testing.T, fx *fixture) (*http.Request, string) {
			r := put("", bytes.NewReader(data), false)
			r.SetBasicAuth("a", "b")
			return r, ""
		}, 401, "no token", transfer.ReasonNoToken},
		{"no token POST", func(t *testing.T, fx *fixture) (*http.Request, string) {
			body, ct := multipartBody(t, part{"file", string(data)})
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r, ""
		}, 400, `no token field "token" before the file field "file"`, transfer.ReasonMalformed},
		{"token after file", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			body, ct := multipartBody(t, part{"file", string(data)}, part{"token", tok})
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r, tok
		}, 400, "no token field", transfer.ReasonMalformed},
		{"two tokens", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			body, ct := multipartBody(t, part{"token", tok}, part{"token", tok}, part{"file", string(data)})
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r, tok
		}, 400, "more than one token field", transfer.ReasonMalformed},
		{"token field too long", func(t *testing.T, fx *fixture) (*http.Request, string) {
			body, ct := multipartBody(t, part{"token", strings.Repeat("a", token.MaxTokenLen+1)}, part{"file", string(data)})
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r, ""
		}, 400, "token field longer than 4096 bytes", transfer.ReasonMalformed},
		{"no file part", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			body, ct := multipartBody(t, part{"token", tok})
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r, tok
		}, 400, `no file field "file"`, transfer.ReasonMalformed},
		{"too many parts", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			parts := []part{{"token", tok}}
			for i := range transfer.DefaultMaxParts {
				parts = append(parts, part{fmt.Sprint("f", i), "v"})
			}
			body, ct := multipartBody(t, append(parts, part{"file", string(data)})...)
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r, tok
		}, 400, `no file field "file" among the first 8 parts`, transfer.ReasonMalformed},
		{"long field before file", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			body, ct := multipartBody(t, part{"token", tok}, part{"pad", strings.Repeat("p", 1<<20)}, part{"file", string(data)})
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r, tok
		}, 400, "parts before the file field are longer than 65536 bytes", transfer.ReasonMalformed},
		{"huge part header", func(t *testing.T, fx *fixture) (*http.Request, string) {
			tok := sign(t, fx.keys, claims(data))
			b := "--B\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n" + tok + "\r\n--B\r\nX-Pad: " + strings.Repeat("p", 1<<20) + "\r\n"
			r := httptest.NewRequest(http.MethodPost, "/upload", strings.NewReader(b))
			r.Header.Set("Content-Type", "multipart/form-data; boundary=B")
			return r, tok
		}, 400, "longer than 65536 bytes", transfer.ReasonMalformed},
		{"malformed multipart", func(t *testing.T, fx *fixture) (*http.Request, string) {
			r := httptest.NewRequest(http.MethodPost, "/upload", strings.NewReader("garbage"))
			r.Header.Set("Content-Type", "multipart/form-data; boundary=B")
			return r, ""
		}, 400, "malformed multipart body", transfer.ReasonMalformed},
		{"not multipart", func(t *testing.T, fx *fixture) (*http.Request, string) {
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(data))
			r.Header.Set("Content-Type", "text/plain")
			return r, ""
		}, 415, "multipart/form-data", transfer.ReasonUnsupportedBody},
		{"no boundary", func(t *testing.T, fx *fixture) (*http.Request, string) {
			r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(data))
			r.Header.Set("Content-Type", "multipart/form-data")
			return r, ""
		}, 400, "without a boundary", transfer.ReasonMalformed},
		{"GET", func(t *testing.T, fx *fixture) (*http.Request, string) {
			return httptest.NewRequest(http.MethodGet, "/upload", nil), ""
		}, 405, `method "GET" not allowed`, transfer.ReasonMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stores(t, func(t *testing.T, fx *fixture) {
				r, tok := tt.req(t, fx)
				w := serve(fx.handler, r)
				wantRejected(t, w, tt.status, tt.reason, tok)
				wantCode(t, w, tt.code)
				switch tt.status {
				case 405:
					if got := w.Header().Get("Allow"); got != "POST, PUT" {
						t.Errorf("Allow: %q, want %q", got, "POST, PUT")
					}
				case 401:
					if got := w.Header().Get("WWW-Authenticate"); got != "Bearer" {
						t.Errorf("WWW-Authenticate: %q, want Bearer", got)
					}
				}
				wantNothingLeft(t, fx)
			})
		})
	}
}

func TestUploadReplay(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		tok := sign(t, fx.keys, claims(data))
		wantCreated(t, fx, serve(fx.handler, post(t, tok, data)), data)
		for _, r := range []*http.Request{post(t, tok, data), put(tok, bytes.NewReader(data), false)} {
			w := serve(fx.handler, r)
			wantRejected(t, w, http.StatusConflict, "already used", tok)
			wantCode(t, w, transfer.ReasonAlreadyUsed)
		}
		if _, err := fx.store.Stat(context.Background(), fileID); err != nil {
			t.Errorf("the first upload is gone after a replay: %v", err)
		}
	})
}

// countServed wraps h to send on done when each request has been served.
func countServed(h http.Handler, done chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		h.ServeHTTP(w, r)
	})
}

func TestUploadClientStopsMidway(t *testing.T) {
	for _, method := range []string{"PUT", "POST"} {
		t.Run(method, func(t *testing.T) {
			stores(t, func(t *testing.T, fx *fixture) {
				done := make(chan struct{}, 1)
				srv := httptest.NewServer(countServed(fx.handler, done))
				defer srv.Close()
				tok := sign(t, fx.keys, claims(data))

				var head, body string
				if method == "PUT" {
					body = string(data)
					head = "PUT /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok + "\r\n"
				} else {
					b, ct := multipartBody(t, part{"token", tok}, part{"file", string(data)})
					body = string(b)
					head = "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: " + ct + "\r\n"
				}
				conn, err := net.Dial("tcp", srv.Listener.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n%s", head, len(body), body[:len(body)-len(data)/2])
				time.Sleep(20 * time.Millisecond) // let the handler start copying
				conn.Close()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatal("handler still running after the client went away")
				}
				wantNothingLeft(t, fx) // and the server keeps serving
			})
		})
	}
}

func TestUploadConcurrent(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		before := goruntime.NumGoroutine()
		srv := httptest.NewServer(fx.handler)
		client := srv.Client()
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i := range 100 {
			wg.Go(func() {
				body := bytes.Repeat([]byte(fmt.Sprintf("upload %d\n", i)), 1000)
				c := claims(body)
				c.FileID = fmt.Sprint("file_", i)
				c.Owner = fmt.Sprint("owner ", i) // one owner has at most MaxUploadsPerOwner at once
				tok := sign(t, fx.keys, c)
				var req *http.Request
				if i%2 == 0 {
					req, _ = http.NewRequest(http.MethodPut, srv.URL, bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+tok)
				} else {
					b, ct := multipartBody(t, part{"token", tok}, part{"file", string(body)})
					req, _ = http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(b))
					req.Header.Set("Content-Type", ct)
				}
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					errs <- fmt.Errorf("upload %d: status %d", i, resp.StatusCode)
					return
				}
				m, err := fx.store.Stat(context.Background(), c.FileID)
				if err != nil || m.Size != int64(len(body)) {
					errs <- fmt.Errorf("upload %d: Stat = %+v, %v", i, m, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		client.CloseIdleConnections()
		srv.Close()
		var after int
		for range 100 {
			if after = goruntime.NumGoroutine(); after <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("%d goroutines after 100 uploads, %d before", after, before)
	})
}

// pattern is an endless body of bytes that are not text.
type pattern struct{}

func (pattern) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*7 + 1)
	}
	return len(p), nil
}

// BenchmarkUpload64MiB uploads 64 MiB by PUT through a real HTTP server:
// to diskstore through UploadHandler, and, to compare, through a bare
// handler that io.Copy's the body to a file.
func BenchmarkUpload64MiB(b *testing.B) {
	const size = 64 << 20
	h := sha256.New()
	io.CopyN(h, pattern{}, size)
	sum := h.Sum(nil)

	run := func(b *testing.B, handler http.Handler, req func(url string, i int) *http.Request, after func(i int)) {
		srv := httptest.NewServer(handler)
		defer srv.Close()
		client := srv.Client()
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			resp, err := client.Do(req(srv.URL, i))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				b.Fatalf("status %d", resp.StatusCode)
			}
			b.StopTimer()
			after(i)
			b.StartTimer()
		}
	}

	b.Run("handler", func(b *testing.B) {
		dir := b.TempDir()
		s, err := diskstore.New(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		keys, _ := token.NewKeyring(key(b, 1))
		// A record of each upload, written as a server's text log is.
		logger := slog.New(slog.NewTextHandler(io.Discard, nil))
		handler := transfer.UploadHandler(transfer.UploadOptions{Store: s, Keys: keys, Logger: logger})
		run(b, handler, func(url string, i int) *http.Request {
			tok := sign(b, keys, token.Claims{
				Purpose: token.PurposeUpload, FileID: fmt.Sprint("file_", i), Size: size, SHA256: sum,
				MediaType: "application/octet-stream", Expires: time.Now().Add(time.Hour),
			})
			r, _ := http.NewRequest(http.MethodPut, url, io.LimitReader(pattern{}, size))
			r.ContentLength = size
			r.Header.Set("Authorization", "Bearer "+tok)
			return r
		}, func(i int) { s.Delete(context.Background(), fmt.Sprint("file_", i)) })
	})

	b.Run("bare", func(b *testing.B) {
		dir := b.TempDir()
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, err := os.Create(filepath.Join(dir, "upload"))
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			defer f.Close()
			if _, err := io.Copy(f, r.Body); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			w.WriteHeader(http.StatusCreated)
		})
		run(b, handler, func(url string, _ int) *http.Request {
			r, _ := http.NewRequest(http.MethodPut, url, io.LimitReader(pattern{}, size))
			r.ContentLength = size
			return r
		}, func(int) {})
	})
}

// failingStore is a memstore whose writers' Write is replaced by write.
type failingStore struct {
	store.Store
	write func(p []byte) (int, error)
}

func (s failingStore) Create(ctx context.Context, id string, m store.Meta) (store.Writer, error) {
	w, err := s.Store.Create(ctx, id, m)
	if err != nil {
		return nil, err
	}
	return failingWriter{w, s.write}, nil
}

type failingWriter struct {
	store.Writer
	write func(p []byte) (int, error)
}

func (w failingWriter) Write(p []byte) (int, error) { return w.write(p) }

// TestUploadStoreFails: a store that fails is the server's fault (500,
// logged), even when its error wraps io.ErrUnexpectedEOF, as a cut
// connection to object storage does; a store whose Write panics takes
// down the request, not the server.
func TestUploadStoreFails(t *testing.T) {
	fx := newFixture(t, "memstore")
	var logged bytes.Buffer
	var write func(p []byte) (int, error)
	st := failingStore{Store: fx.store, write: func(p []byte) (int, error) { return write(p) }}
	h := transfer.UploadHandler(transfer.UploadOptions{Store: st, Keys: fx.keys, Now: func() time.Time { return now }, ErrorLog: log.New(&logged, "", 0)})

	write = func([]byte) (int, error) { return 0, fmt.Errorf("s3store: put: %w", io.ErrUnexpectedEOF) }
	w := serve(h, put(sign(t, fx.keys, claims(data)), bytes.NewReader(data), false))
	if w.Code != http.StatusInternalServerError || !strings.Contains(logged.String(), "unexpected EOF") {
		t.Errorf("store fails with a wrapped io.ErrUnexpectedEOF: %d %s, logged %q; want 500, logged", w.Code, w.Body, logged.String())
	}
	wantCode(t, w, transfer.ReasonInternal)

	write = func([]byte) (int, error) { panic("store bug") }
	srv := httptest.NewServer(h)
	defer srv.Close()
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	for range 2 { // the server is still there for the second
		req, _ := http.NewRequest(http.MethodPut, srv.URL, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+sign(t, fx.keys, claims(data)))
		if res, err := srv.Client().Do(req); err == nil {
			res.Body.Close()
			t.Errorf("store panics: %s, want the connection dropped", res.Status)
		}
	}
}

// TestUploadShortBeforeType: a body that ends short of the declared size is
// reported as short (400), before its first bytes are held against the
// declared type, as it was when the check waited for the first KiB.
func TestUploadShortBeforeType(t *testing.T) {
	fx := newFixture(t, "memstore")
	c := claims(data)
	c.MediaType = "image/png"
	tok := sign(t, fx.keys, c)
	for name, r := range map[string]*http.Request{
		"PUT":  put(tok, strings.NewReader("hello"), true),
		"POST": post(t, tok, []byte("hello")),
	} {
		if w := serve(fx.handler, r); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "body ended after 5 of the declared") {
			t.Errorf("%s of 5 bytes of text declared as %d bytes of PNG: %d %s, want 400 body ended", name, len(data), w.Code, w.Body)
		}
	}
}

// TestUploadMultipartCutAfterFile: a multipart body whose file part holds
// every declared byte but whose closing boundary never came is taken: the
// bytes are all there and have the declared digest.
func TestUploadMultipartCutAfterFile(t *testing.T) {
	fx := newFixture(t, "memstore")
	tok := sign(t, fx.keys, claims(data))
	body, ct := multipartBody(t, part{"token", tok}, part{"file", string(data)})
	end := bytes.Index(body, data) + len(data)
	r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body[:end]))
	r.Header.Set("Content-Type", ct)
	if w := serve(fx.handler, r); w.Code != http.StatusCreated {
		t.Errorf("multipart body cut after the file's bytes: %d %s, want 201", w.Code, w.Body)
	}
}

// TestUploadTokenReplayAfterSweep: with FileTTL shorter than
// AuthorizationTTL, the file an upload token made outlives the token, so
// that after a sweep the token is still spent (409) and its file URI
// still names the bytes first uploaded, never other ones.
func TestUploadTokenReplayAfterSweep(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().Unix())
	now := func() time.Time { return time.Unix(clock.Load(), 0) }
	st := memstore.New(&memstore.Options{Now: now})
	s := uploadsServer(t, transfer.Options{Store: st, Now: now, FileTTL: time.Minute}) // AuthorizationTTL: the default hour
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	cs := inMemory(t, s, nil, "")

	first, second := []byte("the bytes the user meant"), []byte("other bytes, same length")
	n := int64(len(first))
	res, err := authorize(t.Context(), cs, &transfer.AuthorizeUploadParams{MimeType: "text/plain", Size: &n}) // no digest
	if err != nil {
		t.Fatal(err)
	}
	if code := send(t, res.Upload, first); code != http.StatusCreated {
		t.Fatalf("upload: %d", code)
	}
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	if out := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": res.File.URI})); !strings.Contains(out, sum(first)) {
		t.Fatalf("first call: %q", out)
	}

	clock.Add(120) // the file expires; the upload token (1 h) and the file URI (1 h + 1 min) do not
	if _, err := st.Sweep(t.Context(), now()); err != nil {
		t.Fatal(err)
	}
	if code := send(t, res.Upload, second); code != http.StatusConflict {
		t.Errorf("the same upload token again, after the sweep: %d, want 409 (the token is single use)", code)
	}
	if out := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": res.File.URI})); strings.Contains(out, sum(second)) {
		t.Errorf("the same file URI now resolves to other bytes: %q", out)
	}
}
