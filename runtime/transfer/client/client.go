package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// Enable lets c send files/authorizeUpload and files/authorizeDownload.
// Call it once on the client, before Connect; [Upload], [UploadPath] and
// [AuthorizeDownload] fail on a session of a client without it.
func Enable(c *mcp.Client) error {
	if err := mcp.AddSendingCustomMethod[*wire.AuthorizeUploadParams, *wire.AuthorizeUploadResult](c, wire.MethodAuthorizeUpload); err != nil {
		return fmt.Errorf("transfer/client: %w", err)
	}
	if err := mcp.AddSendingCustomMethod[*wire.AuthorizeDownloadParams, *wire.AuthorizeDownloadResult](c, wire.MethodAuthorizeDownload); err != nil {
		return fmt.Errorf("transfer/client: %w", err)
	}
	return nil
}

// A File is what [Upload] uploads: Size bytes read from Body.
type File struct {
	// Name is the file's name, declared to the server (which may
	// sanitize it) and sent as the filename of a multipart upload. It may
	// be empty.
	Name string
	// MediaType is the file's media type, such as "application/pdf".
	// Empty means the type http.DetectContentType finds in the first 512
	// bytes, without parameters: pass the type when you know it, since
	// that function knows few formats (JSON is text/plain to it, an Office
	// document application/zip).
	MediaType string
	// Size is the file's length in bytes: exactly what Body must yield.
	Size int64
	// Body yields the bytes. When it is an io.ReadSeeker that can seek
	// (Seek(0, io.SeekCurrent) succeeds), Upload reads it twice: once to
	// declare its SHA-256, then from the same offset to send it.
	// Otherwise it is read once, and no digest is declared. Upload never
	// closes it, and has stopped reading it when it returns. It may be nil
	// when Size is 0.
	Body io.Reader
}

// Options configure [Upload] and [UploadPath]. The zero value (and a nil
// *Options) is ready to use.
type Options struct {
	// HTTPClient sends the upload. Nil means a client with no overall
	// timeout, since a large file may take long (bound an upload with the
	// context instead), and with timeouts on the steps that should be
	// quick: 30s to connect, 10s for the TLS handshake, 2 minutes for the
	// answer once the whole body is sent; proxies are taken from the
	// environment. Whatever the client, redirects are not followed (Upload
	// uses a copy with its own CheckRedirect): SEP-2631 upload endpoints
	// do not redirect, and a redirected upload is refused.
	HTTPClient *http.Client
	// AllowHTTP lets an upload go to an http:// URL. Without it only
	// https:// is used, even for a loopback address: SEP-2631 says clients
	// must not follow upload descriptors over insecure transports, and a
	// loopback URL from a remote server would aim the upload, with headers
	// and form fields of the server's choosing, at a plaintext service on
	// the user's own machine. Set it for a server you run locally.
	AllowHTTP bool
}

// ErrBadAnswer is the error (for errors.Is) of an answer that breaks
// SEP-2631 or contradicts what the client declared or sent: a
// files/authorizeUpload result, an upload descriptor, or the upload
// endpoint's answer. The error's text says which member and why.
var ErrBadAnswer = errors.New("transfer/client: bad answer from the server")

// A badAnswer is an error that is [ErrBadAnswer].
type badAnswer struct{ msg string }

func (e *badAnswer) Error() string        { return "transfer/client: " + e.msg }
func (e *badAnswer) Is(target error) bool { return target == ErrBadAnswer }

func bad(format string, args ...any) error { return &badAnswer{fmt.Sprintf(format, args...)} }

// A StatusError is an upload the endpoint refused: it answered with a
// status other than 2xx (and other than a redirect, which is
// [ErrBadAnswer]).
type StatusError struct {
	// StatusCode is the answer's status, such as 403.
	StatusCode int
	// Reason is the endpoint's reason, when its answer has one: the
	// "error" of this project's endpoint ({"error": …}), or the Code
	// and Message of an S3 error. At most 200 bytes, with what the
	// descriptor holds (the token, the signature) cut out.
	Reason string
	// Code is the endpoint's machine code for the refusal, when its answer
	// has one: the "reason" of this project's endpoint ({"error": …,
	// "reason": "quotaExceeded"}, one of the wire.Reason constants), or
	// the Code of an S3 error. Unlike Reason it is stable, for programs to
	// compare.
	Code string
}

// Error returns the status, and the reason quoted.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("transfer/client: the upload endpoint refused the upload: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Reason != "" {
		s += fmt.Sprintf(": %q", e.Reason)
	}
	return s
}

// UploadPath uploads the regular file at path with [Upload]. It declares
// the file's base name, its size, its SHA-256 (read once to hash it, then
// again to send it; the file is never held in memory) and mediaType, or
// when mediaType is empty the type found in its first 512 bytes (see
// [File.MediaType]).
func UploadPath(ctx context.Context, cs *mcp.ClientSession, path, mediaType string, o *Options) (wire.FileValue, error) {
	f, err := os.Open(path)
	if err != nil {
		return wire.FileValue{}, fmt.Errorf("transfer/client: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return wire.FileValue{}, fmt.Errorf("transfer/client: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return wire.FileValue{}, fmt.Errorf("transfer/client: %q is not a regular file (it is %v)", path, fi.Mode().Type())
	}
	return Upload(ctx, cs, File{Name: filepath.Base(path), MediaType: mediaType, Size: fi.Size(), Body: f}, o)
}

// Upload uploads f to the server of cs, out of band (SEP-2631), and
// returns the file's metadata: its URI (mcp-file:…) is what to put in a
// tools/call argument or an elicitation answer in place of a data: URI.
//
// The steps, each of which can fail with its own error:
//
//  1. Declare: the media type (detected when empty) and, for a seekable
//     Body, the SHA-256, hashed in one streamed pass.
//  2. Authorize: files/authorizeUpload with name, mimeType, size and
//     digest. A refusal is the server's JSON-RPC error, wrapped, so that
//     errors.As finds the *jsonrpc.Error and [wire.ErrorDataOf] its
//     data (reason maxSizeExceeded and so on).
//  3. Check the file: the URI is there and mcp-file:, and the size, the
//     media type and the digest the server answered are those declared.
//  4. Check the descriptor: transport "https", method POST or PUT, a
//     well-formed multipart member, an https URL (see
//     [Options.AllowHTTP]) without user info, not expired.
//  5. Send: one request as the descriptor says, streamed (see the package
//     doc), with an exact Content-Length. The last bytes are sent only
//     once Body has ended at Size bytes and, if a digest was declared, the
//     bytes sent have it: a Body that is shorter, longer, or changed since
//     it was hashed never reaches the endpoint whole.
//  6. Check the receipt: a 2xx answer (a redirect is refused, any other
//     status is a [*StatusError]) that came after the whole file was sent;
//     if it reports a size or a sha-256 digest, they are those of the bytes
//     sent, as is any digest the server announced in step 3.
//
// The FileValue is the server's, with the members it left out filled in
// with what was declared and sent: Size, MimeType and Digest are always
// set. Failures of the server's answers are [ErrBadAnswer]. No error holds
// a byte of the file, the upload token, or the descriptor's URL beyond
// its scheme and host.
func Upload(ctx context.Context, cs *mcp.ClientSession, f File, o *Options) (wire.FileValue, error) {
	if o == nil {
		o = new(Options)
	}
	if f.Size < 0 {
		return wire.FileValue{}, fmt.Errorf("transfer/client: File.Size %d is negative", f.Size)
	}
	if f.Body == nil {
		if f.Size > 0 {
			return wire.FileValue{}, fmt.Errorf("transfer/client: File.Body is nil, but File.Size is %d", f.Size)
		}
		f.Body = bytes.NewReader(nil)
	}

	// 1. Declare.
	d, body, err := declare(f)
	if err != nil {
		return wire.FileValue{}, err
	}

	// 2. Authorize.
	res, err := mcp.CallCustomMethod[*wire.AuthorizeUploadParams, *wire.AuthorizeUploadResult](ctx, cs, wire.MethodAuthorizeUpload, d.params())
	if err != nil {
		return wire.FileValue{}, fmt.Errorf("transfer/client: %w", err) // go-sdk's text names the method
	}
	if res == nil {
		return wire.FileValue{}, bad("%s answered no result", wire.MethodAuthorizeUpload)
	}

	// 3. Check the file.
	announced, err := checkFile(res.File, d)
	if err != nil {
		return wire.FileValue{}, err
	}

	// 4. Check the descriptor.
	u, err := checkDescriptor(res.Upload, o.AllowHTTP, time.Now())
	if err != nil {
		return wire.FileValue{}, err
	}

	// 5. Send.
	out, err := send(ctx, httpClient(o), res.Upload, u, d, body)
	if err != nil {
		return wire.FileValue{}, err
	}

	// 6. Check the receipt.
	if err := checkReceipt(out, announced); err != nil {
		return wire.FileValue{}, err
	}

	fv := res.File
	if fv.Size == nil {
		fv.Size = &d.size
	}
	if fv.MimeType == "" {
		fv.MimeType = d.mediaType
	}
	if fv.Digest == nil {
		dg := wire.SHA256Digest(out.sum)
		fv.Digest = &dg
	}
	return fv, nil
}

// A declaration is what the client tells files/authorizeUpload.
type declaration struct {
	name      string
	mediaType string
	size      int64
	sum       *[sha256.Size]byte // nil: no digest declared
}

func (d *declaration) params() *wire.AuthorizeUploadParams {
	p := &wire.AuthorizeUploadParams{Name: d.name, MimeType: d.mediaType, Size: &d.size}
	if d.sum != nil {
		dg := wire.SHA256Digest(*d.sum)
		p.Digest = &dg
	}
	return p
}

// sniffLen is how much of a file http.DetectContentType looks at.
const sniffLen = 512

// declare returns the declaration of f and the reader of its bytes to
// send: f.Body, sought back after hashing, or with the bytes read to
// detect its media type put back in front.
func declare(f File) (*declaration, io.Reader, error) {
	d := &declaration{name: f.Name, mediaType: f.MediaType, size: f.Size}
	if d.mediaType != "" {
		if _, _, err := mime.ParseMediaType(d.mediaType); err != nil || !headerValue(d.mediaType) {
			return nil, nil, fmt.Errorf("transfer/client: File.MediaType %q is not a media type (want type/subtype, such as application/pdf)", d.mediaType)
		}
	}
	body := f.Body
	var head []byte
	if rs, ok := f.Body.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			sum, h, err := hashBody(rs, f.Size)
			if err != nil {
				return nil, nil, err
			}
			if _, err := rs.Seek(start, io.SeekStart); err != nil {
				return nil, nil, fmt.Errorf("transfer/client: seeking back to send the file after hashing it: %w", err)
			}
			d.sum, head = &sum, h
		}
	}
	if d.mediaType == "" {
		if d.sum == nil { // read the first bytes, and put them back
			head = make([]byte, min(f.Size, sniffLen))
			if n, err := io.ReadFull(body, head); err != nil {
				return nil, nil, bodyError(int64(n), f.Size, err)
			}
			body = io.MultiReader(bytes.NewReader(head), body)
		}
		d.mediaType = detect(head)
	}
	return d, body, nil
}

// hashBody returns the SHA-256 of the size bytes of r, which must end
// there, and their first sniffLen bytes.
func hashBody(r io.Reader, size int64) (sum [sha256.Size]byte, head []byte, err error) {
	h := sha256.New()
	hw := &headWriter{}
	n, err := io.CopyN(io.MultiWriter(h, hw), r, size)
	if err != nil {
		return sum, nil, bodyError(n, size, err)
	}
	if err := ends(r, size); err != nil {
		return sum, nil, err
	}
	h.Sum(sum[:0])
	return sum, hw.b, nil
}

// A headWriter keeps the first sniffLen bytes written to it.
type headWriter struct{ b []byte }

func (w *headWriter) Write(p []byte) (int, error) {
	if k := sniffLen - len(w.b); k > 0 {
		w.b = append(w.b, p[:min(k, len(p))]...)
	}
	return len(p), nil
}

// detect returns the media type of a file that starts with head, without
// parameters (http.DetectContentType labels any text charset=utf-8, which
// a server may check and the bytes need not be).
func detect(head []byte) string {
	mt, _, err := mime.ParseMediaType(http.DetectContentType(head))
	if err != nil {
		return "application/octet-stream"
	}
	return mt
}

// ends reports an error unless r, from which size bytes were read, has
// no more (it reads one byte to find out).
func ends(r io.Reader, size int64) error {
	var one [1]byte
	switch n, err := io.ReadFull(r, one[:]); {
	case n > 0:
		return fmt.Errorf("transfer/client: the file is longer than File.Size %d", size)
	case err != io.EOF:
		return fmt.Errorf("transfer/client: reading the file: %w", err)
	}
	return nil
}

// bodyError is the error of a read of the file that stopped after n of
// size bytes.
func bodyError(n, size int64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("transfer/client: the file ended after %d of File.Size %d bytes", n, size)
	}
	return fmt.Errorf("transfer/client: reading the file: %w", err)
}
