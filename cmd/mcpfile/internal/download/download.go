// Package download fetches a file a server hands out under a file URI, as
// SEP-2631 describes: files/authorizeDownload, then a GET of the
// descriptor's URL, with the byte count and the digest verified against
// what the server declared ("Clients MUST verify the received byte count
// and digest when those values are present on a file they download").
//
// It is the download half of mcpfile call's client, beside
// runtime/transfer/client's uploads, and what mcpfile conform's download
// checks start from.
package download

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// Enable lets c send files/authorizeDownload. Call it once on the client,
// before Connect.
func Enable(c *mcp.Client) error {
	if err := mcp.AddSendingCustomMethod[*wire.AuthorizeDownloadParams, *wire.AuthorizeDownloadResult](c, wire.MethodAuthorizeDownload); err != nil {
		return fmt.Errorf("download: %w", err)
	}
	return nil
}

// Authorize asks the server of cs for a download of the file at uri.
func Authorize(ctx context.Context, cs *mcp.ClientSession, uri string) (*wire.AuthorizeDownloadResult, error) {
	res, err := mcp.CallCustomMethod[*wire.AuthorizeDownloadParams, *wire.AuthorizeDownloadResult](ctx, cs, wire.MethodAuthorizeDownload, &wire.AuthorizeDownloadParams{URI: uri})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("%s answered no result", wire.MethodAuthorizeDownload)
	}
	return res, nil
}

// Options configure [Get]. The zero value is ready to use.
type Options struct {
	// HTTPClient sends the GET. Nil means http.DefaultClient's transport.
	// Redirects are never followed, whatever the client.
	HTTPClient *http.Client
	// AllowHTTP lets a download come from an http:// URL; without it only
	// https:// is used (SEP-2631: descriptors are not followed over
	// insecure transports).
	AllowHTTP bool
	// MaxSize bounds the bytes read of a file whose size the server did
	// not declare (0: 1 GiB). A file declared larger is refused before
	// the GET.
	MaxSize int64
}

// DefaultMaxSize is Options.MaxSize's default.
const DefaultMaxSize = 1 << 30

// ErrVerify is the error (for errors.Is) of a download whose bytes are
// not what the server declared: another count, another digest.
var ErrVerify = errors.New("download: the bytes are not those the server declared")

// CheckDescriptor checks a download descriptor at time now and returns
// its URL: transport https, method GET, an absolute https URL (http with
// allowHTTP) without user info, not expired.
func CheckDescriptor(d wire.FileTransferDescriptor, allowHTTP bool, now time.Time) (*url.URL, error) {
	switch {
	case d.Transport != wire.TransportHTTPS:
		return nil, fmt.Errorf("download.transport is %q (want %q)", short(d.Transport), wire.TransportHTTPS)
	case d.Method != wire.TransferGET:
		return nil, fmt.Errorf("download.method is %q (want GET)", short(d.Method))
	}
	u, err := url.Parse(d.URL)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return nil, errors.New("download.url is not an absolute URL")
	case u.Scheme == "http" && !allowHTTP:
		return nil, fmt.Errorf("download.url is http://%s, not https: (refused: downloads are transport-protected; allow plain http for a server you trust)", u.Host)
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("download.url is of scheme %q (want https)", short(u.Scheme))
	case u.User != nil:
		return nil, errors.New("download.url carries user info")
	case !d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt):
		return nil, fmt.Errorf("download descriptor expired at %s", d.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return u, nil
}

// A Result is what [Get] wrote.
type Result struct {
	Size int64
	Sum  [sha256.Size]byte
}

// Get downloads the file of res to w: it checks the descriptor, sends the
// GET with its headers, and verifies that the bytes have res.File's size
// and digest when those are declared. w may have received bytes when Get
// fails: write to a temporary file and keep it only on success.
func Get(ctx context.Context, res *wire.AuthorizeDownloadResult, w io.Writer, o *Options) (Result, error) {
	if o == nil {
		o = new(Options)
	}
	limit := o.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	f := res.File
	u, err := CheckDescriptor(res.Download, o.AllowHTTP, time.Now())
	if err != nil {
		return Result{}, err
	}
	var want *[sha256.Size]byte
	if f.Digest != nil {
		sum, err := f.Digest.SHA256()
		if err != nil {
			return Result{}, fmt.Errorf("file.digest: %v", strings.TrimPrefix(err.Error(), "wire: "))
		}
		want = &sum
	}
	if f.Size != nil {
		if *f.Size < 0 {
			return Result{}, fmt.Errorf("file.size %d is negative", *f.Size)
		}
		if *f.Size > limit {
			return Result{}, fmt.Errorf("the file is %d bytes, more than the limit of %d", *f.Size, limit)
		}
		limit = *f.Size
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, res.Download.URL, nil)
	if err != nil {
		return Result{}, fmt.Errorf("download request to %s: %v", redact(u), err)
	}
	for k, v := range res.Download.Headers {
		req.Header.Set(k, v)
	}
	hc := http.Client{}
	if o.HTTPClient != nil {
		hc = *o.HTTPClient
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("downloading from %s: %v", redact(u), unwrap(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Result{}, fmt.Errorf("downloading from %s: %s (want 200 OK)", redact(u), resp.Status)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Result{}, fmt.Errorf("downloading from %s: %v", redact(u), unwrap(err))
	}
	var r Result
	r.Size = n
	h.Sum(r.Sum[:0])
	switch {
	case f.Size != nil && n != *f.Size:
		return r, fmt.Errorf("%w: %d bytes came, file.size is %d", ErrVerify, n, *f.Size)
	case f.Size == nil && n > limit:
		return r, fmt.Errorf("the file is more than the limit of %d bytes", limit)
	case want != nil && *want != r.Sum:
		return r, fmt.Errorf("%w: the bytes have sha-256 %s, file.digest is %s", ErrVerify, wire.SHA256Digest(r.Sum).Value, f.Digest.Value)
	}
	return r, nil
}

// redact is u's scheme and host: a download URL may carry its token.
func redact(u *url.URL) string { return u.Scheme + "://" + u.Host }

// unwrap drops the *url.Error around err, whose text holds the URL.
func unwrap(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// short is s cut to a few characters, for errors about values the server
// chose.
func short(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
