package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// presignTests are the subtests of signed requests: what a
// [store.Presigner] and a [store.DownloadPresigner] promise, whatever the
// backend. How a backend refuses (its status codes, its headers) is its
// own; the suite holds it to refusing, and to keeping nothing of what it
// refused.
func presignTests(client *http.Client) []struct {
	name string
	fn   func(t *testing.T, s store.Store, c *clock)
} {
	p := signed{client}
	return []struct {
		name string
		fn   func(t *testing.T, s store.Store, c *clock)
	}{
		{"PresignUpload", p.testUpload},
		{"PresignRefusals", p.testRefusals},
		{"PresignArguments", p.testArguments},
		{"PresignDownload", p.testDownload},
	}
}

// signed sends signed requests with its client.
type signed struct{ client *http.Client }

func presigner(t *testing.T, s store.Store) store.Presigner {
	t.Helper()
	p, ok := s.(store.Presigner)
	if !ok {
		t.Skip("not a store.Presigner")
	}
	return p
}

func downloadPresigner(t *testing.T, s store.Store) store.DownloadPresigner {
	t.Helper()
	p, ok := s.(store.DownloadPresigner)
	if !ok {
		t.Skip("not a store.DownloadPresigner")
	}
	return p
}

// signedMeta declares body as a presigned upload does: its exact size,
// and its digest when declare is set.
func signedMeta(body []byte, declare bool, c *clock) store.Meta {
	m := store.Meta{
		Size:      int64(len(body)),
		MediaType: "text/csv; charset=utf-8",
		Name:      "report 2026 – ü.csv",
		Owner:     "user:42",
		Expires:   c.Now().Add(time.Hour),
	}
	if declare {
		m.SHA256 = sha256.Sum256(body)
	}
	return m
}

// send sends sr as a client would, with body, after edit (if not nil) has
// changed it, and returns the status and what the backend answered.
func (p signed) send(t *testing.T, sr store.SignedRequest, body []byte, edit func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(sr.Method, sr.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("signed request %s %s: %v", sr.Method, sr.URL, err)
	}
	for k, v := range sr.Headers {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length": // net/http sends the body's
		case "Host":
			req.Host = v
		default:
			req.Header.Set(k, v)
		}
	}
	if edit != nil {
		edit(req)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", sr.Method, sr.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, string(b)
}

func ok(code int) bool { return code >= 200 && code < 300 }

// testUpload sends signed uploads as they are: each makes the object it
// declared, with the digest of its bytes.
func (p signed) testUpload(t *testing.T, s store.Store, c *clock) {
	ps := presigner(t, s)
	ctx := context.Background()
	for _, tc := range []struct {
		id      string
		body    []byte
		declare bool
	}{
		{"declared", []byte("a,b\n1,2\n"), true},
		{"undeclared", []byte("a,b\n3,4\n"), false},
		{"empty", nil, false},
	} {
		m := signedMeta(tc.body, tc.declare, c)
		sr, err := ps.PresignUpload(ctx, tc.id, m, c.Now().Add(time.Minute))
		if err != nil {
			t.Fatalf("%s: PresignUpload: %v", tc.id, err)
		}
		if sr.Method == "" || sr.URL == "" {
			t.Fatalf("%s: PresignUpload = %+v, want a method and a URL", tc.id, sr)
		}
		if code, msg := p.send(t, sr, tc.body, nil); !ok(code) {
			t.Fatalf("%s: %s = %d %s, want 2xx", tc.id, sr.Method, code, msg)
		}
		got, err := s.Stat(ctx, tc.id)
		if err != nil {
			t.Fatalf("%s: Stat after the upload: %v", tc.id, err)
		}
		want := m
		want.SHA256 = sha256.Sum256(tc.body)
		if !got.Expires.Equal(want.Expires) {
			t.Errorf("%s: Expires = %v, want %v", tc.id, got.Expires, want.Expires)
		}
		got.Expires, want.Expires = time.Time{}, time.Time{}
		if got != want {
			t.Errorf("%s: Stat = %+v, want %+v", tc.id, got, want)
		}
		if b := read(t, s, tc.id); !bytes.Equal(b, tc.body) {
			t.Errorf("%s: holds %q, want %q", tc.id, b, tc.body)
		}
	}
}

// testRefusals changes what a client sends, one thing at a time: the
// backend refuses each and keeps nothing, and the ID stays free for the
// request as signed. That request is good once: the backend refuses it
// again, and so does a Writer of the ID.
func (p signed) testRefusals(t *testing.T, s store.Store, c *clock) {
	ps := presigner(t, s)
	ctx := context.Background()
	body := []byte("id,amount\n1,100\n")
	m := signedMeta(body, true, c)
	sr, err := ps.PresignUpload(ctx, "refused", m, c.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		body []byte
		edit func(*http.Request)
	}{
		{"a longer body", append(bytes.Clone(body), 'x'), nil},
		{"a shorter body", body[:len(body)-1], nil},
		{"other bytes of the declared length", bytes.ToUpper(body), nil},
		{"another media type", body, func(r *http.Request) { r.Header.Set("Content-Type", "text/html") }},
	} {
		if code, _ := p.send(t, sr, tc.body, tc.edit); ok(code) {
			t.Errorf("%s: %s = %d, want a refusal", tc.name, sr.Method, code)
		}
		absent(t, s, "refused")
	}
	if code, msg := p.send(t, sr, body, nil); !ok(code) {
		t.Fatalf("after the refusals, the request as signed = %d %s, want 2xx", code, msg)
	}
	if code, _ := p.send(t, sr, []byte("id,amount\n2,200\n"), nil); ok(code) {
		t.Errorf("the signed request sent again = %d, want a refusal", code)
	}
	if b := read(t, s, "refused"); !bytes.Equal(b, body) {
		t.Errorf("after the request was sent again, the object holds %q, want %q", b, body)
	}
	if err := tryPut(s, "refused", body, meta(body)); !errors.Is(err, store.ErrExists) {
		t.Errorf("a Writer of an ID uploaded by a signed request: %v, want ErrExists", err)
	}
}

// testArguments: a signed upload declares its exact size; IDs and
// contexts are checked as by every Store method.
func (p signed) testArguments(t *testing.T, s store.Store, c *clock) {
	ps := presigner(t, s)
	ctx := context.Background()
	until := c.Now().Add(time.Minute)
	unknown := store.Meta{Size: store.SizeUnknown, MaxSize: 100, MediaType: "text/plain"}
	if _, err := ps.PresignUpload(ctx, "unknown", unknown, until); err == nil {
		t.Error("PresignUpload of SizeUnknown: no error, want one (a signed upload declares its exact length)")
	}
	body := []byte("x")
	if _, err := ps.PresignUpload(ctx, "../x", signedMeta(body, false, c), until); !errors.Is(err, store.ErrBadID) {
		t.Errorf("PresignUpload of %q: %v, want ErrBadID", "../x", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ps.PresignUpload(done, "canceled", signedMeta(body, false, c), until); !errors.Is(err, context.Canceled) {
		t.Errorf("PresignUpload with a canceled context: %v, want context.Canceled", err)
	}
	if dp, ok := s.(store.DownloadPresigner); ok {
		if _, err := dp.PresignDownload(ctx, "a/b", "text/plain", "attachment", until); !errors.Is(err, store.ErrBadID) {
			t.Errorf("PresignDownload of %q: %v, want ErrBadID", "a/b", err)
		}
		if _, err := dp.PresignDownload(done, "canceled", "text/plain", "attachment", until); !errors.Is(err, context.Canceled) {
			t.Errorf("PresignDownload with a canceled context: %v, want context.Canceled", err)
		}
	}
}

// testDownload gets a committed object through a signed GET: its bytes,
// served with the media type and disposition asked for (or, where the
// backend cannot, application/octet-stream and a bare attachment), from a
// URL that names neither; and no bytes for an ID that holds none.
func (p signed) testDownload(t *testing.T, s store.Store, c *clock) {
	dp := downloadPresigner(t, s)
	ctx := context.Background()
	body := []byte("a,b\n1,2\n")
	m := signedMeta(body, true, c)
	put(t, s, "kept", body, m)
	disposition := store.ContentDisposition(m.Name)
	sr, err := dp.PresignDownload(ctx, "kept", m.MediaType, disposition, c.Now().Add(time.Minute))
	if err != nil {
		t.Fatalf("PresignDownload: %v", err)
	}
	req, err := http.NewRequest(sr.Method, sr.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range sr.Headers {
		req.Header.Set(k, v)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(got, body) {
		t.Fatalf("%s of a signed download = %d %q, %v; want 200 %q", sr.Method, resp.StatusCode, got, err, body)
	}
	ct, cd := resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition")
	if (ct != m.MediaType || cd != disposition) && (ct != "application/octet-stream" || cd != "attachment") {
		t.Errorf("served with Content-Type %q, Content-Disposition %q; want %q and %q, or application/octet-stream and attachment", ct, cd, m.MediaType, disposition)
	}
	if u, _ := url.QueryUnescape(sr.URL); strings.Contains(u, m.Name) || strings.Contains(strings.ToLower(u), "text/csv") {
		t.Errorf("signed URL %s names the file or its type: it lands in access logs", sr.URL)
	}

	sr, err = dp.PresignDownload(ctx, "missing", "text/plain", "attachment", c.Now().Add(time.Minute))
	if err != nil {
		return // refusing to sign is as good as a refused GET
	}
	req, err = http.NewRequest(sr.Method, sr.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = p.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ok(resp.StatusCode) {
		t.Errorf("%s of a signed download of an ID that holds nothing = %d, want a refusal", sr.Method, resp.StatusCode)
	}
}
