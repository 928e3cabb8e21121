package client

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// authorizeDownload is the method whose answers download errors name.
const authorizeDownload = wire.MethodAuthorizeDownload

// AuthorizeDownload asks the server of cs for a download of the file at
// uri (an mcp-file: URI a tool returned). A JSON-RPC error (an unknown or
// expired URI) is returned wrapped, so that [wire.ErrorDataOf] reads its
// data. The client of cs needs [Enable].
func AuthorizeDownload(ctx context.Context, cs *mcp.ClientSession, uri string) (*wire.AuthorizeDownloadResult, error) {
	res, err := mcp.CallCustomMethod[*wire.AuthorizeDownloadParams, *wire.AuthorizeDownloadResult](ctx, cs, authorizeDownload, &wire.AuthorizeDownloadParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("transfer/client: %s: %w", authorizeDownload, err)
	}
	if res == nil {
		return nil, bad("%s answered no result", authorizeDownload)
	}
	return res, nil
}

// DownloadOptions configure [Download] and [DownloadRange]. The zero
// value (and a nil *DownloadOptions) is ready to use.
type DownloadOptions struct {
	// HTTPClient sends the GET. Nil means the client [Options.HTTPClient]
	// describes. Whatever the client, redirects are not followed.
	HTTPClient *http.Client
	// AllowHTTP lets a download come from an http:// URL; without it
	// only https:// is used (SEP-2631: descriptors are not followed over
	// insecure transports). Set it for a server you run locally.
	AllowHTTP bool
	// MaxSize bounds the bytes read of a file (0: DefaultMaxDownload). A
	// file declared larger is refused before the GET.
	MaxSize int64
}

// DefaultMaxDownload is DownloadOptions.MaxSize's default: 1 GiB.
const DefaultMaxDownload = 1 << 30

// ErrVerify is the error (for errors.Is) of a download whose bytes are
// not what the server declared: another count, another digest.
var ErrVerify = errors.New("transfer/client: the bytes are not those the server declared")

// CheckDownload checks a download descriptor at time now and returns its
// URL: transport "https", method GET, an absolute https URL (http with
// allowHTTP) without user info, and an expiresAt that has not passed.
// [Download] and [DownloadRange] check it first; it is exported for
// programs that send the GET themselves.
func CheckDownload(d wire.FileTransferDescriptor, allowHTTP bool, now time.Time) (*url.URL, error) {
	switch {
	case d.Transport != wire.TransportHTTPS:
		return nil, bad("%s answered download.transport %s (want %q)", authorizeDownload, quoteShort(d.Transport), wire.TransportHTTPS)
	case d.Method != wire.TransferGET:
		return nil, bad("%s answered download.method %s (want GET)", authorizeDownload, quoteShort(d.Method))
	}
	u, err := url.Parse(d.URL)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return nil, bad("%s answered a download.url that is not an absolute URL", authorizeDownload)
	case u.Scheme == "http" && !allowHTTP:
		return nil, bad("%s answered a download.url of %s, not https: (refused: SEP-2631 downloads are transport-protected; set DownloadOptions.AllowHTTP for a server you trust over plain HTTP)", authorizeDownload, redact(u))
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, bad("%s answered a download.url of scheme %s (want https)", authorizeDownload, quoteShort(u.Scheme))
	case u.User != nil:
		return nil, bad("%s answered a download.url of %s with user info", authorizeDownload, redact(u))
	case !d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt):
		return nil, bad("%s answered a download descriptor that expired at %s (it is now %s)", authorizeDownload, d.ExpiresAt.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	for k, v := range d.Headers {
		switch ck := http.CanonicalHeaderKey(k); {
		case !headerName(k) || !headerValue(v):
			return nil, bad("%s answered download.headers with %s, which is not a header name and value", authorizeDownload, quoteShort(k))
		case slices.Contains(hopByHop, ck) || ck == "Host" || ck == "Range":
			return nil, bad("%s answered download.headers with %q, which the client sets itself", authorizeDownload, ck)
		}
	}
	return u, nil
}

// Downloaded is what [Download] wrote: its byte count and SHA-256.
type Downloaded struct {
	Size int64
	Sum  [sha256.Size]byte
}

// Download fetches the file of res (a files/authorizeDownload answer,
// see [AuthorizeDownload]) to w: it checks the descriptor, sends the GET
// with the descriptor's headers, and verifies that the bytes have
// res.File's size and digest when those are declared (SEP-2631: "Clients
// MUST verify the received byte count and digest"), failing with
// [ErrVerify] when they do not. w may have received bytes when Download
// fails: write to a temporary file and keep it only on success.
func Download(ctx context.Context, res *wire.AuthorizeDownloadResult, w io.Writer, o *DownloadOptions) (Downloaded, error) {
	if o == nil {
		o = new(DownloadOptions)
	}
	f := res.File
	limit, err := downloadLimit(f, o)
	if err != nil {
		return Downloaded{}, err
	}
	var want *[sha256.Size]byte
	if f.Digest != nil {
		sum, err := f.Digest.SHA256()
		if err != nil {
			return Downloaded{}, bad("%s answered file.digest: %s", authorizeDownload, strings.TrimPrefix(err.Error(), "wire: "))
		}
		want = &sum
	}
	resp, u, err := get(ctx, res.Download, "", o)
	if err != nil {
		return Downloaded{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Downloaded{}, fmt.Errorf("transfer/client: downloading from %s: %s (want 200 OK)", redact(u), resp.Status)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Downloaded{}, fmt.Errorf("transfer/client: downloading from %s: %w", redact(u), unwrapURLError(err))
	}
	r := Downloaded{Size: n}
	h.Sum(r.Sum[:0])
	switch {
	case f.Size != nil && n != *f.Size:
		return r, fmt.Errorf("%w: %d bytes came, file.size is %d", ErrVerify, n, *f.Size)
	case f.Size == nil && n > limit:
		return r, fmt.Errorf("transfer/client: the file is more than the limit of %d bytes", limit)
	case want != nil && *want != r.Sum:
		return r, fmt.Errorf("%w: the bytes have sha-256 %s, file.digest is %s", ErrVerify, wire.SHA256Digest(r.Sum).Value, f.Digest.Value)
	}
	return r, nil
}

// DownloadRange fetches length bytes of the file of res from offset on to
// w, with a Range request. A 206 answer must hold exactly that range (its
// Content-Range is checked); a server that ignores Range and answers 200
// with the whole file is read past offset, and only the range written.
// The range must lie within res.File.Size when that is declared. No
// digest is checked: it covers the whole file, not a part (use
// [Download] for that). It returns the bytes written, which are length
// on success.
func DownloadRange(ctx context.Context, res *wire.AuthorizeDownloadResult, w io.Writer, offset, length int64, o *DownloadOptions) (int64, error) {
	if o == nil {
		o = new(DownloadOptions)
	}
	limit, err := downloadLimit(res.File, o)
	switch {
	case err != nil:
		return 0, err
	case offset < 0 || length <= 0:
		return 0, fmt.Errorf("transfer/client: range of %d bytes at offset %d (want offset ≥ 0 and length > 0)", length, offset)
	case res.File.Size != nil && offset > *res.File.Size-length:
		return 0, fmt.Errorf("transfer/client: range of %d bytes at offset %d ends past the file's %d bytes", length, offset, *res.File.Size)
	case length > limit || offset > limit-length:
		return 0, fmt.Errorf("transfer/client: range of %d bytes at offset %d ends past the limit of %d bytes (DownloadOptions.MaxSize)", length, offset, limit)
	}
	last := offset + length - 1
	resp, u, err := get(ctx, res.Download, fmt.Sprintf("bytes=%d-%d", offset, last), o)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body := io.Reader(resp.Body)
	switch resp.StatusCode {
	case http.StatusPartialContent:
		first, end, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || first != offset || end != last {
			return 0, bad("the download of %s answered 206 with Content-Range %s (want bytes %d-%d/…)", redact(u), quoteShort(resp.Header.Get("Content-Range")), offset, last)
		}
	case http.StatusOK:
		if n, err := io.CopyN(io.Discard, body, offset); err != nil {
			return 0, fmt.Errorf("%w: the file ended after %d bytes, before offset %d", ErrVerify, n, offset)
		}
	default:
		return 0, fmt.Errorf("transfer/client: downloading bytes %d-%d from %s: %s (want 206 Partial Content)", offset, last, redact(u), resp.Status)
	}
	n, err := io.Copy(w, io.LimitReader(body, length))
	switch {
	case err != nil:
		return n, fmt.Errorf("transfer/client: downloading from %s: %w", redact(u), unwrapURLError(err))
	case n != length:
		return n, fmt.Errorf("%w: %d bytes of the range came, want %d", ErrVerify, n, length)
	}
	return n, nil
}

// downloadLimit is the most bytes a download of f may read under o, or
// an error when f declares more or a negative size.
func downloadLimit(f wire.FileValue, o *DownloadOptions) (int64, error) {
	limit := o.MaxSize
	if limit <= 0 {
		limit = DefaultMaxDownload
	}
	if f.Size != nil {
		switch {
		case *f.Size < 0:
			return 0, bad("%s answered file.size %d, which is negative", authorizeDownload, *f.Size)
		case *f.Size > limit:
			return 0, fmt.Errorf("transfer/client: the file is %d bytes, more than the limit of %d (DownloadOptions.MaxSize)", *f.Size, limit)
		}
		limit = *f.Size
	}
	return limit, nil
}

// get checks d and sends its GET, with a Range header when rng is set.
func get(ctx context.Context, d wire.FileTransferDescriptor, rng string, o *DownloadOptions) (*http.Response, *url.URL, error) {
	u, err := CheckDownload(d, o.AllowHTTP, time.Now())
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("transfer/client: download request to %s: %w", redact(u), unwrapURLError(err))
	}
	for k, v := range d.Headers {
		req.Header.Set(k, v)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := httpClient(&Options{HTTPClient: o.HTTPClient}).Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("transfer/client: downloading from %s: %w", redact(u), unwrapURLError(err))
	}
	return resp, u, nil
}

// contentRange parses a Content-Range of "bytes first-last/size" (or
// "/*").
func contentRange(s string) (first, last int64, ok bool) {
	r, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, false
	}
	r, _, ok = strings.Cut(r, "/")
	if !ok {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(r, "-")
	if !ok {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	return first, last, err1 == nil && err2 == nil && first >= 0 && first <= last
}
