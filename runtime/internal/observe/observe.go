// Package observe is where mcpfile's logs and metrics are made, in one
// place: every record a transfer, a page, a fetch, a sweep or a refusal
// writes to the server's log/slog logger, and every measurement it makes
// through OpenTelemetry's metric API. The packages that do the work
// (transfer, fetch, runtime) call one method of an [Observer] per event;
// what the event logs and counts is decided here.
//
// Records never carry file bytes, tokens, file URIs or URLs that may hold
// a signature: an owner is a short keyed hash (the Pseudonym an Observer
// is given), a fetched URL its scheme and host, a file its ID in the
// store, and an internal failure the store's or signer's error. The
// instruments are a no-op until the program installs a MeterProvider
// (otel.SetMeterProvider, or the one the Observer is given).
//
// # Records
//
// One record per event, with typed attributes:
//
//	upload      Info  an upload stored (via endpoint or page): owner, file, mediaType,
//	                  size (declared or the page's limit), bytes, status, duration
//	download    Info  a download served: owner, file, status, size, bytes, duration
//	authorized  Info  files/authorizeUpload or files/authorizeDownload granted: op,
//	                  owner, file, mediaType, size
//	refused     Warn  every refusal, HTTP or JSON-RPC or of a tool's argument or an
//	                  elicitation's answer: op, reason (the stable code of the refusal
//	                  table or data.reason, the rule a file broke, or invalid),
//	                  status (HTTP), arg (an argument), and what the refusal is about
//	                  (owner, file, size, bytes, duration); Info when the client went
//	                  away (reason canceled)
//	internal    Error a failure of the server's own: op, step, err
//	fetch       Info  a fetch: host (scheme://host), bytes, duration; a refused or
//	                  failed one is a refused record with op fetch
//	sweep       Info  a store sweep: deleted, duration; Error with err when it failed
//
// # Metrics
//
// Instrumentation scope "github.com/mcpfile/mcpfile"; attributes in
// brackets:
//
//	mcpfile.uploads           counter    {upload}    uploads stored [mcpfile.via]
//	mcpfile.upload.bytes      counter    By          bytes stored by uploads [mcpfile.via]
//	mcpfile.upload.duration   histogram  s           uploads with a valid token, stored or refused, from request to answer [mcpfile.via, mcpfile.outcome]
//	mcpfile.uploads.active    updown     {upload}    uploads in progress
//	mcpfile.downloads         counter    {download}  downloads served
//	mcpfile.download.bytes    counter    By          bytes sent by downloads
//	mcpfile.download.duration histogram  s           downloads [mcpfile.outcome]
//	mcpfile.authorizations    counter    {authorization} files/authorize* granted [mcpfile.operation]
//	mcpfile.rejections        counter    {rejection} refusals [mcpfile.operation, mcpfile.reason]
//	mcpfile.fetches           counter    {fetch}     fetches done [mcpfile.outcome]
//	mcpfile.fetch.bytes       counter    By          bytes fetched
//	mcpfile.fetch.duration    histogram  s           fetches [mcpfile.outcome]
//	mcpfile.store.usage       async updown By        bytes of unexpired files the store holds
//	mcpfile.store.swept       counter    {file}      files deleted by sweeps
//
// mcpfile.outcome is "ok" or the refusal's reason; mcpfile.via is
// "endpoint" (the upload endpoint) or "page" (an upload page).
package observe

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Scope is the instrumentation scope of every instrument.
const Scope = "github.com/mcpfile/mcpfile"

// The attribute keys of the metrics.
const (
	KeyOperation = "mcpfile.operation"
	KeyReason    = "mcpfile.reason"
	KeyOutcome   = "mcpfile.outcome"
	KeyVia       = "mcpfile.via"
)

// The operations an event names (attribute op, mcpfile.operation).
const (
	OpUpload            = "upload"
	OpDownload          = "download"
	OpPage              = "page" // showing an upload page
	OpAuthorizeUpload   = "files/authorizeUpload"
	OpAuthorizeDownload = "files/authorizeDownload"
	OpToolCall          = "tools/call"  // a tool's file argument
	OpElicitation       = "elicitation" // a file in an answer to runtime.Elicit
	OpFetch             = "fetch"
	OpSweep             = "sweep"
)

// The ways an upload comes in (attribute via, mcpfile.via).
const (
	ViaEndpoint = "endpoint"
	ViaPage     = "page"
)

// Reasons this package gives events that have no refusal code of their
// own: a fetch's, and success.
const (
	OutcomeOK      = "ok"
	ReasonCanceled = "canceled"
	ReasonInternal = "internal"
)

// Options configure [New].
type Options struct {
	// Logger receives the records. Nil means slog.Default(), looked up at
	// each record, so that a program that sets its default later is
	// heard.
	Logger *slog.Logger
	// MeterProvider makes the instruments. Nil means
	// otel.GetMeterProvider(): a no-op until the program sets one, and
	// then that one (the global provider forwards to it).
	MeterProvider metric.MeterProvider
	// Pseudonym turns an owner into what records show of it: a short
	// keyed hash. Nil means owners are not logged.
	Pseudonym func(owner string) string
}

// An Observer writes the records and measurements of one server (or of
// one fetcher). Its methods are safe for concurrent use; a nil Observer
// is the default one.
type Observer struct {
	logger   *slog.Logger
	fallback atomic.Pointer[slog.Logger] // used in place of slog.Default() when logger is nil
	pseudo   func(string) string
	m        *instruments
}

// New returns the Observer of o.
func New(o Options) *Observer {
	mp := o.MeterProvider
	var m *instruments
	if mp == nil {
		m = globalInstruments()
	} else {
		m = newInstruments(mp)
	}
	return &Observer{logger: o.Logger, pseudo: o.Pseudonym, m: m}
}

// defaultObserver is the Observer of code that has none of its own.
var defaultObserver = sync.OnceValue(func() *Observer { return New(Options{}) })

// Default returns the Observer with the default logger and the global
// MeterProvider.
func Default() *Observer { return defaultObserver() }

func (o *Observer) or() *Observer {
	if o == nil {
		return Default()
	}
	return o
}

// Logger returns the logger o writes to: its Options.Logger, else the
// one SetFallback gave it, else slog.Default().
func (o *Observer) Logger() *slog.Logger {
	o = o.or()
	if o.logger != nil {
		return o.logger
	}
	if l := o.fallback.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// SetFallback makes l the logger of o when it was made without one, in
// place of slog.Default(); nil goes back to slog.Default(). An Observer
// made with a logger keeps it. It does nothing to the default Observer.
func (o *Observer) SetFallback(l *slog.Logger) {
	if o == nil || o == Default() {
		return
	}
	o.fallback.Store(l)
}

// owner is the attribute of owner: its pseudonym, or "anonymous" for the
// owner "" of callers without auth where the protocol has no sessions.
func (o *Observer) owner(owner string) slog.Attr {
	switch {
	case owner == "":
		return slog.String("owner", "anonymous")
	case o.pseudo == nil:
		return slog.String("owner", "-")
	}
	return slog.String("owner", o.pseudo(owner))
}

// Transfer is one upload (through the endpoint or a page) or download,
// from its request to its answer. Reason "" is a success.
type Transfer struct {
	Op        string // OpUpload or OpDownload
	Via       string // for uploads: ViaEndpoint or ViaPage
	Method    string // the HTTP method
	Owner     string // as the store records it; logged as a pseudonym
	File      string // the file ID in the store, "" before the token is read
	MediaType string
	Size      int64 // the declared size (an upload's limit), or the file's
	Bytes     int64 // the bytes moved
	Status    int
	Reason    string // "" on success; else the refusal's code
	Start     time.Time
}

// Transfer records t, which has ended.
func (o *Observer) Transfer(ctx context.Context, t *Transfer) {
	o = o.or()
	d := time.Since(t.Start)
	outcome := t.Reason
	if outcome == "" {
		outcome = OutcomeOK
	}
	switch t.Op {
	case OpUpload:
		if t.Reason == "" {
			o.m.uploads.Add(ctx, 1, attrOpt(KeyVia, t.Via, "", ""))
			o.m.uploadBytes.Add(ctx, t.Bytes, attrOpt(KeyVia, t.Via, "", ""))
		}
		if t.File != "" { // its token verified
			o.m.uploadDuration.Record(ctx, d.Seconds(), attrOpt(KeyVia, t.Via, KeyOutcome, outcome))
		}
	case OpDownload:
		if t.Reason == "" {
			o.m.downloads.Add(ctx, 1)
		}
		o.m.downloadBytes.Add(ctx, t.Bytes)
		o.m.downloadDuration.Record(ctx, d.Seconds(), attrOpt(KeyOutcome, outcome, "", ""))
	}
	if t.Reason != "" {
		o.m.rejections.Add(ctx, 1, attrOpt(KeyOperation, t.Op, KeyReason, t.Reason))
	}
	l := o.Logger()
	level, msg := slog.LevelInfo, t.Op
	if t.Reason != "" {
		level, msg = refusedLevel(t.Reason), "refused"
	}
	if !l.Enabled(ctx, level) {
		return
	}
	var a [13]slog.Attr
	attrs := append(a[:0], slog.String("op", t.Op))
	if t.Reason != "" {
		attrs = append(attrs, slog.String("reason", t.Reason))
	}
	if t.Via != "" {
		attrs = append(attrs, slog.String("via", t.Via))
	}
	attrs = append(attrs, slog.String("method", t.Method), slog.Int("status", t.Status))
	if t.File != "" {
		attrs = append(attrs, o.owner(t.Owner), slog.String("file", t.File))
		if t.MediaType != "" {
			attrs = append(attrs, slog.String("mediaType", t.MediaType))
		}
		attrs = append(attrs, slog.Int64("size", t.Size))
	}
	attrs = append(attrs, slog.Int64("bytes", t.Bytes), slog.Duration("duration", d))
	l.LogAttrs(ctx, level, msg, attrs...)
}

// refusedLevel is the level of a refusal for reason: Info when the
// client went away, Error for a failure of the server's own (whose detail
// an internal record has), Warn otherwise.
func refusedLevel(reason string) slog.Level {
	switch reason {
	case ReasonCanceled:
		return slog.LevelInfo
	case ReasonInternal:
		return slog.LevelError
	}
	return slog.LevelWarn
}

// UploadsActive adds delta to the uploads in progress.
func (o *Observer) UploadsActive(ctx context.Context, delta int64) {
	o.or().m.uploadsActive.Add(ctx, delta)
}

// Authorized records a files/authorizeUpload (size declared) or
// files/authorizeDownload (size of the file) granted.
func (o *Observer) Authorized(ctx context.Context, op, owner, file, mediaType string, size int64) {
	o = o.or()
	o.m.authorizations.Add(ctx, 1, attrOpt(KeyOperation, op, "", ""))
	l := o.Logger()
	if !l.Enabled(ctx, slog.LevelInfo) {
		return
	}
	l.LogAttrs(ctx, slog.LevelInfo, "authorized", slog.String("op", op), o.owner(owner),
		slog.String("file", file), slog.String("mediaType", mediaType), slog.Int64("size", size))
}

// Refused records a refusal of op for reason, other than a transfer's
// (see Transfer): a JSON-RPC error's data.reason, or the rule a tool's
// argument broke. attrs say what it is about; they must follow the
// package's rule (no bytes, tokens, URIs). An owner is given as
// Owner(owner).
func (o *Observer) Refused(ctx context.Context, op, reason string, attrs ...slog.Attr) {
	o = o.or()
	o.m.rejections.Add(ctx, 1, attrOpt(KeyOperation, op, KeyReason, reason))
	l := o.Logger()
	level := refusedLevel(reason)
	if !l.Enabled(ctx, level) {
		return
	}
	all := make([]slog.Attr, 0, 2+len(attrs))
	all = append(all, slog.String("op", op), slog.String("reason", reason))
	all = append(all, attrs...)
	l.LogAttrs(ctx, level, "refused", all...)
}

// Owner is the attribute of owner, for Refused.
func (o *Observer) Owner(owner string) slog.Attr { return o.or().owner(owner) }

// Internal records a failure of the server's own in op at step (a store's,
// a signer's); err is that failure's error, never the client's input.
func (o *Observer) Internal(ctx context.Context, op, step string, err error) {
	o.or().Logger().LogAttrs(ctx, slog.LevelError, "internal", slog.String("op", op), slog.String("step", step), slog.String("err", err.Error()))
}

// Fetch records a fetch from host (scheme://host, never the path or
// query) that took d: bytes fetched, or, when reason is not "", refused
// or failed for reason, err saying why (its text names URLs by scheme and
// host only, as package fetch writes them).
func (o *Observer) Fetch(ctx context.Context, host string, bytes int64, d time.Duration, reason string, err error) {
	o = o.or()
	outcome := reason
	if outcome == "" {
		outcome = OutcomeOK
	}
	o.m.fetches.Add(ctx, 1, attrOpt(KeyOutcome, outcome, "", ""))
	o.m.fetchBytes.Add(ctx, bytes)
	o.m.fetchDuration.Record(ctx, d.Seconds(), attrOpt(KeyOutcome, outcome, "", ""))
	if reason != "" {
		o.m.rejections.Add(ctx, 1, attrOpt(KeyOperation, OpFetch, KeyReason, reason))
	}
	l := o.Logger()
	level, msg := slog.LevelInfo, OpFetch
	if reason != "" {
		level, msg = refusedLevel(reason), "refused"
	}
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("op", OpFetch)}
	if reason != "" {
		attrs = append(attrs, slog.String("reason", reason))
	}
	attrs = append(attrs, slog.String("host", host), slog.Int64("bytes", bytes), slog.Duration("duration", d))
	if err != nil {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	l.LogAttrs(ctx, level, msg, attrs...)
}

// Sweep records a sweep of a store (where names it, as a directory or
// "store") that deleted n files in d, or failed with err.
func (o *Observer) Sweep(ctx context.Context, where string, n int, d time.Duration, err error) {
	o = o.or()
	o.m.swept.Add(ctx, int64(n))
	attrs := []slog.Attr{slog.String("op", OpSweep), slog.String("store", where), slog.Int("deleted", n), slog.Duration("duration", d)}
	if err != nil {
		o.Logger().LogAttrs(ctx, slog.LevelError, OpSweep, append(attrs, slog.String("err", err.Error()))...)
		return
	}
	o.Logger().LogAttrs(ctx, slog.LevelInfo, OpSweep, attrs...)
}

// ObserveUsage reports usage, the bytes of unexpired files a store holds,
// as mcpfile.store.usage at each collection. usage's error skips the
// observation. The returned function stops it.
func (o *Observer) ObserveUsage(usage func(ctx context.Context) (int64, error)) (stop func()) {
	o = o.or()
	reg, err := o.m.meter.RegisterCallback(func(ctx context.Context, obs metric.Observer) error {
		n, err := usage(ctx)
		if err != nil {
			return nil // a store that cannot say now may say at the next collection
		}
		obs.ObserveInt64(o.m.storeUsage, n)
		return nil
	}, o.m.storeUsage)
	if err != nil {
		return func() {}
	}
	return func() { reg.Unregister() }
}

// instruments are the instruments of one MeterProvider.
type instruments struct {
	meter            metric.Meter
	uploads          metric.Int64Counter
	uploadBytes      metric.Int64Counter
	uploadDuration   metric.Float64Histogram
	uploadsActive    metric.Int64UpDownCounter
	downloads        metric.Int64Counter
	downloadBytes    metric.Int64Counter
	downloadDuration metric.Float64Histogram
	authorizations   metric.Int64Counter
	rejections       metric.Int64Counter
	fetches          metric.Int64Counter
	fetchBytes       metric.Int64Counter
	fetchDuration    metric.Float64Histogram
	storeUsage       metric.Int64ObservableUpDownCounter
	swept            metric.Int64Counter
}

// durationBuckets are the bucket boundaries of the duration histograms,
// in seconds: those OpenTelemetry's HTTP conventions advise, and more up
// to the hour a large upload may take.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 300, 900, 3600}

// globalInstruments are those of the global MeterProvider, made once: it
// forwards them to the provider the program sets, whenever it does.
var globalInstruments = sync.OnceValue(func() *instruments { return newInstruments(otel.GetMeterProvider()) })

// newInstruments makes the instruments of mp. An instrument the provider
// refuses is a no-op (the API returns one beside its error).
func newInstruments(mp metric.MeterProvider) *instruments {
	m := mp.Meter(Scope)
	i := &instruments{meter: m}
	i.uploads, _ = m.Int64Counter("mcpfile.uploads", metric.WithUnit("{upload}"), metric.WithDescription("Uploads stored."))
	i.uploadBytes, _ = m.Int64Counter("mcpfile.upload.bytes", metric.WithUnit("By"), metric.WithDescription("Bytes of files stored by uploads."))
	i.uploadDuration, _ = m.Float64Histogram("mcpfile.upload.duration", metric.WithUnit("s"), metric.WithDescription("Duration of uploads, stored or refused, from request to answer."), metric.WithExplicitBucketBoundaries(durationBuckets...))
	i.uploadsActive, _ = m.Int64UpDownCounter("mcpfile.uploads.active", metric.WithUnit("{upload}"), metric.WithDescription("Uploads in progress."))
	i.downloads, _ = m.Int64Counter("mcpfile.downloads", metric.WithUnit("{download}"), metric.WithDescription("Downloads served."))
	i.downloadBytes, _ = m.Int64Counter("mcpfile.download.bytes", metric.WithUnit("By"), metric.WithDescription("Bytes sent by downloads."))
	i.downloadDuration, _ = m.Float64Histogram("mcpfile.download.duration", metric.WithUnit("s"), metric.WithDescription("Duration of downloads, from request to answer."), metric.WithExplicitBucketBoundaries(durationBuckets...))
	i.authorizations, _ = m.Int64Counter("mcpfile.authorizations", metric.WithUnit("{authorization}"), metric.WithDescription("files/authorizeUpload and files/authorizeDownload requests granted."))
	i.rejections, _ = m.Int64Counter("mcpfile.rejections", metric.WithUnit("{rejection}"), metric.WithDescription("Requests and arguments refused, by operation and reason."))
	i.fetches, _ = m.Int64Counter("mcpfile.fetches", metric.WithUnit("{fetch}"), metric.WithDescription("Files fetched from URLs, or refused."))
	i.fetchBytes, _ = m.Int64Counter("mcpfile.fetch.bytes", metric.WithUnit("By"), metric.WithDescription("Bytes fetched from URLs."))
	i.fetchDuration, _ = m.Float64Histogram("mcpfile.fetch.duration", metric.WithUnit("s"), metric.WithDescription("Duration of fetches."), metric.WithExplicitBucketBoundaries(durationBuckets...))
	i.storeUsage, _ = m.Int64ObservableUpDownCounter("mcpfile.store.usage", metric.WithUnit("By"), metric.WithDescription("Bytes of unexpired files the store holds."))
	i.swept, _ = m.Int64Counter("mcpfile.store.swept", metric.WithUnit("{file}"), metric.WithDescription("Expired files deleted by store sweeps."))
	return i
}

// The attribute sets of measurements, made once each: a measurement with
// attributes then costs no attribute set of its own. Keys and values come
// from small sets (the operations, ways and reason codes), so the cache
// stays small.
var (
	attrMu    sync.RWMutex
	attrCache = map[[4]string]metric.MeasurementOption{}
)

// attrOpt is the option of the attributes k1=v1 and, unless k2 is "",
// k2=v2.
func attrOpt(k1, v1, k2, v2 string) metric.MeasurementOption {
	key := [4]string{k1, v1, k2, v2}
	attrMu.RLock()
	opt, ok := attrCache[key]
	attrMu.RUnlock()
	if ok {
		return opt
	}
	kvs := []attribute.KeyValue{attribute.String(k1, v1)}
	if k2 != "" {
		kvs = append(kvs, attribute.String(k2, v2))
	}
	opt = metric.WithAttributeSet(attribute.NewSet(kvs...))
	attrMu.Lock()
	attrCache[key] = opt
	attrMu.Unlock()
	return opt
}
