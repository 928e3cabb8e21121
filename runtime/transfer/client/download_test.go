package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// TestDownload: a download is written when its bytes have the declared size
// and digest, and refused, with the reason, when they do not or when the
// descriptor is not one to follow.
func TestDownload(t *testing.T) {
	body := []byte("the file's bytes")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file":
			if r.Header.Get("X-Token") != "t" {
				http.Error(w, "no token", http.StatusForbidden)
				return
			}
			w.Write(body)
		case "/moved":
			http.Redirect(w, r, "/file", http.StatusFound)
		}
	}))
	defer srv.Close()
	size := int64(len(body))
	other := size + 1
	digest := wire.SHA256Digest(sha256.Sum256(body))
	wrong := wire.SHA256Digest(sha256.Sum256([]byte("other bytes")))
	desc := func(path string) wire.FileTransferDescriptor {
		return wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: srv.URL + path, Headers: map[string]string{"X-Token": "t"}}
	}
	allow := &DownloadOptions{AllowHTTP: true}
	for _, tt := range []struct {
		name string
		res  wire.AuthorizeDownloadResult
		o    *DownloadOptions
		want string // "" for success
	}{
		{"verified", wire.AuthorizeDownloadResult{File: wire.FileValue{Size: &size, Digest: &digest}, Download: desc("/file")}, allow, ""},
		{"nothing declared", wire.AuthorizeDownloadResult{Download: desc("/file")}, allow, ""},
		{"size", wire.AuthorizeDownloadResult{File: wire.FileValue{Size: &other}, Download: desc("/file")}, allow, "16 bytes came, file.size is 17"},
		{"digest", wire.AuthorizeDownloadResult{File: wire.FileValue{Digest: &wrong}, Download: desc("/file")}, allow, "file.digest is " + wrong.Value},
		{"over MaxSize", wire.AuthorizeDownloadResult{Download: desc("/file")}, &DownloadOptions{AllowHTTP: true, MaxSize: 4}, "more than the limit of 4 bytes"},
		{"declared over MaxSize", wire.AuthorizeDownloadResult{File: wire.FileValue{Size: &size}, Download: desc("/file")}, &DownloadOptions{AllowHTTP: true, MaxSize: 4}, "more than the limit of 4 (DownloadOptions.MaxSize)"},
		{"plain http", wire.AuthorizeDownloadResult{Download: desc("/file")}, nil, "not https"},
		{"redirect", wire.AuthorizeDownloadResult{Download: desc("/moved")}, allow, "302 Found (want 200 OK)"},
		{"PUT", wire.AuthorizeDownloadResult{Download: wire.FileTransferDescriptor{Transport: "https", Method: "PUT", URL: srv.URL}}, allow, `download.method "PUT"`},
		{"expired", wire.AuthorizeDownloadResult{Download: wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: srv.URL, ExpiresAt: time.Now().Add(-time.Minute)}}, allow, "expired"},
		{"user info", wire.AuthorizeDownloadResult{Download: wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: "https://u:p@example.com/f"}}, allow, "user info"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			r, err := Download(context.Background(), &tt.res, &w, tt.o)
			if tt.want == "" {
				if err != nil || !bytes.Equal(w.Bytes(), body) || r.Size != size || r.Sum != sha256.Sum256(body) {
					t.Errorf("Download = %+v, %v, wrote %q; want the file", r, err, w.Bytes())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Download err = %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "/file") {
				t.Errorf("the error %q holds the URL's path (it may carry a token)", err)
			}
		})
	}
	// A verification failure is ErrVerify.
	res := wire.AuthorizeDownloadResult{File: wire.FileValue{Digest: &wrong}, Download: desc("/file")}
	if _, err := Download(context.Background(), &res, new(bytes.Buffer), allow); !errors.Is(err, ErrVerify) {
		t.Errorf("err = %v, want ErrVerify", err)
	}
}

// TestDownloadRange: a range comes from a 206 whose Content-Range is the
// one asked for, or from a 200 that ignored Range; another Content-Range,
// a short body, or a range past the declared size are errors.
func TestDownloadRange(t *testing.T) {
	body := []byte("0123456789abcdef")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ranged": // net/http serves Range itself
			http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
		case "/whole":
			w.Write(body)
		case "/shifted": // 206 with the range one byte on
			w.Header().Set("Content-Range", "bytes 3-5/16")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(body[3:6])
		case "/short":
			w.Header().Set("Content-Range", "bytes 2-4/16")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(body[2:4])
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	size := int64(len(body))
	res := func(path string) *wire.AuthorizeDownloadResult {
		return &wire.AuthorizeDownloadResult{File: wire.FileValue{Size: &size}, Download: wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: srv.URL + path}}
	}
	allow := &DownloadOptions{AllowHTTP: true}
	for _, path := range []string{"/ranged", "/whole"} {
		var w bytes.Buffer
		n, err := DownloadRange(t.Context(), res(path), &w, 2, 3, allow)
		if err != nil || n != 3 || w.String() != "234" {
			t.Errorf("%s: DownloadRange = %d, %v, wrote %q; want 3 bytes 234", path, n, err, w.Bytes())
		}
	}
	for _, tt := range []struct {
		path           string
		offset, length int64
		want           string
	}{
		{"/shifted", 2, 3, "Content-Range"},
		{"/short", 2, 3, "2 bytes of the range came, want 3"},
		{"/missing", 2, 3, "404"},
		{"/ranged", 14, 3, "past the file's 16 bytes"},
		{"/ranged", -1, 3, "want offset ≥ 0"},
		{"/ranged", 0, 0, "length > 0"},
	} {
		_, err := DownloadRange(t.Context(), res(tt.path), new(bytes.Buffer), tt.offset, tt.length, allow)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s [%d,+%d): err = %v, want %q", tt.path, tt.offset, tt.length, err, tt.want)
		}
	}
}

// TestCheckDownloadHeaders: a descriptor may not set the headers the
// client sets itself, nor malformed ones.
func TestCheckDownloadHeaders(t *testing.T) {
	for _, h := range []map[string]string{{"Range": "bytes=0-"}, {"Transfer-Encoding": "chunked"}, {"Host": "other"}, {"X-A": "a\nb"}, {"X A": "a"}} {
		d := wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: "https://example.com/f", Headers: h}
		if _, err := CheckDownload(d, false, time.Now()); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("headers %q: err = %v, want ErrBadAnswer", h, err)
		}
	}
	d := wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: "https://example.com/f", Headers: map[string]string{"Authorization": "Bearer x"}}
	if _, err := CheckDownload(d, false, time.Now()); err != nil {
		t.Errorf("an Authorization header: %v", err)
	}
}
