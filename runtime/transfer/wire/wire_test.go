package wire

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// specVectors is the SEPs' example JSON, in testdata/spec/vectors at the
// module root.
var specVectors = filepath.Join("..", "..", "..", "testdata", "spec", "vectors")

// vector returns the JSON of the SEP-2631 example name, or of its member
// at path (such as "result" or "file").
func vector(t *testing.T, name string, path ...string) json.RawMessage {
	t.Helper()
	dir := filepath.Join(specVectors, "sep2631-final")
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	raw := json.RawMessage(b)
	for _, k := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var ok bool
		if raw, ok = m[k]; !ok {
			t.Fatalf("%s: no member %q", name, k)
		}
	}
	return raw
}

// decode returns the JSON value of b, for comparison.
func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

// roundTrip unmarshals want into a new T (strictly: no unknown members),
// marshals it back, and wants the same JSON value as want plus extra
// members (the resultType the vectors lack). It returns the T.
func roundTrip[T any](t *testing.T, want json.RawMessage, extra map[string]any) *T {
	t.Helper()
	v := new(T)
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("unmarshal into %T: %v", v, err)
	}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	w := decode(t, want)
	for k, x := range extra {
		w.(map[string]any)[k] = x
	}
	if g := decode(t, got); !reflect.DeepEqual(g, w) {
		t.Errorf("%T does not round-trip:\n got %s\nwant %s", v, got, want)
	}
	return v
}

// complete is the member the results add to the vectors, which predate
// resultType (protocol 2026-07-28).
var complete = map[string]any{"resultType": "complete"}

func TestVectorFileValue(t *testing.T) {
	fv := roundTrip[FileValue](t, vector(t, "file-value.json"), nil)
	if fv.Size == nil || *fv.Size != 248123 || fv.Digest == nil || fv.Digest.Algorithm != DigestSHA256 {
		t.Errorf("decoded %+v", fv)
	}
	if _, err := fv.Digest.SHA256(); err != nil {
		t.Errorf("the vector's digest: %v", err)
	}
}

func TestVectorContentBlockFile(t *testing.T) {
	roundTrip[FileValue](t, vector(t, "content-block-file.json", "file"), nil)
}

func TestVectorAuthorizedFile(t *testing.T) {
	af := roundTrip[AuthorizedFile](t, vector(t, "authorized-file.json"), nil)
	want := time.Date(2026, 4, 20, 18, 45, 0, 0, time.UTC)
	if af.Download == nil || !af.Download.ExpiresAt.Equal(want) || af.Download.Method != TransferGET || af.Download.Transport != TransportHTTPS {
		t.Errorf("download %+v", af.Download)
	}
}

func TestVectorAuthorizeUpload(t *testing.T) {
	p := roundTrip[AuthorizeUploadParams](t, vector(t, "files-authorizeUpload-request.json", "params"), nil)
	if p.Name != "report.pdf" || p.Size == nil || *p.Size != 248123 || p.Meta != nil {
		t.Errorf("params %+v", p)
	}
	r := roundTrip[AuthorizeUploadResult](t, vector(t, "files-authorizeUpload-response.json", "result"), complete)
	if r.ResultType != "" {
		t.Errorf("ResultType %q decoded from a vector without it", r.ResultType)
	}
	if m := r.Upload.Multipart; m == nil || m.FileField != "file" || m.Fields["token"] != "abc123" || r.Upload.Method != TransferPOST {
		t.Errorf("upload %+v", r.Upload)
	}
}

func TestVectorAuthorizeDownload(t *testing.T) {
	p := roundTrip[AuthorizeDownloadParams](t, vector(t, "files-authorizeDownload-request.json", "params"), nil)
	if p.URI != "mcp-file://server/file_01HYZA" {
		t.Errorf("params %+v", p)
	}
	roundTrip[AuthorizeDownloadResult](t, vector(t, "files-authorizeDownload-response.json", "result"), complete)
}

func TestVectorErrorData(t *testing.T) {
	want := vector(t, "error-data-max-size-exceeded.json")
	d := roundTrip[ErrorData](t, want, nil)
	if d.Reason != ReasonMaxSizeExceeded || *d.MaxSize != 10485760 || *d.ActualSize != 24812345 {
		t.Errorf("decoded %+v", d)
	}

	max, actual := int64(10485760), int64(24812345)
	e := InvalidFileError("file too large", ErrorData{Reason: ReasonMaxSizeExceeded, MaxSize: &max, ActualSize: &actual})
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	wire := map[string]any{"code": float64(-32602), "message": "file too large", "data": decode(t, want)}
	if g := decode(t, b); !reflect.DeepEqual(g, wire) {
		t.Errorf("error marshals to %s, want the code -32602 and the vector's data", b)
	}
	if got, ok := ErrorDataOf(error(e)); !ok || !reflect.DeepEqual(got, *d) {
		t.Errorf("ErrorDataOf = %+v, %v", got, ok)
	}
}

func TestInvalidFileErrorDefaults(t *testing.T) {
	e := InvalidFileError("", ErrorData{Reason: ReasonDigestMismatch})
	if e.Code != jsonrpc.CodeInvalidParams || e.Message != "invalid file: digestMismatch" || string(e.Data) != `{"reason":"digestMismatch"}` {
		t.Errorf("got %+v (data %s)", e, e.Data)
	}
	if _, ok := ErrorDataOf(errors.New("plain")); ok {
		t.Error("ErrorDataOf of a plain error")
	}
	if _, ok := ErrorDataOf(&jsonrpc.Error{Code: -32602, Message: "m", Data: json.RawMessage(`"x"`)}); ok {
		t.Error("ErrorDataOf of data that is no ErrorData")
	}
}

// A size of 0 (an empty file) is not the absence of a size.
func TestSizeZeroRoundTrips(t *testing.T) {
	roundTrip[FileValue](t, json.RawMessage(`{"uri":"mcp-file://s/f","size":0}`), nil)
	roundTrip[FileValue](t, json.RawMessage(`{"uri":"mcp-file://s/f"}`), nil)
	roundTrip[AuthorizeUploadParams](t, json.RawMessage(`{"size":0}`), nil)
	roundTrip[ErrorData](t, json.RawMessage(`{"reason":"maxSizeExceeded","maxSize":0,"actualSize":1}`), nil)
}

func TestExpiresAtOmittedWhenZero(t *testing.T) {
	b, err := json.Marshal(FileTransferDescriptor{Transport: TransportHTTPS, Method: TransferPUT, URL: "https://u.example/x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"transport":"https","method":"PUT","url":"https://u.example/x"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestResultTypeKept(t *testing.T) {
	b, err := json.Marshal(&AuthorizeDownloadResult{ResultType: "input_required"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"resultType":"input_required"`) {
		t.Errorf("got %s", b)
	}
	b, err = json.Marshal(AuthorizeUploadResult{}) // a value marshals as a pointer does
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"resultType":"complete"`) {
		t.Errorf("got %s", b)
	}
}

func TestDigestRoundTrip(t *testing.T) {
	for _, tc := range []struct{ content, value string }{
		// sha256sum of the content, in base64url without padding
		{"hello", "LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ"},
		{"", "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"},
	} {
		sum := sha256.Sum256([]byte(tc.content))
		d := SHA256Digest(sum)
		if d.Algorithm != "sha-256" || d.Value != tc.value {
			t.Errorf("SHA256Digest(sha256(%q)) = %+v, want value %s", tc.content, d, tc.value)
		}
		got, err := d.SHA256()
		if err != nil || got != sum {
			t.Errorf("%+v.SHA256() = %x, %v; want %x", d, got, err, sum)
		}
		if got, err := (FileDigest{Algorithm: "SHA-256", Value: tc.value}).SHA256(); err != nil || got != sum {
			t.Errorf("algorithm SHA-256: %x, %v", got, err)
		}
	}
}

func TestDigestRejected(t *testing.T) {
	good := SHA256Digest(sha256.Sum256([]byte("hello"))).Value
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name string
		d    FileDigest
		want string // in the error
	}{
		{"other algorithm", FileDigest{"sha-512", good}, `"sha-512" is not supported (want "sha-256")`},
		{"long algorithm", FileDigest{long, good}, `"xxxxxxxxxxxx"… is not supported`},
		{"empty", FileDigest{"sha-256", ""}, `is 0 characters long (want 43 characters of base64url without padding)`},
		{"padded", FileDigest{"sha-256", good + "="}, `is 44 characters long`},
		{"std alphabet", FileDigest{"sha-256", strings.NewReplacer("-", "+", "_", "/").Replace(good)}, `is not base64url without padding`},
		{"other bytes", FileDigest{"sha-256", strings.Repeat("ab", 21) + "A"}, ""}, // 43 chars that decode: no error
		{"bad last char", FileDigest{"sha-256", good[:42] + "D"}, `is not base64url without padding`},
		{"long value", FileDigest{"sha-256", long}, `"xxxxxxxxxxxx"… is 1000 characters long`},
	} {
		_, err := tc.d.SHA256()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %s", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), strings.Repeat("x", shortLen+1)) {
			t.Errorf("%s: error quotes more than %d bytes: %v", tc.name, shortLen, err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the transport's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The types work with go-sdk's custom methods, the results carry
// resultType "complete" on the wire, and an InvalidFileError reaches the
// client with its data.
func TestCustomMethods(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	impl := &mcp.Implementation{Name: "wire-test", Version: "v0"}
	size := int64(5)
	file := FileValue{URI: "mcp-file://server/file_1", Name: "hello.txt", MimeType: "text/plain", Size: &size}
	d := SHA256Digest(sha256.Sum256([]byte("hello")))
	file.Digest = &d
	expires := time.Date(2026, 4, 20, 18, 45, 0, 0, time.UTC)

	server := mcp.NewServer(impl, nil)
	if err := mcp.AddReceivingCustomMethod(server, MethodAuthorizeUpload,
		func(ctx context.Context, ss *mcp.ServerSession, p *AuthorizeUploadParams) (*AuthorizeUploadResult, error) {
			if p.Size != nil && *p.Size > 4 {
				max := int64(4)
				return nil, InvalidFileError("file too large", ErrorData{Reason: ReasonMaxSizeExceeded, MaxSize: &max, ActualSize: p.Size})
			}
			return &AuthorizeUploadResult{File: FileValue{URI: "mcp-file://server/file_2"}, Upload: FileTransferDescriptor{Transport: TransportHTTPS, Method: TransferPUT, URL: "https://u.example/"}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddReceivingCustomMethod(server, MethodAuthorizeDownload,
		func(ctx context.Context, ss *mcp.ServerSession, p *AuthorizeDownloadParams) (*AuthorizeDownloadResult, error) {
			if p.URI != file.URI {
				return nil, InvalidFileError("unknown file URI", ErrorData{Reason: ReasonNotFound})
			}
			return &AuthorizeDownloadResult{File: file, Download: FileTransferDescriptor{Transport: TransportHTTPS, Method: TransferGET, URL: "https://d.example/x", ExpiresAt: expires}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(impl, nil)
	if err := mcp.AddSendingCustomMethod[*AuthorizeUploadParams, *AuthorizeUploadResult](client, MethodAuthorizeUpload); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*AuthorizeDownloadParams, *AuthorizeDownloadResult](client, MethodAuthorizeDownload); err != nil {
		t.Fatal(err)
	}

	var logged syncBuffer
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, &mcp.LoggingTransport{Transport: st, Writer: &logged}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := mcp.CallCustomMethod[*AuthorizeDownloadParams, *AuthorizeDownloadResult](ctx, cs, MethodAuthorizeDownload, &AuthorizeDownloadParams{URI: file.URI})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResultType != ResultComplete {
		t.Errorf("resultType %q received, want %q", res.ResultType, ResultComplete)
	}
	if !reflect.DeepEqual(res.File, file) || !res.Download.ExpiresAt.Equal(expires) {
		t.Errorf("received %+v", res)
	}
	if got, err := res.File.Digest.SHA256(); err != nil || got != sha256.Sum256([]byte("hello")) {
		t.Errorf("received digest: %x, %v", got, err)
	}

	up, err := mcp.CallCustomMethod[*AuthorizeUploadParams, *AuthorizeUploadResult](ctx, cs, MethodAuthorizeUpload, &AuthorizeUploadParams{Size: new(int64)})
	if err != nil {
		t.Fatal(err)
	}
	if up.ResultType != ResultComplete || up.File.URI != "mcp-file://server/file_2" {
		t.Errorf("received %+v", up)
	}

	_, err = mcp.CallCustomMethod[*AuthorizeUploadParams, *AuthorizeUploadResult](ctx, cs, MethodAuthorizeUpload, &AuthorizeUploadParams{Size: &size})
	ed, ok := ErrorDataOf(err)
	var je *jsonrpc.Error
	if !ok || ed.Reason != ReasonMaxSizeExceeded || *ed.MaxSize != 4 || *ed.ActualSize != 5 || !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("error %v: data %+v, %v", err, ed, ok)
	}

	// On the wire: both results written by the server with resultType.
	// The logging transport may log a write after the client has read it:
	// wait for both lines.
	for deadline := time.Now().Add(5 * time.Second); strings.Count(logged.String(), `"file":`) < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	var results int
	for line := range strings.Lines(logged.String()) {
		msg, ok := strings.CutPrefix(line, "write: ")
		if !ok || !strings.Contains(msg, `"file":`) {
			continue
		}
		results++
		var m struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal([]byte(msg), &m); err != nil {
			t.Fatalf("%v: %s", err, msg)
		}
		if m.Result["resultType"] != "complete" {
			t.Errorf("result without resultType complete on the wire: %s", msg)
		}
	}
	if results != 2 {
		t.Errorf("%d results with a file on the wire, want 2:\n%s", results, logged.String())
	}
}
