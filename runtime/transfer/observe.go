package transfer

// What the transfer layer logs and measures: every upload, download,
// upload page, authorization, sweep and refusal goes through one
// observer, which writes it as package observe (runtime/internal/observe)
// says, to Options.Logger and Options.MeterProvider. The records and
// instruments are listed in that package's documentation and in the
// README.

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpfile/mcpfile/runtime/internal/observe"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// An observer is the transfer layer's observe.Observer, with the ErrorLog
// that also receives failures of the server's own when one was set.
type observer struct {
	*observe.Observer
	errorLog *log.Logger // nil: none
}

// newObserver is the observer of logger and mp (nil for the defaults),
// whose owners are pseudonyms under keys.
func newObserver(logger *slog.Logger, mp metric.MeterProvider, keys *token.Keyring, errorLog *log.Logger) *observer {
	return &observer{
		Observer: observe.New(observe.Options{Logger: logger, MeterProvider: mp, Pseudonym: keys.Pseudonym}),
		errorLog: errorLog,
	}
}

// UseLogger makes l the logger of the transfer layer of s, in place of
// slog.Default(), when [Register] was given no Options.Logger: every
// record of s's uploads, downloads, pages, authorizations, sweeps and
// refused arguments then goes to l. Package runtime/serve calls it with
// its own Options.Logger, so that a server author who sets one logger
// there hears them all. It does nothing when Register set s up with a
// Logger, or did not set s up; a nil l goes back to slog.Default().
func UseLogger(s *mcp.Server, l *slog.Logger) {
	if c := configOf(s); c != nil {
		c.obs.SetFallback(l)
	}
}

// internal logs a failure of the server's own (a store's, a signer's) in
// op at step, and reports whether it was one: a failure that comes after
// the request's context ended is the client's going away, not the
// server's, and is not logged. Every path answers a failure it reports
// with its own "internal error", never with err's text.
func (o *observer) internal(ctx context.Context, op, step string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	o.Internal(ctx, op, step, err)
	if o.errorLog != nil {
		o.errorLog.Printf("transfer: %s: %s: %v", op, step, err)
	}
	return true
}

// observeUsage reports the total usage of s, when it counts one, as
// mcpfile.store.usage.
func (o *observer) observeUsage(s store.Store, now func() time.Time) {
	if tu, ok := s.(store.TotalUsager); ok {
		o.ObserveUsage(func(ctx context.Context) (int64, error) { return tu.TotalUsage(ctx, now()) })
	}
}

// A transferRecord is the record of one upload or download that a path
// fills in as it learns what it is about, and ends with its answer.
type transferRecord struct {
	observe.Transfer
}

// The methods of a *transferRecord other than begin and end do nothing on
// nil: a path that may be recorded calls them unconditionally.

// begin starts the record of op through via (for uploads) of request r.
func (t *transferRecord) begin(op, via string, r *http.Request) {
	t.Op, t.Via, t.Method, t.Start = op, via, r.Method, time.Now()
}

// about records the file a verified token names.
func (t *transferRecord) about(owner, file, mediaType string, size int64) {
	if t != nil {
		t.Owner, t.File, t.MediaType, t.Size = owner, file, mediaType, size
	}
}

// moved records the bytes the transfer moved.
func (t *transferRecord) moved(n int64) {
	if t != nil {
		t.Bytes = n
	}
}

// refused records the refusal the request is answered with.
func (t *transferRecord) refused(rf *refusal) {
	if t != nil {
		t.Reason = rf.code
	}
}

// end records the answer: rf, or, unless refused recorded one, success
// with status.
func (t *transferRecord) end(ctx context.Context, o *observer, rf *refusal, status int) {
	t.Status = status
	if rf != nil {
		t.Status, t.Reason = rf.status, rf.code
	}
	o.Transfer(ctx, &t.Transfer)
}

// A recordingResponse is the ResponseWriter of an upload page request
// (GET of a page, or the post of its form), with the request's record,
// which the page's code fills in through recordOf.
type recordingResponse struct {
	countingResponse
	rec transferRecord
}

// recordOf is the record of the request w answers, nil when it has none.
func recordOf(w http.ResponseWriter) *transferRecord {
	if rw, ok := w.(*recordingResponse); ok {
		return &rw.rec
	}
	return nil
}

// recordPage records the request r that serve answers on w as op
// (opPage, or opUpload via viaPage).
func (c *config) recordPage(op, via string, w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter)) {
	rw := &recordingResponse{countingResponse: countingResponse{ResponseWriter: w}}
	rw.rec.begin(op, via, r)
	serve(rw)
	rw.rec.end(r.Context(), c.obs, nil, rw.status)
}

// A countingWriter is a download's http.ResponseWriter that counts the
// bytes of the body and keeps the status, for its record. It passes
// ReadFrom on, so that net/http still sends a file with sendfile where it
// can, and Unwrap, for http.ResponseController.
type countingResponse struct {
	http.ResponseWriter
	n      int64
	status int
}

func (w *countingResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *countingResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *countingResponse) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(w.ResponseWriter, r)
	}
	w.n += n
	return n, err
}

func (w *countingResponse) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Names of the operations and ways of records, as package observe has them.
const (
	opUpload    = observe.OpUpload
	opDownload  = observe.OpDownload
	opPage      = observe.OpPage
	viaEndpoint = observe.ViaEndpoint
	viaPage     = observe.ViaPage
)

// recordAuthorize records the answer of files/authorizeUpload or
// files/authorizeDownload (method) sent by from: res, or the refusal err.
func (c *config) recordAuthorize(ctx context.Context, method string, from sender, res any, err error) {
	owner, oerr := c.ownerOf(from)
	if err != nil {
		data, ok := ErrorDataOf(err)
		switch {
		case !ok && oerr != nil:
			return // no principal: recorded as an internal failure
		case !ok:
			return // internal: recorded by config.internal
		}
		attrs := []slog.Attr{c.obs.Owner(owner)}
		if data.MimeType != "" {
			attrs = append(attrs, slog.String("mediaType", data.MimeType))
		}
		if data.ActualSize != nil {
			attrs = append(attrs, slog.Int64("size", *data.ActualSize))
		}
		if data.MaxSize != nil {
			attrs = append(attrs, slog.Int64("limit", *data.MaxSize))
		}
		c.obs.Refused(ctx, method, data.Reason, attrs...)
		return
	}
	var fv *FileValue
	switch r := res.(type) {
	case *AuthorizeUploadResult:
		fv = &r.File
	case *AuthorizeDownloadResult:
		fv = &r.File
	default:
		return
	}
	var size int64
	if fv.Size != nil {
		size = *fv.Size
	}
	file := ""
	if ref, err := c.Keys.ParseFileURI(fv.URI, owner, c.Now()); err == nil {
		file = ref.FileID
	}
	c.obs.Authorized(ctx, method, owner, file, fv.MimeType, size)
}
