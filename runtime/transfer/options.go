package transfer

// The settings of the transfer layer, in one place: the options of
// [Register] and of [UploadHandler], what each zero value means, and the
// paths under [Options.PublicURL].

import (
	"fmt"
	"log"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// Defaults of the zero [Options].
const (
	// DefaultAuthorizationTTL is how long an upload authorization (the
	// descriptor files/authorizeUpload returns) may be used.
	DefaultAuthorizationTTL = time.Hour
	// DefaultDownloadTTL is how long a download descriptor from
	// files/authorizeDownload may be used.
	DefaultDownloadTTL = 15 * time.Minute
	// DefaultQuota is how many bytes of unexpired uploaded files one owner
	// may hold: 4 GiB.
	DefaultQuota = 4 << 30
	// DefaultSweepInterval is how often Register's sweeper deletes expired
	// files.
	DefaultSweepInterval = 10 * time.Minute
	// DefaultMaxEmbeddedOutput is the largest file a tool result embeds, with
	// its bytes, for a client without the files.download capability: 1 MiB.
	DefaultMaxEmbeddedOutput = 1 << 20
	// DefaultPageTTL is how long an upload page may be used.
	DefaultPageTTL = time.Hour
	// DefaultMaxPages bounds the upload pages a server has waiting for a
	// file at once: minted, and neither used, declined nor expired.
	DefaultMaxPages = 1024
	// DefaultMaxPagesPerCaller bounds those of one caller: a principal, or,
	// without auth, a session.
	DefaultMaxPagesPerCaller = 16
	// DefaultMaxPagesPerAddress bounds those of the callers without auth
	// from one address (an IPv6 /64), their sessions together: each
	// request of a 2026-07-28 client over HTTP is a session of its own.
	DefaultMaxPagesPerAddress = 32
	// DefaultMaxPagesPerNetwork bounds those of the callers without auth
	// from one IPv6 network (a /48), all its /64s together: four /64s'
	// worth, an eighth of DefaultMaxPages.
	DefaultMaxPagesPerNetwork = 128
)

// Defaults of the zero [Options]: the life of stored files.
const (
	// DefaultReadFileTTL is how long an uploaded file stays in the store
	// after the last tools/call that read it returned.
	DefaultReadFileTTL = time.Hour
	// DefaultAnonymousQuotas is how many Quotas callers without auth may
	// hold together when AnonymousQuota is zero.
	DefaultAnonymousQuotas = 4
)

// Defaults of the zero [UploadOptions].
const (
	// DefaultUploadTTL is how long an uploaded file stays in the store.
	DefaultUploadTTL = 24 * time.Hour
	// DefaultBufferSize is the size of the buffer an upload is copied
	// through: the most of a file the handler holds at any time. One half
	// is read into while the other is written to the store.
	DefaultBufferSize = 512 << 10
	// MinBufferSize is the smallest buffer an upload is copied through; a
	// smaller UploadOptions.BufferSize is raised to it. Each half holds
	// the first bytes that are checked against the declared type.
	MinBufferSize = 2 * content.SniffLen
	// DefaultMaxPreambleBytes bounds the bytes of a multipart body read
	// before the file part starts: the fields and part headers before it.
	DefaultMaxPreambleBytes = 64 << 10
	// DefaultMaxParts bounds the number of parts of a multipart body up to
	// and including the file part.
	DefaultMaxParts = 8
	// DefaultIdleTimeout is how long an upload may go without a byte
	// arriving.
	DefaultIdleTimeout = time.Minute
)

// Defaults of the zero [UploadOptions]: how long an upload may take and
// how many may be in progress at once. Every upload has an end, and no one
// owner can hold the server's uploads against the others.
const (
	// DefaultMinRate is the slowest an upload may be, in bytes a second,
	// over each RateWindow: 16 KiB/s, which a slow phone line passes.
	DefaultMinRate = 16 << 10
	// DefaultRateWindow is the span over which an upload's rate is held
	// to MinRate.
	DefaultRateWindow = 30 * time.Second
	// DefaultExpiryGrace is how long after its token expires an upload
	// that started in time may go on.
	DefaultExpiryGrace = 15 * time.Minute
	// DefaultMaxUploadsPerOwner bounds the uploads one owner has in
	// progress at once: two, whose reservations of 1 GiB each leave the
	// owner room under DefaultQuota for the files it authorizes meanwhile.
	DefaultMaxUploadsPerOwner = 2
	// DefaultMaxUploads bounds the uploads the server has in progress at
	// once.
	DefaultMaxUploads = 256
	// DefaultMaxUploadMemory bounds the copy buffers all uploads in
	// progress may hold: 64 MiB, 128 full buffers of DefaultBufferSize.
	DefaultMaxUploadMemory = 64 << 20
)

// The paths of the handler [Register] returns, under [Options.PublicURL].
const (
	// UploadPath is the last path segment of the upload endpoint.
	UploadPath = "upload"
	// DownloadPath is the path segment of the download endpoint:
	// downloads are GETs of PublicURL + "download/<token>".
	DownloadPath = "download"
	// PagePath is the path segment of upload pages: GET
	// PublicURL/page/<token> shows a page, and its form posts to
	// PublicURL/page.
	PagePath = "page"
)

// The names of the multipart form fields, as in the SEP's descriptor:
// {"multipart": {"fileField": "file", "fields": {"token": …}}}.
const (
	FormFieldToken = "token"
	FormFieldFile  = "file"
)

// Options configure [Register]. Keys and PublicURL are required; every
// other zero value means the default.
type Options struct {
	// Keys sign and check upload and download tokens and file URIs. Every replica that
	// serves the same clients holds the same keys (see [token.Keyring]:
	// the first key signs, all of them verify, so keys can rotate).
	Keys *token.Keyring

	// PublicURL is the URL at which clients reach the handler Register
	// returns, such as "https://files.example.com/mcpfile/": uploads go to
	// PublicURL + "upload", downloads to PublicURL + "download/<token>".
	// Mount the handler so that it gets those requests (it looks at the
	// last two path segments only).
	PublicURL string

	// Host is the host of the file URIs the server hands out
	// (mcp-file://<host>/…). Empty means PublicURL's host, lower-cased.
	Host string

	// Store is where uploaded files go. Nil means the default store of
	// the signing key (the first of Keys): a [diskstore] in the directory
	// "mcpfile/uploads/<hash of the key id>" under the user's cache
	// directory (os.UserCacheDir), made readable by its owner only and
	// refused if anyone else could write to it. The servers of every
	// process with the same signing key share it; a process with another
	// key (a random one each start, or after a rotation) starts with a
	// directory of its own, empty, since its URIs open no file of the
	// other's (after a rotation, the files uploaded under the previous
	// signing key are then not found: a server that rotates keys and
	// keeps its files across the rotation passes a Store). One goroutine of the process sweeps every key's directory
	// every DefaultSweepInterval, so that the expired files of a key no
	// process holds any more are deleted too. Pass your own (and run
	// [store.RunSweeper] for it) to put files elsewhere, or to share them
	// between replicas.
	Store store.Store

	// Owner returns the principal that the SDK's auth token info names:
	// files/authorizeUpload issues files to it, and only it may use them.
	// Nil means the token info's UserID. A request with token info whose
	// principal is "" is refused (the SDK's UserID is optional: set it in
	// the token verifier, or set Owner), so that users of a verifier that
	// names nobody do not all share one principal. Without auth (no token
	// info) the owner is the caller's session where the protocol has
	// sessions with IDs (2025-11-25 over streamable HTTP): a file URI works
	// in the session that uploaded the file only, and the session's files
	// count against the quota of the address it calls from (see Quota), or,
	// where that was not kept, a quota of the session's own. Where it has
	// none (stdio, a single client; 2026-07-28, stateless), the owner is
	// "", one for every anonymous caller, and the signed, unguessable file
	// URI itself is the capability; over HTTP their files count against
	// the quota of the address they call from (see Quota).
	Owner func(*auth.TokenInfo) string

	// AuthorizationTTL is how long an upload descriptor may be used. Zero
	// means DefaultAuthorizationTTL.
	AuthorizationTTL time.Duration

	// DownloadTTL is how long a download descriptor may be used (never
	// past the file's own expiry). Zero means DefaultDownloadTTL.
	DownloadTTL time.Duration

	// FileTTL is how long an uploaded file stays in the store after its
	// upload. Zero means DefaultUploadTTL. The file URI expires when the
	// file can have expired: AuthorizationTTL + FileTTL after it was issued.
	FileTTL time.Duration

	// ReadFileTTL is how long an uploaded file stays in the store once a
	// tools/call has read it (resolved it for its handler, in its
	// arguments or an elicitation's answer): it is deleted ReadFileTTL
	// after the last call of this process that read it returned, and never
	// while such a call runs, unless FileTTL ends it first. A file the
	// caller sends again within ReadFileTTL is found; a handler done with
	// a file sooner releases it (runtime.File.Release). The count is the
	// process's: a restart forgets it (FileTTL still holds), and with
	// replicas each deletes after its own calls. Zero means
	// DefaultReadFileTTL; a negative value leaves files read to FileTTL.
	ReadFileTTL time.Duration

	// Quota is how many bytes of unexpired uploaded files one owner may
	// hold, for stores that count them ([store.Usager]; diskstore and
	// memstore do). Callers without auth over HTTP hold it per address,
	// the address of the MCP request that authorized the file (see
	// [KeepCallerAddress]): those without a session (2026-07-28), all the
	// owner "", any of whom that has a file's URI may still use the file,
	// and anonymous sessions (2025-11-25), all the sessions of an address
	// together, since a client can open as many as it likes. An IPv6
	// address holds it per /48, all its /64s together: one party can hold
	// a /48 as easily as one IPv4 address, and the store counts each file
	// against one key (the /48's keyed pseudonym, never the address).
	// Where the address was not kept, each anonymous session holds a Quota
	// of its own. Zero means DefaultQuota; a negative value, no quota.
	Quota int64

	// AnonymousQuota bounds what callers without auth add together, since
	// addresses (and, where the address was not kept, anonymous sessions)
	// cost a client little: a caller without auth may add a file only while the
	// store holds, in all (every owner's unexpired files), no more than
	// AnonymousQuota with it, for stores that count their total
	// ([store.TotalUsager]; diskstore and memstore do). Zero means
	// DefaultAnonymousQuotas times Quota; a negative value, no such bound.
	AnonymousQuota int64

	// MaxEmbeddedOutput is the largest file a tool result carries in an
	// embedded resource, with its bytes, to a client that did not declare
	// the files.download capability (see [NewFileContent]); a larger file
	// gets a text that says so and a resource_link. Zero means
	// DefaultMaxEmbeddedOutput; a negative value embeds none.
	MaxEmbeddedOutput int64

	// PageTTL is how long an upload page ([runtime.ElicitUpload]) may be
	// used. Zero means DefaultPageTTL.
	PageTTL time.Duration

	// MaxPages bounds the upload pages the server has waiting for a file
	// at once: minted by [runtime.ElicitUpload], and neither used,
	// declined nor expired. Zero means DefaultMaxPages.
	MaxPages int

	// MaxPagesPerCaller bounds those of one caller (a principal, or,
	// without auth, a session). Zero means DefaultMaxPagesPerCaller.
	MaxPagesPerCaller int

	// MaxPagesPerAddress bounds those of the callers without auth from
	// one address (an IPv6 /64), all their sessions together: protocol
	// 2026-07-28 over HTTP has no sessions, so every request of an
	// anonymous client is a caller of its own there, and without this
	// bound one client could take every page of MaxPages. The address is
	// the one the MCP endpoint's request came from ([KeepCallerAddress],
	// which package runtime/serve applies); callers over HTTP whose
	// address was not kept count as one address. Authenticated callers
	// are bounded by MaxPagesPerCaller alone. An IPv6 address is also
	// bounded by its /48 (MaxPagesPerNetwork). Zero means
	// DefaultMaxPagesPerAddress.
	MaxPagesPerAddress int

	// MaxPagesPerNetwork bounds those of the callers without auth from
	// one IPv6 network, a /48, all its /64s together. A /48 is what one
	// site is commonly given (RFC 6177), and some tunnel services give
	// one to anyone for free: it holds 65,536 /64s, each an address of its
	// own to MaxPagesPerAddress, so that without this bound one such
	// caller could take every page of MaxPages. Past it, a page asked for
	// from any /64 of the network is refused, saying so. Callers that share
	// a /48 without being one party (the customers of one provider's pool)
	// share it too: authenticated callers are bounded by MaxPagesPerCaller
	// alone. An IPv4 address is its own network (MaxPagesPerAddress bounds
	// it). Zero means DefaultMaxPagesPerNetwork.
	MaxPagesPerNetwork int

	// Upload configures the upload endpoint. Its Store, Keys, Now, TTL,
	// Owner and Quota are set by Register: the quota is Quota, the one
	// that files/authorizeUpload, the upload endpoint and upload pages all
	// hold an owner to, and an Upload.Quota other than zero or Quota is
	// an error.
	Upload UploadOptions

	// Now returns the current time. Nil means time.Now.
	Now func() time.Time

	// Logger receives a record of each upload, download, upload page,
	// authorization, sweep and refusal, and of each failure of the
	// server's own (see the README's "Logs and metrics"): never a byte of
	// a file, a token, or a URL or file URI that holds one, and an owner
	// only as a short keyed hash ([token.Keyring.Pseudonym]). Nil means
	// slog.Default(), looked up at each record.
	Logger *slog.Logger

	// MeterProvider makes the instruments the transfer layer measures
	// through (uploads, downloads and refusals by reason, bytes,
	// durations, uploads in progress, store usage). Nil means
	// otel.GetMeterProvider(): a no-op until the program sets one.
	MeterProvider metric.MeterProvider

	// ErrorLog, when set, also receives each failure of the server's own
	// (a store's, a signer's) as a line of text, besides Logger's record.
	// Nil means none.
	ErrorLog *log.Logger
}

// UploadOptions configure [UploadHandler]. Store and Keys are required;
// every other zero value means the default.
type UploadOptions struct {
	// Store is where uploaded files go.
	Store store.Store
	// Keys checks upload tokens (purpose [token.PurposeUpload]).
	Keys *token.Keyring
	// Owner returns the principal making the request, and true, when the
	// request carries one (the endpoint is behind the server's auth): a
	// token issued to another principal is then refused. When it returns
	// false, or is nil, the request carries no principal, and the signed
	// token, which names its owner, is the capability.
	Owner func(*http.Request) (string, bool)
	// Quota is how many bytes of unexpired files one owner may hold in a
	// store that counts them ([store.Usager]); an upload that would go past
	// it is refused before a byte is read. Zero or less means no quota.
	Quota int64
	// Now returns the current time, against which tokens expire and from
	// which TTL counts. Nil means time.Now.
	Now func() time.Time
	// TTL is how long an uploaded file stays in the store after its upload
	// completes, and at least until its token expires. Zero means
	// DefaultUploadTTL.
	TTL time.Duration
	// BufferSize is the size of the buffer each upload is copied through.
	// Zero means DefaultBufferSize; it is at least MinBufferSize. An
	// upload takes one (a small file, twice its size) once a read of its
	// body fills a small buffer of content.SniffLen bytes, through which
	// it goes until then: a slow sender holds no more than that. Up to
	// eight idle buffers are kept for the next uploads.
	BufferSize int
	// MaxPreambleBytes bounds how much of a multipart body is read before
	// the file part starts (fields, part headers and boundaries; the
	// multipart reader's read-ahead of up to 4 KiB counts too). Zero means
	// DefaultMaxPreambleBytes.
	MaxPreambleBytes int64
	// MaxParts bounds the parts of a multipart body up to and including
	// the file part. Zero means DefaultMaxParts.
	MaxParts int
	// IdleTimeout is how long an upload's body may go without a byte
	// arriving: the handler moves the connection's read deadline forward
	// by it before each read of the file, so that a slow but steady upload
	// of a big file is not cut by the http.Server's ReadTimeout, and a
	// stalled one is cut after IdleTimeout. Zero means DefaultIdleTimeout;
	// where the connection has no deadlines (HTTP/2 over some transports,
	// tests), the server's own timeouts apply.
	IdleTimeout time.Duration
	// Logger receives a record of each upload and refusal (see
	// [Options.Logger]). Nil means slog.Default().
	Logger *slog.Logger
	// MeterProvider makes the instruments of uploads (see
	// [Options.MeterProvider]). Nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// ErrorLog, when set, also receives the store failures answered with
	// 500, as a line of text. Nil means none.
	ErrorLog *log.Logger

	// The end of an upload and the bounds of uploads in progress, shared
	// by the upload endpoint and the upload pages.

	// MinRate is the slowest an upload may be, in bytes a second: one
	// whose bytes over a RateWindow come slower is cut (408, tooSlow),
	// and one that declares a size must end within RateWindow plus the
	// size at MinRate. Zero means DefaultMinRate.
	MinRate int64
	// RateWindow is the span over which an upload is held to MinRate.
	// Zero means DefaultRateWindow.
	RateWindow time.Duration
	// ExpiryGrace is how long after its token expires an upload that
	// started in time may go on: no upload ends later. Zero means
	// DefaultExpiryGrace.
	ExpiryGrace time.Duration
	// MaxUploadsPerOwner bounds the uploads one owner has in progress at
	// once (callers without auth are counted by the address whose quota
	// the file counts against, see Options.Quota: an IPv6 /48; or, where
	// the MCP endpoint did not keep it, those without a session by the
	// address they connect from); one more is refused with 429 (tooManyUploads) and a Retry-After of one
	// RateWindow, by when a slow one has been cut. Zero means
	// DefaultMaxUploadsPerOwner.
	MaxUploadsPerOwner int
	// MaxUploads bounds the uploads in progress at once; one more is
	// refused with 503 (busy) and a Retry-After. Zero means
	// DefaultMaxUploads.
	MaxUploads int
	// MaxUploadMemory bounds the bytes of copy buffers that all uploads
	// in progress may hold: each upload counts the buffer it may take
	// (BufferSize, or for a small file twice its size), and one that would
	// pass the bound is refused with 503 (busy) and a Retry-After (see
	// BufferSize for when an upload takes its buffer). Zero means
	// DefaultMaxUploadMemory; it is at least BufferSize.
	MaxUploadMemory int64
}

// fillDefaults fills in the settings of o that are zero (see each one's
// doc), and refuses an Upload.Quota that differs from the quota.
func (o *Options) fillDefaults() error {
	if o.Now == nil {
		o.Now = time.Now
	}
	orDefault(&o.AuthorizationTTL, DefaultAuthorizationTTL)
	orDefault(&o.DownloadTTL, DefaultDownloadTTL)
	zeroDefault(&o.MaxEmbeddedOutput, DefaultMaxEmbeddedOutput)
	orDefault(&o.FileTTL, DefaultUploadTTL)
	zeroDefault(&o.ReadFileTTL, DefaultReadFileTTL)
	orDefault(&o.PageTTL, DefaultPageTTL)
	orDefault(&o.MaxPages, DefaultMaxPages)
	orDefault(&o.MaxPagesPerCaller, DefaultMaxPagesPerCaller)
	orDefault(&o.MaxPagesPerAddress, DefaultMaxPagesPerAddress)
	orDefault(&o.MaxPagesPerNetwork, DefaultMaxPagesPerNetwork)
	zeroDefault(&o.Quota, DefaultQuota)
	if o.AnonymousQuota == 0 && o.Quota > 0 {
		o.AnonymousQuota = math.MaxInt64 // past any store
		if o.Quota <= math.MaxInt64/DefaultAnonymousQuotas {
			o.AnonymousQuota = DefaultAnonymousQuotas * o.Quota
		}
	}
	if o.Upload.Quota != 0 && o.Upload.Quota != o.Quota {
		return fmt.Errorf("transfer.Register: Options.Upload.Quota %d differs from Options.Quota %d: set Options.Quota alone, the one quota of every upload path", o.Upload.Quota, o.Quota)
	}
	if o.Owner == nil {
		o.Owner = func(ti *auth.TokenInfo) string { return ti.UserID }
	}
	o.Upload.fillCopyDefaults()
	return nil
}

// fillDefaults fills in the settings of o that are zero, for
// [UploadHandler] (see each one's doc).
func (o *UploadOptions) fillDefaults() {
	if o.Owner == nil {
		o.Owner = func(*http.Request) (string, bool) { return "", false }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	orDefault(&o.TTL, DefaultUploadTTL)
	o.fillCopyDefaults()
}

// fillCopyDefaults fills in the bounds of reading a body that are zero:
// what the upload endpoint and the upload pages share.
func (o *UploadOptions) fillCopyDefaults() {
	orDefault(&o.BufferSize, DefaultBufferSize)
	o.BufferSize = max(o.BufferSize, MinBufferSize)
	orDefault(&o.MaxPreambleBytes, DefaultMaxPreambleBytes)
	orDefault(&o.MaxParts, DefaultMaxParts)
	orDefault(&o.IdleTimeout, DefaultIdleTimeout)
	orDefault(&o.MinRate, DefaultMinRate)
	orDefault(&o.RateWindow, DefaultRateWindow)
	orDefault(&o.ExpiryGrace, DefaultExpiryGrace)
	orDefault(&o.MaxUploadsPerOwner, DefaultMaxUploadsPerOwner)
	orDefault(&o.MaxUploads, DefaultMaxUploads)
	orDefault(&o.MaxUploadMemory, DefaultMaxUploadMemory)
	o.MaxUploadMemory = max(o.MaxUploadMemory, int64(o.BufferSize))
}

// orDefault sets *p to d when it is zero or less: a setting that means
// nothing below one.
func orDefault[T ~int | ~int64](p *T, d T) {
	if *p <= 0 {
		*p = d
	}
}

// zeroDefault sets *p to d when it is zero: a setting whose negative value
// means none.
func zeroDefault[T ~int | ~int64](p *T, d T) {
	if *p == 0 {
		*p = d
	}
}
