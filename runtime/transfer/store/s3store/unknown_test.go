package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
)

// ops records the S3 operation of each request a client sends.
type ops struct {
	mu  sync.Mutex
	ops []string
}

func (o *ops) record(r *http.Request) {
	q := r.URL.Query()
	var op string
	switch {
	case q.Has("tagging"):
		op = strings.ToUpper(r.Method[:1]) + strings.ToLower(r.Method[1:]) + "ObjectTagging"
	case r.Method == http.MethodPost && q.Has("uploads"):
		op = "CreateMultipartUpload"
	case r.Method == http.MethodPut && q.Has("partNumber"):
		op = "UploadPart"
	case r.Method == http.MethodPost && q.Has("uploadId"):
		op = "CompleteMultipartUpload"
	case r.Method == http.MethodDelete && q.Has("uploadId"):
		op = "AbortMultipartUpload"
	default:
		op = map[string]string{"HEAD": "HeadObject", "GET": "GetObject", "PUT": "PutObject", "DELETE": "DeleteObject"}[r.Method]
	}
	if r.Header.Get("If-None-Match") == "*" {
		op += " If-None-Match"
	}
	o.mu.Lock()
	o.ops = append(o.ops, op)
	o.mu.Unlock()
}

// take returns the operations recorded since the last take.
func (o *ops) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.ops
	o.ops = nil
	return r
}

// uploads returns the keys of the multipart uploads in progress under
// prefix.
func uploads(t *testing.T, c *s3.Client, prefix string) []string {
	t.Helper()
	out, err := c.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, aws.ToString(u.Key))
	}
	return keys
}

func unknownSize(max int64) store.Meta {
	return store.Meta{Size: store.SizeUnknown, MaxSize: max, MediaType: "application/pdf", Name: "big ü.pdf", Owner: "user:42"}
}

// TestUnknownSizeRequests checks the requests that commit an object of
// unknown size: one conditional PutObject when it fits the buffer, else a
// multipart upload, completed If-None-Match: *, whose digest is recorded in
// its metadata when declared and in its tags when not; and that Stat then
// finds the digest without reading the object.
func TestUnknownSizeRequests(t *testing.T) {
	const part = s3store.PartSize
	for _, gw := range servers(t) {
		t.Run(gw.name, func(t *testing.T) {
			for _, tc := range []struct {
				name      string
				size      int
				declare   bool
				wantWrite []string
				wantStat  []string
			}{
				{"one buffer", part, false,
					[]string{"HeadObject", "PutObject If-None-Match"},
					[]string{"HeadObject"}},
				{"one buffer declared", 1, true,
					[]string{"HeadObject", "PutObject If-None-Match"},
					[]string{"HeadObject"}},
				{"parts", 2*part + 5, false,
					[]string{"HeadObject", "CreateMultipartUpload", "UploadPart", "UploadPart", "UploadPart", "CompleteMultipartUpload If-None-Match", "PutObjectTagging"},
					[]string{"HeadObject", "GetObjectTagging"}},
				{"parts declared", 2 * part, true,
					[]string{"HeadObject", "CreateMultipartUpload", "UploadPart", "UploadPart", "CompleteMultipartUpload If-None-Match"},
					[]string{"HeadObject"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var rec ops
					c := gw.client(rec.record)
					dir := prefix(t)
					s := newStore(t, gw, s3store.Options{Client: c, Prefix: dir})
					ctx := context.Background()
					body := patterned(tc.size)
					m := unknownSize(1 << 30)
					if tc.declare {
						m.SHA256 = sha256.Sum256(body)
					}
					rec.take()
					w, err := s.Create(ctx, "x", m)
					if err != nil {
						t.Fatal(err)
					}
					defer w.Abort()
					// In writes of 1 MiB: the buffer fills, and goes out when
					// more comes.
					for p := body; len(p) > 0; p = p[min(len(p), 1<<20):] {
						if _, err := w.Write(p[:min(len(p), 1<<20)]); err != nil {
							t.Fatal(err)
						}
					}
					if err := w.Commit(ctx); err != nil {
						t.Fatal(err)
					}
					if got := rec.take(); !slices.Equal(got, tc.wantWrite) {
						t.Errorf("writing %d bytes sent %q, want %q", tc.size, got, tc.wantWrite)
					}
					got, err := s.Stat(ctx, "x")
					if err != nil {
						t.Fatal(err)
					}
					want := m
					want.Size, want.MaxSize, want.SHA256 = int64(tc.size), 0, sha256.Sum256(body)
					if got != want {
						t.Errorf("Stat = %+v, want %+v", got, want)
					}
					if got := rec.take(); !slices.Equal(got, tc.wantStat) {
						t.Errorf("Stat sent %q, want %q", got, tc.wantStat)
					}
					if got := uploads(t, c, dir); len(got) != 0 {
						t.Errorf("multipart uploads left: %q", got)
					}
				})
			}
		})
	}
}

// TestUnknownSizeLeavesNoUploads fails writers of unknown size after they
// have sent parts, in each way they can fail: each aborts its multipart
// upload, leaves no object, and leaves the ID free.
func TestUnknownSizeLeavesNoUploads(t *testing.T) {
	const part = s3store.PartSize
	gw := server(t, "http")
	c := gw.client(nil)
	dir := prefix(t)
	s := newStore(t, gw, s3store.Options{Client: c, Prefix: dir})
	ctx := context.Background()
	body := patterned(part + 10)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name    string
		attempt func(w store.Writer) error
		want    error
	}{
		{"too large", func(w store.Writer) error { w.Write(body); _, err := w.Write([]byte("!")); return err }, store.ErrTooLarge},
		{"abort", func(w store.Writer) error { w.Write(body); w.Abort(); return w.Commit(ctx) }, store.ErrClosed},
		{"digest", func(w store.Writer) error { w.Write(body[1:]); w.Write(body[:1]); return w.Commit(ctx) }, store.ErrDigest},
		{"canceled", func(w store.Writer) error { w.Write(body); return w.Commit(canceled) }, context.Canceled},
		{"lost race", func(w store.Writer) error {
			w.Write(body)
			putBytes(t, s, "fresh", []byte("winner"))
			return w.Commit(ctx)
		}, store.ErrExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := unknownSize(int64(len(body)))
			m.SHA256 = sha256.Sum256(body)
			w, err := s.Create(ctx, "fresh", m)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.attempt(w); !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
			if err := w.Abort(); err != nil {
				t.Errorf("Abort: %v", err)
			}
			if got := uploads(t, c, dir); len(got) != 0 {
				t.Errorf("multipart uploads left: %q", got)
			}
			if tc.want == store.ErrExists {
				if m, err := s.Stat(ctx, "fresh"); err != nil || m.Size != int64(len("winner")) {
					t.Errorf("Stat of the winner = %+v, %v", m, err)
				}
				if err := s.Delete(ctx, "fresh"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Stat(ctx, "fresh"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Stat after a failed writer: %v, want ErrNotFound", err)
			}
		})
	}
	// The ID is still free.
	putBytes(t, s, "fresh", body)
}

// TestCompleteIfNoneMatch checks what a writer of unknown size relies on
// to commit create-if-absent: the server refuses to complete a multipart
// upload If-None-Match: * over an existing key, with 412, and the upload
// can then be aborted.
func TestCompleteIfNoneMatch(t *testing.T) {
	gw := server(t, "http")
	c := gw.client(nil)
	ctx := context.Background()
	key := prefix(t) + "x"
	rawPut(t, c, key, []byte("first"), nil)
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("second"))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId, IfNoneMatch: aws.String("*"),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{ETag: part.ETag, PartNumber: aws.Int32(1)}}},
	})
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusPreconditionFailed {
		t.Errorf("CompleteMultipartUpload If-None-Match: * over an existing key: %v, want 412", err)
	}
	if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId}); err != nil {
		t.Errorf("AbortMultipartUpload after the refusal: %v", err)
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	if b, err := io.ReadAll(out.Body); string(b) != "first" || err != nil {
		t.Errorf("the key holds %q, %v, want %q", b, err, "first")
	}
}

// refuseTagging is an HTTP client that answers every PutObjectTagging
// with 403, as S3 does to credentials without s3:PutObjectTagging.
type refuseTagging struct{ c *http.Client }

func (r refuseTagging) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && req.URL.Query().Has("tagging") {
		return &http.Response{
			StatusCode: http.StatusForbidden,
			Status:     "403 Forbidden",
			Header:     http.Header{"Content-Type": {"application/xml"}},
			Body:       io.NopCloser(strings.NewReader(`<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)),
			Request:    req,
		}, nil
	}
	return r.c.Do(req)
}

// TestUnknownSizeTaggingRefused: when the digest of a multipart object
// cannot be recorded, Commit fails, says why, and deletes the object.
func TestUnknownSizeTaggingRefused(t *testing.T) {
	gw := server(t, "http")
	c := gw.client(nil)
	refusing := s3.New(c.Options(), func(o *s3.Options) { o.HTTPClient = refuseTagging{gw.http} })
	dir := prefix(t)
	s := newStore(t, gw, s3store.Options{Client: refusing, Prefix: dir})
	ctx := context.Background()
	w, err := s.Create(ctx, "x", unknownSize(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.Write(patterned(s3store.PartSize + 1))
	err = w.Commit(ctx)
	if err == nil || !strings.Contains(err.Error(), "s3:PutObjectTagging") {
		t.Errorf("Commit with tagging refused: %v, want an error that names s3:PutObjectTagging", err)
	}
	if _, err := s.Stat(ctx, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat after a failed Commit: %v, want ErrNotFound", err)
	}
	if got := uploads(t, c, dir); len(got) != 0 {
		t.Errorf("multipart uploads left: %q", got)
	}
}

// TestUnknownSizeStaleTags: tags that describe another object than the
// one under the key (another ETag) are not believed: Stat reads the object
// to compute its digest.
func TestUnknownSizeStaleTags(t *testing.T) {
	gw := server(t, "http")
	var rec ops
	c := gw.client(rec.record)
	dir := prefix(t)
	s := newStore(t, gw, s3store.Options{Client: c, Prefix: dir})
	ctx := context.Background()
	body := patterned(s3store.PartSize + 1)
	w, err := s.Create(ctx, "x", unknownSize(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.Write(body)
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wrong := sha256.Sum256([]byte("wrong"))
	_, err = c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(dir + "x"), Tagging: &types.Tagging{TagSet: []types.Tag{
		{Key: aws.String("mcpfile-sha256"), Value: aws.String(hex.EncodeToString(wrong[:]))},
		{Key: aws.String("mcpfile-etag"), Value: aws.String("0123456789abcdef0123456789abcdef-2")},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	rec.take()
	if m, err := s.Stat(ctx, "x"); err != nil || m.SHA256 != sha256.Sum256(body) {
		t.Errorf("Stat = %+v, %v, want the digest of the bytes", m, err)
	}
	if got := rec.take(); !slices.Contains(got, "GetObject") {
		t.Errorf("Stat sent %q, want a GetObject to compute the digest", got)
	}
}

// TestLargeObjectUnknownSize writes 64 MiB of unknown size, and checks
// that the live heap grows by about one part, the writer's buffer, and not
// with the object. It collects garbage before each sample: with one part
// live, the heap may reach twice that before the collector runs.
func TestLargeObjectUnknownSize(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB through S3: skipped in -short mode")
	}
	for _, gw := range servers(t) {
		t.Run(gw.name, func(t *testing.T) {
			ctx := context.Background()
			s := newStore(t, gw, s3store.Options{})
			const (
				size  = 64 << 20
				bound = s3store.PartSize + 4<<20 // the buffer, and slack for the SDK
			)
			var peak heapPeak
			sample := func() { runtime.GC(); peak.sample() } // the live heap
			want := writeWatched(t, s, "large", unknownSize(1<<30), size, &peak, 1<<20, sample, bound)
			if m, err := s.Stat(ctx, "large"); err != nil || m.Size != size || !bytes.Equal(m.SHA256[:], want) {
				t.Errorf("Stat = %+v, %v, want %d bytes and their digest", m, err, size)
			}
		})
	}
}
