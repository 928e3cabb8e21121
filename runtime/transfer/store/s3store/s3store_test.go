package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
)

// rawHead is a HEAD of the key, with the checksum, past the store.
func rawHead(t *testing.T, c *s3.Client, key string) *s3.HeadObjectOutput {
	t.Helper()
	out, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rawPut(t *testing.T, c *s3.Client, key string, body []byte, meta map[string]string) {
	t.Helper()
	_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body), Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChecksumRecorded checks where each object's SHA-256 comes from: S3
// records the declared one over either transport, and computes an
// undeclared one from the trailer over https; over http it has none.
func TestChecksumRecorded(t *testing.T) {
	body := []byte("the bytes whose digest S3 keeps")
	sum := sha256.Sum256(body)
	for _, tc := range []struct {
		gw        string
		declare   bool
		wantS3SHA bool
	}{
		{"https", false, true},
		{"https", true, true},
		{"http", false, false},
		{"http", true, true},
	} {
		gw := server(t, tc.gw)
		c := gw.client(nil)
		prefix := prefix(t)
		s := newStore(t, gw, s3store.Options{Client: c, Prefix: prefix})
		m := store.Meta{Size: int64(len(body))}
		if tc.declare {
			m.SHA256 = sum
		}
		id := "declared"
		if !tc.declare {
			id = "undeclared"
		}
		w, err := s.Create(context.Background(), id, m)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
		if err := w.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		out := rawHead(t, c, prefix+id)
		got := aws.ToString(out.ChecksumSHA256)
		if tc.wantS3SHA && got != b64(sum[:]) {
			t.Errorf("%s, declared %v: S3 recorded SHA-256 %q, want %q", tc.gw, tc.declare, got, b64(sum[:]))
		}
		if !tc.wantS3SHA && got != "" {
			t.Errorf("%s, declared %v: S3 recorded SHA-256 %q, want none", tc.gw, tc.declare, got)
		}
		if got, err := s.Stat(context.Background(), id); err != nil || got.SHA256 != sum {
			t.Errorf("%s, declared %v: Stat = %+v, %v, want the digest", tc.gw, tc.declare, got, err)
		}
	}
}

// TestMetadata round-trips names, owners and media types that are not
// header values as they are, and checks what goes on the wire is ASCII.
func TestMetadata(t *testing.T) {
	gw := server(t, "http")
	c := gw.client(nil)
	ctx := context.Background()
	dir := prefix(t)
	s := newStore(t, gw, s3store.Options{Client: c, Prefix: dir})
	for i, m := range []store.Meta{
		{Name: "notes ü.txt", Owner: "user:42", MediaType: "text/plain; charset=utf-8"},
		{Name: "  spaces  ", Owner: " ", MediaType: "application/octet-stream"},
		{Name: "100%.csv", Owner: "%2e%2e/%00", MediaType: `multipart/mixed; boundary="a b"`},
		{Name: "line\nbreak\r\x00nul\x7f", Owner: "tab\there", MediaType: ""},
		{Name: "日本語の名前.pdf", Owner: "oidc|https://issuer.example/😀", MediaType: "application/pdf"},
		{Name: "", Owner: "", MediaType: "", Expires: time.Date(2030, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))},
	} {
		id := string(rune('a' + i))
		body := []byte(id)
		m.Size = 1
		w, err := s.Create(ctx, id, m)
		if err != nil {
			t.Fatalf("Create(%+v): %v", m, err)
		}
		w.Write(body)
		if err := w.Commit(ctx); err != nil {
			t.Fatalf("Commit(%+v): %v", m, err)
		}
		got, err := s.Stat(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := m
		want.SHA256 = sha256.Sum256(body)
		if !got.Expires.Equal(want.Expires) {
			t.Errorf("Expires = %v, want %v", got.Expires, want.Expires)
		}
		got.Expires, want.Expires = time.Time{}, time.Time{}
		if got != want {
			t.Errorf("Stat = %+v, want %+v", got, want)
		}
		for k, v := range rawHead(t, c, dir+id).Metadata {
			for _, r := range v {
				if r < ' ' || r > '~' {
					t.Errorf("metadata %s = %q, want printable ASCII", k, v)
					break
				}
			}
		}
	}
}

func TestCreateErrors(t *testing.T) {
	gw := server(t, "http")
	ctx := context.Background()
	s := newStore(t, gw, s3store.Options{})
	for name, m := range map[string]store.Meta{
		"too large":                       {Size: s3store.MaxObjectSize + 1},
		"negative size":                   {Size: -2},
		"unknown size, no MaxSize":        {Size: store.SizeUnknown},
		"unknown size, MaxSize too large": {Size: store.SizeUnknown, MaxSize: s3store.MaxUnknownSize + 1},
		"unknown size, long name":         {Size: store.SizeUnknown, MaxSize: 1, Name: strings.Repeat("n", s3store.MaxMetadataSize-70)},
		"unknown size, bad media type":    {Size: store.SizeUnknown, MaxSize: 1, MediaType: "text/plain\nX: y"},
		"long name":                       {Size: 1, Name: strings.Repeat("n", s3store.MaxMetadataSize)},
		"long owner":                      {Size: 1, Owner: strings.Repeat("ü", s3store.MaxMetadataSize/4)},
		"bad media type":                  {Size: 1, MediaType: "text/plain\nX: y"},
		"utf8 media type":                 {Size: 1, MediaType: "text/plain; name=ü"},
	} {
		if w, err := s.Create(ctx, "x", m); err == nil {
			w.Abort()
			t.Errorf("%s: Create succeeded, want an error", name)
		}
	}
	w, err := s.Create(ctx, "max", store.Meta{Size: s3store.MaxObjectSize})
	if err != nil {
		t.Fatalf("Create of MaxObjectSize: %v", err)
	}
	w.Abort()
	w, err = s.Create(ctx, "max", store.Meta{Size: store.SizeUnknown, MaxSize: s3store.MaxUnknownSize})
	if err != nil {
		t.Fatalf("Create of unknown size up to MaxUnknownSize: %v", err)
	}
	w.Abort()
}

// TestForeignKeys: keys under the prefix that are not IDs, and keys
// outside it, are not the store's: Sweep and Usage leave them alone. An
// object that another program put under an ID is read as having no owner
// and no expiry.
func TestForeignKeys(t *testing.T) {
	gw := server(t, "http")
	c := gw.client(nil)
	ctx := context.Background()
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	expired := map[string]string{"mcpfile-expires": past}
	dir := prefix(t) // ends in "/"
	outside := []string{dir + "sub/expired", dir + "a.b", strings.TrimSuffix(dir, "/") + "-expired", "other" + dir + "expired"}
	for _, key := range outside {
		rawPut(t, c, key, []byte("foreign"), expired)
	}
	rawPut(t, c, dir+"plain", []byte("plain"), nil)
	s := newStore(t, gw, s3store.Options{Client: c, Prefix: dir})
	if n, err := s.Sweep(ctx, time.Now()); n != 0 || err != nil {
		t.Errorf("Sweep = %d, %v, want 0, nil", n, err)
	}
	for _, key := range append(outside, dir+"plain") {
		rawHead(t, c, key)
	}
	if n, err := s.Usage(ctx, "", time.Now()); n != 5 || err != nil {
		t.Errorf(`Usage("") = %d, %v, want 5 (of "plain"), nil`, n, err)
	}
	m, err := s.Stat(ctx, "plain")
	if err != nil || m.Size != 5 || m.Owner != "" || !m.Expires.IsZero() || m.SHA256 != sha256.Sum256([]byte("plain")) {
		t.Errorf("Stat(plain) = %+v, %v", m, err)
	}

	// Metadata that does not parse is reported, not guessed at.
	rawPut(t, c, dir+"bad", []byte("bad"), map[string]string{"mcpfile-expires": "tomorrow"})
	if _, err := s.Stat(ctx, "bad"); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat of an object with bad metadata: %v, want an error", err)
	}
	if _, err := s.Usage(ctx, "", time.Now()); err == nil {
		t.Error("Usage with an unreadable object succeeded")
	}
	if n, err := s.Sweep(ctx, time.Now()); n != 0 || err == nil {
		t.Errorf("Sweep with an unreadable object = %d, %v, want 0 and an error", n, err)
	}
}

// TestDeleteIfMatch checks what Sweep relies on to delete an expired
// object only if it is still the object it read: the server refuses a
// DELETE If-Match another ETag, with 412.
func TestDeleteIfMatch(t *testing.T) {
	gw := server(t, "http")
	c := gw.client(nil)
	ctx := context.Background()
	key := prefix(t) + "x"
	rawPut(t, c, key, []byte("one"), nil)
	_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), IfMatch: aws.String(`"0123456789abcdef0123456789abcdef"`)})
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusPreconditionFailed {
		t.Errorf("DELETE If-Match another ETag: %v, want 412", err)
	}
	rawHead(t, c, key)
}

// TestNew builds the client from the environment, as a server would.
func TestNew(t *testing.T) {
	for _, gw := range servers(t) {
		t.Run(gw.name, func(t *testing.T) {
			dir := t.TempDir()
			for k, v := range map[string]string{
				"AWS_ENDPOINT_URL_S3":         gw.endpoint,
				"AWS_ENDPOINT_URL":            "",
				"AWS_REGION":                  "us-east-1",
				"AWS_ACCESS_KEY_ID":           accessKey,
				"AWS_SECRET_ACCESS_KEY":       secretKey,
				"AWS_SESSION_TOKEN":           "",
				"AWS_PROFILE":                 "",
				"AWS_CA_BUNDLE":               gw.caFile,
				"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
				"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
				"AWS_EC2_METADATA_DISABLED":   "true",
			} {
				t.Setenv(k, v)
				if v == "" {
					os.Unsetenv(k)
				}
			}
			ctx := context.Background()
			s, err := s3store.New(ctx, s3store.Options{Bucket: bucket, Prefix: prefix(t), UsePathStyle: true})
			if err != nil {
				t.Fatal(err)
			}
			body := []byte("from the environment")
			putBytes(t, s, "env", body)
			if m, err := s.Stat(ctx, "env"); err != nil || m.SHA256 != sha256.Sum256(body) {
				t.Errorf("Stat = %+v, %v", m, err)
			}

			if _, err := s3store.New(ctx, s3store.Options{Bucket: "no-such-bucket", UsePathStyle: true}); err == nil {
				t.Error("New of a missing bucket succeeded")
			}
			if _, err := s3store.New(ctx, s3store.Options{UsePathStyle: true}); err == nil {
				t.Error("New without a bucket succeeded")
			}
		})
	}
}

// TestWriterLosesRace: a writer whose ID is committed while it writes
// fails with ErrExists, at Write (when S3 answers early) or at Commit, and
// the object committed first is intact.
func TestWriterLosesRace(t *testing.T) {
	for _, gw := range servers(t) {
		t.Run(gw.name, func(t *testing.T) {
			ctx := context.Background()
			s := newStore(t, gw, s3store.Options{})
			const size = 4 << 20
			w, err := s.Create(ctx, "raced", store.Meta{Size: size})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			chunk := patterned(1 << 20)
			if _, err := w.Write(chunk); err != nil {
				t.Fatal(err)
			}
			putBytes(t, s, "raced", []byte("winner"))
			at := "Commit"
			for range size/len(chunk) - 1 {
				if _, err = w.Write(chunk); err != nil {
					at = "Write"
					break
				}
			}
			if err == nil {
				err = w.Commit(ctx)
			}
			t.Logf("the losing writer failed at %s: %v", at, err)
			if !errors.Is(err, store.ErrExists) {
				t.Errorf("losing writer: %v, want ErrExists", err)
			}
			r, err := s.Open(ctx, "raced")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if b, err := io.ReadAll(r); string(b) != "winner" || err != nil {
				t.Errorf("read %q, %v, want %q", b, err, "winner")
			}
		})
	}
}

// TestLargeObject streams 64 MiB in and out, and checks that the heap
// stays far below the object's size: neither Writer nor Reader holds it.
func TestLargeObject(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB through S3: skipped in -short mode")
	}
	for _, gw := range servers(t) {
		t.Run(gw.name, func(t *testing.T) {
			ctx := context.Background()
			s := newStore(t, gw, s3store.Options{})
			const (
				size  = 64 << 20
				bound = 8 << 20 // an eighth of the object
			)
			var peak heapPeak
			want := writeWatched(t, s, "large", store.Meta{Size: size, MediaType: "application/octet-stream"}, size, &peak, 4<<20, peak.sample, bound)
			buf := make([]byte, 256<<10)

			peak.start()
			r, err := s.Open(ctx, "large")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := sha256.New()
			if n, err := io.CopyBuffer(&sampler{got, 0, 4 << 20, peak.sample}, r, buf); n != size || err != nil {
				t.Fatalf("reading = %d, %v", n, err)
			}
			if !bytes.Equal(got.Sum(nil), want) {
				t.Error("the bytes read differ from the bytes written")
			}
			if got := peak.max(); got > bound {
				t.Errorf("reading %d MiB grew the heap by %d MiB, want under %d MiB", size>>20, got>>20, bound>>20)
			} else {
				t.Logf("reading %d MiB grew the heap by at most %d KiB", size>>20, got>>10)
			}
			if m, err := s.Stat(ctx, "large"); err != nil || !bytes.Equal(m.SHA256[:], want) {
				t.Errorf("Stat = %+v, %v, want the digest", m, err)
			}
		})
	}
}

// writeWatched writes size patterned bytes as the object id, with meta m,
// the way the upload handler does (in writes of half its buffer), and
// commits it. It starts peak, calls sample every every bytes, and fails t
// if the heap grew by more than bound. It returns the bytes' SHA-256.
func writeWatched(t *testing.T, s store.Store, id string, m store.Meta, size int64, peak *heapPeak, every int64, sample func(), bound uint64) []byte {
	t.Helper()
	ctx := context.Background()
	peak.start()
	w, err := s.Create(ctx, id, m)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	src := &countingPattern{left: size, every: every, tick: sample}
	want := sha256.New()
	buf := make([]byte, 256<<10) // half the upload handler's buffer
	if n, err := io.CopyBuffer(w, io.TeeReader(src, want), buf); n != size || err != nil {
		t.Fatalf("writing = %d, %v", n, err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := peak.max(); got > bound {
		t.Errorf("writing %d MiB grew the heap by %d MiB, want under %d MiB", size>>20, got>>20, bound>>20)
	} else {
		t.Logf("writing %d MiB grew the heap by at most %d KiB", size>>20, got>>10)
	}
	return want.Sum(nil)
}

// heapPeak records the most the heap grew over a base, sampled.
type heapPeak struct {
	base, peak uint64
}

func (h *heapPeak) start() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.base, h.peak = ms.HeapAlloc, 0
}

func (h *heapPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > h.base && ms.HeapAlloc-h.base > h.peak {
		h.peak = ms.HeapAlloc - h.base
	}
}

func (h *heapPeak) max() uint64 { h.sample(); return h.peak }

// countingPattern reads left patterned bytes, calling tick every every
// bytes.
type countingPattern struct {
	left, every, since int64
	tick               func()
}

func (c *countingPattern) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), c.left)]
	for i := range p {
		p[i] = byte(int64(i)*7 + c.left)
	}
	c.left -= int64(len(p))
	if c.since += int64(len(p)); c.since >= c.every {
		c.since = 0
		c.tick()
	}
	return len(p), nil
}

// sampler is a writer that calls tick every every bytes.
type sampler struct {
	w            io.Writer
	since, every int
	tick         func()
}

func (s *sampler) Write(p []byte) (int, error) {
	if s.since += len(p); s.since >= s.every {
		s.since = 0
		s.tick()
	}
	return s.w.Write(p)
}
