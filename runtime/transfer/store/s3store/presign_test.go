package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
)

// send sends the signed request with body, after edit (if not nil) has
// changed it, and returns the response's status and body.
func send(t *testing.T, gw *gateway, sr store.SignedRequest, body []byte, edit func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(sr.Method, sr.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range sr.Headers {
		if k != "Content-Length" { // net/http sends the body's
			req.Header.Set(k, v)
		}
	}
	if edit != nil {
		edit(req)
	}
	resp, err := gw.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func presignMeta(body []byte, declare bool) store.Meta {
	m := store.Meta{
		Size:      int64(len(body)),
		MediaType: "text/csv; charset=utf-8",
		Name:      "report 2026 – ü.csv",
		Owner:     "user:42",
		Expires:   time.Now().Add(time.Hour).Round(0),
	}
	if declare {
		m.SHA256 = sha256.Sum256(body)
	}
	return m
}

// TestPresignSignedHeaders: what S3 is to enforce of a presigned upload
// is in the headers signed (storetest holds the store to the outcome).
func TestPresignSignedHeaders(t *testing.T) {
	gw := server(t, "http")
	s := newStore(t, gw, s3store.Options{})
	for _, tc := range []struct {
		id      string
		body    []byte
		declare bool
	}{
		{"declared", []byte("a,b\n1,2\n"), true},
		{"undeclared", []byte("a,b\n3,4\n"), false},
		{"empty", nil, false},
	} {
		sr, err := s.PresignUpload(t.Context(), tc.id, presignMeta(tc.body, tc.declare), time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if sr.Method != http.MethodPut {
			t.Errorf("%s: Method = %q, want PUT", tc.id, sr.Method)
		}
		want := []string{"If-None-Match", "X-Amz-Meta-Mcpfile-Name", "X-Amz-Meta-Mcpfile-Owner", "X-Amz-Meta-Mcpfile-Media-Type", "X-Amz-Meta-Mcpfile-Expires"}
		if len(tc.body) > 0 { // the SDK signs neither for an empty body
			want = append(want, "Content-Length", "Content-Type")
		}
		if tc.declare || len(tc.body) == 0 {
			want = append(want, "X-Amz-Checksum-Sha256")
		}
		for _, h := range want {
			if _, ok := sr.Headers[h]; !ok {
				t.Errorf("%s: Headers = %q, want a %s", tc.id, sr.Headers, h)
			}
		}
	}
}

// TestPresignRefusals changes what a client sends, one thing at a time,
// and checks that S3 itself refuses it and stores nothing: the headers
// special to S3 (storetest changes the body and the media type).
func TestPresignRefusals(t *testing.T) {
	gw := server(t, "http")
	ctx := context.Background()
	s := newStore(t, gw, s3store.Options{})
	body := []byte("id,amount\n1,100\n")
	m := presignMeta(body, true)
	other := bytes.ToUpper(body)
	for _, tc := range []struct {
		name string
		body []byte
		edit func(*http.Request)
		want int
	}{
		{"no media type", body, func(r *http.Request) { r.Header.Del("Content-Type") }, http.StatusForbidden},
		{"other owner", body, func(r *http.Request) { r.Header.Set("X-Amz-Meta-Mcpfile-Owner", "user:43") }, http.StatusForbidden},
		{"later expiry", body, func(r *http.Request) { r.Header.Set("X-Amz-Meta-Mcpfile-Expires", "2099-01-01T00:00:00Z") }, http.StatusForbidden},
		{"extra metadata", body, func(r *http.Request) { r.Header.Set("X-Amz-Meta-Mcpfile-Sha256", strings.Repeat("0", 64)) }, http.StatusForbidden},
		{"no If-None-Match", body, func(r *http.Request) { r.Header.Del("If-None-Match") }, http.StatusForbidden},
		{"no checksum", body, func(r *http.Request) { r.Header.Del("X-Amz-Checksum-Sha256") }, http.StatusForbidden},
		{"checksum of other bytes", other, func(r *http.Request) {
			sum := sha256.Sum256(other)
			r.Header.Set("X-Amz-Checksum-Sha256", b64(sum[:]))
		}, http.StatusForbidden},
	} {
		sr, err := s.PresignUpload(ctx, "refused", m, time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if code, msg := send(t, gw, sr, tc.body, tc.edit); code != tc.want {
			t.Errorf("%s: PUT = %d %s, want %d", tc.name, code, msg, tc.want)
		}
		if _, err := s.Stat(ctx, "refused"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: after the refused PUT, Stat: %v, want ErrNotFound", tc.name, err)
		}
	}

	// Expired: the shortest signature SigV4 has is one second (this one is
	// rounded down to it).
	sr, err := s.PresignUpload(ctx, "late", m, time.Now().Add(1500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	if code, msg := send(t, gw, sr, body, nil); code != http.StatusForbidden {
		t.Errorf("PUT after the signature expired = %d %s, want 403", code, msg)
	}
	if _, err := s.Stat(ctx, "late"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after the expired PUT, Stat: %v, want ErrNotFound", err)
	}
}

// TestPresignUndeclared: without a declared digest S3 checks the length
// but not the bytes, and Stat reports the digest of the bytes it has.
func TestPresignUndeclared(t *testing.T) {
	gw := server(t, "http")
	ctx := context.Background()
	s := newStore(t, gw, s3store.Options{})
	body := []byte("declared nothing")
	sr, err := s.PresignUpload(ctx, "undeclared", presignMeta(body, false), time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sr.Headers["X-Amz-Checksum-Sha256"]; ok {
		t.Errorf("Headers = %q, want no checksum", sr.Headers)
	}
	if code, msg := send(t, gw, sr, append(bytes.Clone(body), 'x'), nil); code != http.StatusForbidden {
		t.Errorf("longer body: PUT = %d %s, want 403", code, msg)
	}
	other := bytes.ToUpper(body)
	if code, msg := send(t, gw, sr, other, nil); code != http.StatusOK {
		t.Fatalf("PUT = %d %s, want 200", code, msg)
	}
	if m, err := s.Stat(ctx, "undeclared"); err != nil || m.SHA256 != sha256.Sum256(other) {
		t.Errorf("Stat = %+v, %v, want the digest of the bytes stored", m, err)
	}
}

// TestStatReadsOnce: an object whose SHA-256 S3 does not keep (a presigned
// upload without a declared digest) is read whole by the first Stat only;
// later ones read the digest from the tags it left, and once the object is
// replaced, those tags, of another ETag, do not count.
func TestStatReadsOnce(t *testing.T) {
	gw := server(t, "http")
	ctx := context.Background()
	var rec ops
	s := newStore(t, gw, s3store.Options{Client: gw.client(rec.record)})
	body := []byte("declared nothing, read once")
	sr, err := s.PresignUpload(ctx, "once", presignMeta(body, false), time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := send(t, gw, sr, body, nil); code != http.StatusOK {
		t.Fatalf("PUT = %d %s, want 200", code, msg)
	}
	stat := func(want [32]byte) []string {
		t.Helper()
		rec.take()
		if m, err := s.Stat(ctx, "once"); err != nil || m.SHA256 != want {
			t.Fatalf("Stat = %+v, %v, want the digest of the bytes stored", m, err)
		}
		return rec.take()
	}
	gets := func(ops []string) int {
		n := 0
		for _, op := range ops {
			if op == "GetObject" {
				n++
			}
		}
		return n
	}
	if got := stat(sha256.Sum256(body)); gets(got) == 0 {
		t.Errorf("first Stat: %q, want a read of the object", got)
	}
	for range 2 {
		if got := stat(sha256.Sum256(body)); gets(got) != 0 {
			t.Errorf("a later Stat: %q, want no read of the object", got)
		}
	}

	// Replaced behind the store's back, with the tags of the first.
	other := bytes.ToUpper(body)
	_, err = gw.client(nil).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(s3Key(t, sr.URL)), Body: bytes.NewReader(other), Metadata: map[string]string{"mcpfile-owner": "user%3A42"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := stat(sha256.Sum256(other)); gets(got) == 0 {
		t.Errorf("Stat of the replacement: %q, want a read of the object", got)
	}
}

func TestPresignErrors(t *testing.T) {
	gw := server(t, "http")
	ctx := context.Background()
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	s := newStore(t, gw, s3store.Options{Now: func() time.Time { return now }})
	m := store.Meta{Size: 1}
	for _, tc := range []struct {
		name    string
		id      string
		m       store.Meta
		expires time.Time
	}{
		{"bad id", "../x", m, now.Add(time.Minute)},
		{"expired", "x", m, now.Add(-time.Second)},
		{"under a second", "x", m, now.Add(time.Second - 1)},
		{"past seven days", "x", m, now.Add(s3store.MaxPresignExpiry + time.Second)},
		{"too large", "x", store.Meta{Size: s3store.MaxObjectSize + 1}, now.Add(time.Minute)},
		{"negative size", "x", store.Meta{Size: -2}, now.Add(time.Minute)},
		{"unknown size", "x", store.Meta{Size: store.SizeUnknown, MaxSize: 10}, now.Add(time.Minute)},
		{"metadata too large", "x", store.Meta{Size: 1, Name: strings.Repeat("n", s3store.MaxMetadataSize)}, now.Add(time.Minute)},
		{"media type not a header value", "x", store.Meta{Size: 1, MediaType: "text/plain\r\nX-Evil: 1"}, now.Add(time.Minute)},
	} {
		if sr, err := s.PresignUpload(ctx, tc.id, tc.m, tc.expires); err == nil {
			t.Errorf("%s: PresignUpload = %+v, want an error", tc.name, sr)
		}
	}
	if _, err := s.PresignUpload(ctx, "x", m, now.Add(s3store.MaxPresignExpiry)); err != nil {
		t.Errorf("PresignUpload for %v: %v", s3store.MaxPresignExpiry, err)
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestPresignDownloadHeaders: a presigned GET signs no Content-Type or
// Content-Disposition of the file's (they would sit in its URL): S3 serves
// those kept with the object. An object that holds others, as one stored
// before the store kept them, is served as application/octet-stream and a
// bare attachment, which name nothing either.
func TestPresignDownloadHeaders(t *testing.T) {
	gw := server(t, "http")
	s := newStore(t, gw, s3store.Options{})
	ctx := t.Context()
	body := []byte("a,b\n1,2\n")
	m := presignMeta(body, true)
	w, err := s.Create(ctx, "kept", m)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	disposition := store.ContentDisposition(m.Name)
	get := func(id string) (string, http.Header) {
		t.Helper()
		sr, err := s.PresignDownload(ctx, id, m.MediaType, disposition, time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(sr.Method, sr.URL, nil)
		resp, err := gw.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || !bytes.Equal(b, body) {
			t.Fatalf("GET %s: %d %q", id, resp.StatusCode, b)
		}
		return sr.URL, resp.Header
	}
	u, h := get("kept")
	if strings.Contains(strings.ToLower(u), "response-content-") {
		t.Errorf("URL %s: want no response-content-type or -disposition", u)
	}
	if h.Get("Content-Type") != m.MediaType || h.Get("Content-Disposition") != disposition {
		t.Errorf("served with Content-Type %q, Content-Disposition %q; want %q, %q", h.Get("Content-Type"), h.Get("Content-Disposition"), m.MediaType, disposition)
	}

	// An object put without them, behind the store's back.
	client := gw.client(nil)
	key := strings.TrimSuffix(s3Key(t, u), "kept") + "bare"
	md := map[string]string{"mcpfile-name": "x.csv", "mcpfile-media-type": "text%2Fcsv"}
	if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body), Metadata: md}); err != nil {
		t.Fatal(err)
	}
	u, h = get("bare")
	if strings.Contains(u, "x.csv") || strings.Contains(strings.ToLower(u), "text%2fcsv") {
		t.Errorf("URL %s: want no file name or type", u)
	}
	if h.Get("Content-Type") != "application/octet-stream" || h.Get("Content-Disposition") != "attachment" {
		t.Errorf("an object without them served with Content-Type %q, Content-Disposition %q; want application/octet-stream, attachment", h.Get("Content-Type"), h.Get("Content-Disposition"))
	}
}

// s3Key is the key in the path of the presigned URL u.
func s3Key(t *testing.T, u string) string {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(pu.Path, "/"+bucket+"/")
}
