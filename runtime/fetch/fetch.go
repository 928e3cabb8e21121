package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/mcpfile/mcpfile/runtime/internal/observe"
)

// The errors a fetch fails with. Each is wrapped with context (the URL as
// scheme and host, the rule, the figures); test with [errors.Is].
var (
	// ErrNotAllowed: the URL, or a redirect's target, breaks a URL rule:
	// malformed or relative, a scheme other than https (or http with
	// Options.AllowHTTP), userinfo, or a host not on Options.AllowHosts.
	ErrNotAllowed = errors.New("URL not allowed")
	// ErrPrivateAddress: the host resolves to, or the connection would
	// reach, a loopback, private, link-local, multicast, reserved or cloud
	// metadata address, and the host is not on Options.AllowPrivate.
	ErrPrivateAddress = errors.New("private address refused")
	// ErrRedirect: a redirect was refused: more than Options.MaxRedirects,
	// or to a URL that breaks a URL rule (then the error wraps
	// ErrNotAllowed too).
	ErrRedirect = errors.New("redirect refused")
	// ErrTooLarge: the server declared or sent more than maxSize bytes.
	ErrTooLarge = errors.New("file too large")
	// ErrStatus: the server answered with a status other than 2xx.
	ErrStatus = errors.New("unexpected status")
	// ErrTimeout: the fetch took longer than Options.Timeout.
	ErrTimeout = errors.New("timed out")
)

// DefaultTimeout and DefaultMaxRedirects are the values a zero
// Options.Timeout and Options.MaxRedirects stand for.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 3
)

// Resolver looks up the IP addresses of a host name. *net.Resolver
// implements it; tests give a fake that maps names to addresses.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Options configures a [Fetcher]. Only AllowHosts is required.
type Options struct {
	// AllowHosts lists the hosts that may be fetched, and nothing else is:
	// exact host names (compared case-insensitively), IP addresses, or
	// "*.example.com" patterns that match any name ending in
	// ".example.com" (but not example.com itself). Names are ASCII: write
	// an internationalized name in its punycode form. An entry may name a
	// port, "files.example.com:8443" or "[2001:db8::1]:8443", and then
	// allows that port only; an entry without one allows the scheme's
	// default port only (443 for https, 80 for http). Required.
	AllowHosts []string
	// AllowHTTP lets URLs and redirects use http as well as https.
	AllowHTTP bool
	// AllowPrivate lists hosts, in the AllowHosts syntax, that may resolve
	// to loopback, private, link-local and other blocked addresses, such
	// as a test server on 127.0.0.1. An entry with a port applies to that
	// port only; one without, to every port AllowHosts allows for the
	// host. It allows no host or port AllowHosts does not.
	AllowPrivate []string
	// Timeout bounds a whole fetch: connecting, redirects, headers and
	// body. Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxRedirects is how many redirects a fetch follows. Zero means
	// DefaultMaxRedirects; a negative value follows none.
	MaxRedirects int
	// Resolver looks up host names. Nil means net.DefaultResolver.
	Resolver Resolver
	// TLSConfig is the TLS configuration for https, cloned; nil means the
	// system roots. Tests set RootCAs (and ServerName) here.
	TLSConfig *tls.Config
	// UserAgent is the User-Agent header sent. Empty means "mcpfile-fetch".
	UserAgent string
	// Logger receives a record of each fetch, done or refused: the URL's
	// scheme and host only (its path and query may hold a signature),
	// the bytes, the duration, and a refusal's reason. Nil means
	// slog.Default().
	Logger *slog.Logger
	// MeterProvider makes the instruments fetches are measured with
	// (mcpfile.fetches, mcpfile.fetch.bytes, mcpfile.fetch.duration,
	// mcpfile.rejections). Nil means otel.GetMeterProvider(): a no-op
	// until the program sets one.
	MeterProvider metric.MeterProvider
}

// Fetcher downloads files from allow-listed URLs. It is safe for
// concurrent use; make one per configuration and reuse it, as it keeps
// connections open between fetches.
type Fetcher struct {
	allow, private hostList
	allowHTTP      bool
	timeout        time.Duration
	maxRedirects   int
	resolver       Resolver
	userAgent      string
	transport      *http.Transport
	client         *http.Client
	obs            *observe.Observer
}

// New returns a Fetcher for o. It fails if o.AllowHosts is empty or a
// pattern in o.AllowHosts or o.AllowPrivate is malformed.
func New(o Options) (*Fetcher, error) {
	if len(o.AllowHosts) == 0 {
		return nil, errors.New("fetch.New: Options.AllowHosts is empty: list the hosts that may be fetched")
	}
	allow, err := parseHostList("AllowHosts", o.AllowHosts)
	if err != nil {
		return nil, err
	}
	private, err := parseHostList("AllowPrivate", o.AllowPrivate)
	if err != nil {
		return nil, err
	}
	f := &Fetcher{
		allow:        allow,
		private:      private,
		allowHTTP:    o.AllowHTTP,
		timeout:      o.Timeout,
		maxRedirects: o.MaxRedirects,
		resolver:     o.Resolver,
		userAgent:    o.UserAgent,
		obs:          observe.New(observe.Options{Logger: o.Logger, MeterProvider: o.MeterProvider}),
	}
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	switch {
	case f.maxRedirects == 0:
		f.maxRedirects = DefaultMaxRedirects
	case f.maxRedirects < 0:
		f.maxRedirects = 0
	}
	if f.resolver == nil {
		f.resolver = net.DefaultResolver
	}
	if f.userAgent == "" {
		f.userAgent = "mcpfile-fetch"
	}
	var tlsConfig *tls.Config
	if o.TLSConfig != nil {
		tlsConfig = o.TLSConfig.Clone()
	}
	f.transport = &http.Transport{
		Proxy:                  nil, // a proxy would dial for us, past the address checks
		DialContext:            f.dial,
		TLSClientConfig:        tlsConfig,
		TLSHandshakeTimeout:    10 * time.Second,
		DisableCompression:     true, // the body as sent, and Content-Length meaning its size
		MaxResponseHeaderBytes: 64 << 10,
		IdleConnTimeout:        90 * time.Second,
		MaxIdleConnsPerHost:    2,
	}
	f.client = &http.Client{
		Transport:     f.transport,
		CheckRedirect: f.checkRedirect,
	}
	return f, nil
}

// CloseIdleConnections closes the connections f keeps open between
// fetches.
func (f *Fetcher) CloseIdleConnections() { f.transport.CloseIdleConnections() }

// Result is a fetched file.
type Result struct {
	// Body holds the file's bytes, at most the maxSize given to Fetch.
	Body []byte
	// MediaType is the response's Content-Type, parsed: type/subtype in
	// lower case, no parameters; "" if the server sent none or a malformed
	// one. It is what the server says, not checked against the bytes.
	MediaType string
	// Params holds the Content-Type's parameters (charset, …), names in
	// lower case; nil if there are none.
	Params map[string]string
	// Size is len(Body).
	Size int64
	// FinalURL is the URL the body came from, after redirects. It may hold
	// a signed query: do not log it.
	FinalURL string
}

// Fetch downloads rawURL with a GET and returns its body, at most maxSize
// bytes, held in memory. It checks the URL before any network activity
// and every connection and redirect as the package documentation
// describes. maxSize must be positive.
//
// A refusal wraps one of the package's Err values; a failure of the
// network (DNS, connecting, TLS) is returned wrapped as it came. Errors
// show URLs as scheme and host only, and none holds response body bytes.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string, maxSize int64) (*Result, error) {
	start := time.Now()
	r, err := f.fetch(ctx, rawURL, maxSize)
	host := "-"
	if u, perr := url.Parse(rawURL); perr == nil && u.Host != "" {
		host = redact(u)
	}
	if err != nil {
		f.obs.Fetch(ctx, host, 0, time.Since(start), reason(err), err)
		return nil, err
	}
	f.obs.Fetch(ctx, host, r.Size, time.Since(start), "", nil)
	return r, nil
}

// reason is the reason a fetch's record gives for err.
func reason(err error) string {
	switch {
	case errors.Is(err, ErrRedirect):
		return "redirect"
	case errors.Is(err, ErrNotAllowed):
		return "notAllowed"
	case errors.Is(err, ErrPrivateAddress):
		return "privateAddress"
	case errors.Is(err, ErrTooLarge):
		return "maxSizeExceeded"
	case errors.Is(err, ErrStatus):
		return "status"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "network"
}

func (f *Fetcher) fetch(ctx context.Context, rawURL string, maxSize int64) (*Result, error) {
	if maxSize <= 0 {
		return nil, fmt.Errorf("fetch: maxSize is %d (want a positive size)", maxSize)
	}
	maxSize = min(maxSize, math.MaxInt64-1) // so maxSize+1 does not overflow

	// 1. One deadline for everything that follows.
	ctx, cancel := context.WithTimeoutCause(ctx, f.timeout, ErrTimeout)
	defer cancel()

	// 2. The URL: scheme, userinfo, allow-listed host. No network yet.
	// The URL checked is the request's own, parsed once.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		// The parser's error quotes the whole URL, query included: drop it.
		return nil, fmt.Errorf("fetch: %w: malformed URL", ErrNotAllowed)
	}
	if err := f.checkURL(req.URL); err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	where := redact(req.URL)

	// 3. The request; dial checks each address, checkRedirect each hop.
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "*/*")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.failed(ctx, where, err)
	}
	defer resp.Body.Close()
	where = redact(resp.Request.URL)

	// 4. The status, never the body of an error.
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("fetch %s: %w %d %s", where, ErrStatus, resp.StatusCode, http.StatusText(resp.StatusCode))
	}

	// 5. The declared size, before reading.
	if resp.ContentLength > maxSize {
		return nil, fmt.Errorf("fetch %s: %w: Content-Length is %d bytes, limit is %d", where, ErrTooLarge, resp.ContentLength, maxSize)
	}

	// 6. The body, reading at most maxSize+1 bytes.
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(min(resp.ContentLength, 1<<20)))
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, maxSize+1))
	if err != nil {
		return nil, f.failed(ctx, where, err)
	}
	if n > maxSize {
		return nil, fmt.Errorf("fetch %s: %w: more than %d bytes, limit is %d", where, ErrTooLarge, maxSize, maxSize)
	}

	r := &Result{Body: buf.Bytes(), Size: n, FinalURL: resp.Request.URL.String()}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, params, err := mime.ParseMediaType(ct); err == nil {
			r.MediaType = mt
			if len(params) > 0 {
				r.Params = params
			}
		}
	}
	return r, nil
}

// failed turns an error of the client or of reading the body into the
// error Fetch returns: the timeout named as such, and *url.Error (whose
// text holds the full URL) replaced by the redacted one.
func (f *Fetcher) failed(ctx context.Context, where string, err error) error {
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		return fmt.Errorf("fetch %s: %w after %v", where, ErrTimeout, f.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if !ours(err) && strings.Contains(err.Error(), "://") {
		// An error of net/http that quotes a URL, such as a redirect's
		// Location it cannot parse, with whatever signature its query holds.
		if strings.Contains(err.Error(), "Location header") {
			return fmt.Errorf("fetch %s: %w: the redirect's Location is not a URL", where, ErrRedirect)
		}
		return fmt.Errorf("fetch %s: the request failed", where)
	}
	return fmt.Errorf("fetch %s: %w", where, err)
}

// ours reports whether err wraps one of the package's errors, whose texts
// show URLs as scheme and host only.
func ours(err error) bool {
	for _, e := range []error{ErrNotAllowed, ErrPrivateAddress, ErrRedirect, ErrTooLarge, ErrStatus, ErrTimeout} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// checkRedirect is the client's CheckRedirect: it drops the Referer (the
// previous URL may carry a signature), counts hops, and applies the URL
// rules to the target. Address checks happen when the target is dialed.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	req.Header.Del("Referer")
	if len(via) > f.maxRedirects {
		return fmt.Errorf("%w: more than %d redirects, the last to %s", ErrRedirect, f.maxRedirects, redact(req.URL))
	}
	if err := f.checkURL(req.URL); err != nil {
		return fmt.Errorf("%w: %w", ErrRedirect, err)
	}
	return nil
}
