package download

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

// TestGet: a download is written when its bytes have the declared size
// and digest, and refused, with the reason, when they do not or when the
// descriptor is not one to follow.
func TestGet(t *testing.T) {
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
	allow := &Options{AllowHTTP: true}
	for _, tt := range []struct {
		name string
		res  wire.AuthorizeDownloadResult
		o    *Options
		want string // "" for success
	}{
		{"verified", wire.AuthorizeDownloadResult{File: wire.FileValue{Size: &size, Digest: &digest}, Download: desc("/file")}, allow, ""},
		{"nothing declared", wire.AuthorizeDownloadResult{Download: desc("/file")}, allow, ""},
		{"size", wire.AuthorizeDownloadResult{File: wire.FileValue{Size: &other}, Download: desc("/file")}, allow, "16 bytes came, file.size is 17"},
		{"digest", wire.AuthorizeDownloadResult{File: wire.FileValue{Digest: &wrong}, Download: desc("/file")}, allow, "file.digest is " + wrong.Value},
		{"over MaxSize", wire.AuthorizeDownloadResult{Download: desc("/file")}, &Options{AllowHTTP: true, MaxSize: 4}, "more than the limit of 4 bytes"},
		{"declared over MaxSize", wire.AuthorizeDownloadResult{File: wire.FileValue{Size: &size}, Download: desc("/file")}, &Options{AllowHTTP: true, MaxSize: 4}, "more than the limit of 4"},
		{"plain http", wire.AuthorizeDownloadResult{Download: desc("/file")}, nil, "not https"},
		{"redirect", wire.AuthorizeDownloadResult{Download: desc("/moved")}, allow, "302 Found (want 200 OK)"},
		{"PUT", wire.AuthorizeDownloadResult{Download: wire.FileTransferDescriptor{Transport: "https", Method: "PUT", URL: srv.URL}}, allow, `download.method is "PUT"`},
		{"expired", wire.AuthorizeDownloadResult{Download: wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: srv.URL, ExpiresAt: time.Now().Add(-time.Minute)}}, allow, "expired"},
		{"user info", wire.AuthorizeDownloadResult{Download: wire.FileTransferDescriptor{Transport: "https", Method: "GET", URL: "https://u:p@example.com/f"}}, allow, "user info"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			r, err := Get(context.Background(), &tt.res, &w, tt.o)
			if tt.want == "" {
				if err != nil || !bytes.Equal(w.Bytes(), body) || r.Size != size || r.Sum != sha256.Sum256(body) {
					t.Errorf("Get = %+v, %v, wrote %q; want the file", r, err, w.Bytes())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Get err = %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "/file") {
				t.Errorf("the error %q holds the URL's path (it may carry a token)", err)
			}
		})
	}
	// A verification failure is ErrVerify.
	res := wire.AuthorizeDownloadResult{File: wire.FileValue{Digest: &wrong}, Download: desc("/file")}
	if _, err := Get(context.Background(), &res, new(bytes.Buffer), allow); !errors.Is(err, ErrVerify) {
		t.Errorf("err = %v, want ErrVerify", err)
	}
}
