package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// Timeouts of the default HTTP client (see [Options.HTTPClient]).
const (
	dialTimeout           = 30 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 2 * time.Minute
)

// defaultTransport is the transport of the default HTTP client, shared so
// that uploads to one endpoint reuse connections.
var defaultTransport = sync.OnceValue(func() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout, // counted once the whole body is sent
		ExpectContinueTimeout: time.Second,
	}
})

// httpClient returns the client of o, or the default one, in a copy that
// follows no redirect.
func httpClient(o *Options) *http.Client {
	c := http.Client{Transport: defaultTransport()}
	if o.HTTPClient != nil {
		c = *o.HTTPClient
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// maxAnswer bounds how much of the endpoint's answer is read.
const maxAnswer = 64 << 10

// A sent is an upload the endpoint took: what was sent, and what the
// endpoint's answer reported of it.
type sent struct {
	size    int64
	sum     [sha256.Size]byte
	receipt receipt
}

// A receipt is the JSON body of a 2xx answer, as this project's endpoint
// writes it: {"size": …, "digest": {…}}. Both members may be absent.
type receipt struct {
	Size   *int64           `json:"size"`
	Digest *wire.FileDigest `json:"digest"`
}

// send uploads the size bytes of body as descriptor d (whose URL is u)
// says, and returns what the endpoint took.
func send(ctx context.Context, hc *http.Client, d wire.FileTransferDescriptor, u *url.URL, decl *declaration, body io.Reader) (*sent, error) {
	sr := &sendReader{r: body, left: decl.size, size: decl.size, h: sha256.New(), want: decl.sum}
	defer sr.stop() // once send returns, Body is not read again

	// The body: multipart (the fields, then the file part), or the bytes.
	var rd io.Reader = sr
	length := decl.size
	contentType := decl.mediaType
	if m := d.Multipart; m != nil {
		head, tail, ct, err := envelope(m, decl)
		if err != nil {
			return nil, err
		}
		rd = io.MultiReader(bytes.NewReader(head), sr, bytes.NewReader(tail))
		length += int64(len(head) + len(tail))
		contentType = ct
	}
	if length == 0 { // an empty PUT: check that Body is empty, and say Content-Length: 0
		if _, err := sr.Read(nil); err != nil && err != io.EOF {
			return nil, err
		}
		rd = http.NoBody
	}
	req, err := http.NewRequestWithContext(ctx, d.Method, d.URL, rd) // as given: a presigned URL is signed byte for byte
	if err != nil {
		return nil, fmt.Errorf("transfer/client: the upload request to %s: %v", redact(u), unwrapURLError(err))
	}
	req.ContentLength = length
	if req.Header, err = requestHeaders(d, u, length, contentType); err != nil {
		return nil, err
	}

	res, err := hc.Do(req)
	if err != nil {
		if err := sr.failure(); err != nil {
			return nil, err // the file, not the network
		}
		return nil, fmt.Errorf("transfer/client: uploading to %s: %v", redact(u), unwrapURLError(err))
	}
	defer res.Body.Close()
	if err := sr.failure(); err != nil {
		return nil, err // the endpoint answered a body the client broke off
	}
	switch {
	case res.StatusCode/100 == 3:
		where := "elsewhere"
		if loc, err := res.Location(); err == nil {
			where = "to " + redact(loc)
		}
		return nil, bad("the upload endpoint answered %d %s, a redirect %s, which was not followed (SEP-2631 upload endpoints do not redirect)", res.StatusCode, http.StatusText(res.StatusCode), where)
	case res.StatusCode/100 != 2:
		answer, _ := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
		why, code := reason(res.Header.Get("Content-Type"), answer, secrets(d))
		return nil, &StatusError{StatusCode: res.StatusCode, Reason: why, Code: code}
	}
	s := &sent{size: decl.size}
	var done bool
	if done, s.sum = sr.result(); !done {
		return nil, bad("the upload endpoint answered %d %s before the whole file was sent", res.StatusCode, http.StatusText(res.StatusCode))
	}
	answer, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("transfer/client: reading the answer of %s: %v", redact(u), unwrapURLError(err))
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" {
		if err := json.Unmarshal(answer, &s.receipt); err != nil {
			return nil, bad("the upload endpoint answered %d %s with JSON that is not an upload receipt ({\"size\": …, \"digest\": …})", res.StatusCode, http.StatusText(res.StatusCode))
		}
	}
	return s, nil
}

// envelope returns what goes before and after the file's bytes in a
// multipart/form-data body, and the body's Content-Type: the descriptor's
// fields in name order, then the file part, named m.FileField, with the
// declared file name and media type. Every field precedes the file, as
// the upload endpoint requires of the token.
func envelope(m *wire.Multipart, d *declaration) (head, tail []byte, contentType string, err error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m.Fields {
			if !yield(k) {
				return
			}
		}
	}) {
		if err := mw.WriteField(k, m.Fields[k]); err != nil {
			return nil, nil, "", err // a bytes.Buffer does not fail
		}
	}
	h := make(textproto.MIMEHeader)
	filename := printable(d.name)
	if filename == "" {
		filename = "file"
	}
	h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(m.FileField)+`"; filename="`+quoteEscaper.Replace(filename)+`"`)
	h.Set("Content-Type", d.mediaType)
	if _, err := mw.CreatePart(h); err != nil {
		return nil, nil, "", err
	}
	head = bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := mw.Close(); err != nil {
		return nil, nil, "", err
	}
	return head, bytes.Clone(buf.Bytes()), mw.FormDataContentType(), nil
}

// quoteEscaper escapes a quoted string of a Content-Disposition header,
// as mime/multipart does.
var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// printable is s without control characters and invalid UTF-8.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
}

// hopByHop are headers about the connection, which a descriptor may not
// set: the transport decides them.
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// requestHeaders returns the headers of the upload request: the
// descriptor's, checked, and the Content-Type. A descriptor may not set a
// header about the connection, nor a Host or Content-Length other than
// the request's own (S3 presigned requests sign Content-Length: it must
// then be the length sent). For a multipart body the Content-Type is
// ours, with its boundary; the descriptor's may only say
// multipart/form-data. For a raw body it is the descriptor's, or else the
// declared media type.
func requestHeaders(d wire.FileTransferDescriptor, u *url.URL, length int64, contentType string) (http.Header, error) {
	h := make(http.Header, len(d.Headers)+1)
	for k, v := range d.Headers {
		ck := http.CanonicalHeaderKey(k)
		switch {
		case !headerName(k):
			return nil, bad("%s answered upload.headers with %s, which is not a header name", authorize, quoteShort(k))
		case !headerValue(v):
			return nil, bad("%s answered upload.headers with a value of %q that is not a header value (control characters)", authorize, ck)
		case h[ck] != nil:
			return nil, bad("%s answered upload.headers with %q twice (in different cases)", authorize, ck)
		case slices.Contains(hopByHop, ck):
			return nil, bad("%s answered upload.headers with %q, which the client sets itself", authorize, ck)
		case ck == "Host" && !strings.EqualFold(v, u.Host):
			return nil, bad("%s answered upload.headers with a Host other than upload.url's", authorize)
		case ck == "Content-Length" && v != strconv.FormatInt(length, 10):
			return nil, bad("%s answered upload.headers with Content-Length %s, but the body is %d bytes", authorize, quoteShort(v), length)
		case ck == "Content-Type" && d.Multipart != nil:
			if mt, _, err := mime.ParseMediaType(v); err != nil || mt != "multipart/form-data" {
				return nil, bad("%s answered upload.multipart with upload.headers Content-Type %s (want multipart/form-data)", authorize, quoteShort(v))
			}
		}
		h[ck] = []string{v}
	}
	delete(h, "Host")           // the URL's
	delete(h, "Content-Length") // req.ContentLength
	if d.Multipart != nil || h.Get("Content-Type") == "" {
		h.Set("Content-Type", contentType)
	}
	return h, nil
}

// headerName reports whether s is an HTTP header name (an RFC 9110 token).
func headerName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// headerValue reports whether s can be sent as a header value: no control
// character but tab.
func headerValue(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// unwrapURLError returns the error inside a *url.Error, whose text would
// repeat the URL, query (a signature) and all.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// maxReason bounds the reason of a StatusError.
const maxReason = 200

// reason returns the reason of a refusal whose body is b, and its
// machine code: the "error" and "reason" of {"error": …, "reason": …}, or
// the Code and Message of an S3 <Error> and its Code; "" when it has
// neither. What secrets holds is cut out of the reason.
func reason(contentType string, b []byte, secrets []string) (why, code string) {
	mt, _, _ := mime.ParseMediaType(contentType)
	var s string
	switch {
	case mt == "application/json":
		var v struct {
			Error  string `json:"error"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(b, &v) == nil {
			s, code = v.Error, v.Reason
		}
	case mt == "application/xml" || mt == "text/xml":
		var v struct {
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		}
		if xml.Unmarshal(b, &v) == nil && v.Code != "" {
			s, code = v.Code+": "+v.Message, v.Code
		}
	}
	for _, x := range secrets {
		s = strings.ReplaceAll(s, x, "[redacted]")
	}
	if len(s) > maxReason {
		s = printable(s[:maxReason]) + "…"
	}
	if len(code) > maxCode || !isCode(code) {
		code = ""
	}
	return s, code
}

// maxCode bounds the code of a StatusError.
const maxCode = 64

// isCode reports whether s is a machine code: letters, digits, '.', '-'
// and '_' only, which can hold no sentence and no capability.
func isCode(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// minSecretLen is the length from which a value of the descriptor is cut
// out of a reason: shorter ones are not capabilities, and cutting them
// would garble the text.
const minSecretLen = 8

// secrets returns the values of descriptor d that may be capabilities:
// its form fields, its header values, its URL's path and query values.
func secrets(d wire.FileTransferDescriptor) []string {
	var out []string
	add := func(s string) {
		if len(s) >= minSecretLen {
			out = append(out, s)
		}
	}
	if d.Multipart != nil {
		for _, v := range d.Multipart.Fields {
			add(v)
		}
	}
	for _, v := range d.Headers {
		add(v)
		if _, cred, ok := strings.Cut(v, " "); ok {
			add(cred) // "Bearer <token>"
		}
	}
	if u, err := url.Parse(d.URL); err == nil {
		for _, seg := range strings.Split(u.Path, "/") {
			add(seg)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	// Longest first, so that a secret is not cut in part by one it holds.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// A sendReader is the file's part of the request body: exactly size bytes
// of r, hashed as they go. It holds back its last bytes until it has
// checked that r ends there and, when a digest was declared, that the
// bytes have it: a body that is shorter, longer or other than declared
// never reaches the endpoint whole. It is safe for the transport's
// goroutine to read while another asks for its result.
type sendReader struct {
	mu   sync.Mutex
	r    io.Reader
	size int64
	left int64
	h    hash.Hash
	want *[sha256.Size]byte // the declared sum, or nil
	sum  [sha256.Size]byte  // once done
	done bool               // all size bytes read, and checked
	err  error              // sticky
}

// errStopped is what a sendReader returns once send has returned.
var errStopped = errors.New("transfer/client: the upload is over")

func (s *sendReader) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.err != nil:
		return 0, s.err
	case s.done:
		return 0, io.EOF
	}
	n := 0
	if s.left > 0 {
		if int64(len(p)) > s.left {
			p = p[:s.left]
		}
		var err error
		n, err = s.r.Read(p)
		s.h.Write(p[:n])
		s.left -= int64(n)
		switch {
		case s.left > 0 && err != nil:
			s.err = bodyError(s.size-s.left, s.size, err)
			return 0, s.err
		case s.left > 0:
			return n, nil
		}
	}
	// p[:n] are the last bytes: they go only if the file ends here and has
	// the declared digest.
	if err := ends(s.r, s.size); err != nil {
		s.err = err
		return 0, s.err
	}
	s.h.Sum(s.sum[:0])
	if s.want != nil && s.sum != *s.want {
		s.err = errors.New("transfer/client: the file changed after it was hashed: the bytes read to send it do not have the declared digest")
		return 0, s.err
	}
	s.done = true
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// result reports whether all the bytes were read and checked, and their
// sum.
func (s *sendReader) result() (done bool, sum [sha256.Size]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done, s.sum
}

// failure returns the error of reading the file, if any.
func (s *sendReader) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == errStopped {
		return nil
	}
	return s.err
}

// stop makes every later Read fail without reading r: when it returns, r
// is no longer read (the transport may still hold the body after an early
// answer).
func (s *sendReader) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = errStopped
	}
}
