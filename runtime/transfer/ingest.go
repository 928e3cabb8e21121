package transfer

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// The decisions every upload path shares, each made here once: the quota
// (files/authorizeUpload, the upload endpoint, upload pages), the create →
// copy → commit pipeline (the upload endpoint, upload pages) and the
// answer to a failure of the server's own (every path). A path keeps only
// its own wording.

// A quota is the one check of how many bytes of unexpired uploaded files
// an owner may hold, in a store that counts them ([store.Usager]).
type quota struct {
	usage store.Usager // nil: no quota
	limit int64
}

// newQuota is the quota of limit bytes in s; none when limit is not
// positive or s does not count its files.
func newQuota(s store.Store, limit int64) quota {
	if us, ok := s.(store.Usager); ok && limit > 0 {
		return quota{usage: us, limit: limit}
	}
	return quota{}
}

// admits reports whether a file of size bytes could be held at all.
func (q quota) admits(size int64) bool { return q.usage == nil || size <= q.limit }

// check returns what owner holds at now, and whether size bytes more stay
// within the quota (always, when there is none); err is the store's.
func (q quota) check(ctx context.Context, owner string, size int64, now time.Time) (used int64, ok bool, err error) {
	if q.usage == nil {
		return 0, true, nil
	}
	used, err = q.usage.Usage(ctx, owner, now)
	if err != nil {
		return 0, false, err
	}
	return used, used <= q.limit-size, nil
}

// An ingest is one file's way into a store: create the object under its
// ID (the token's single use) → copy the body into it through one buffer,
// holding it to its size and sniffing its first bytes, while the store
// hashes them → commit, where the store checks the digest and makes the
// file visible. The upload endpoint and upload pages each run one.
type ingest struct {
	store store.Store
	id    string
	meta  store.Meta // a Size of store.SizeUnknown takes up to MaxSize
	head  []byte     // the body's first bytes, already read: written first
	body  io.Reader  // the rest
	// sniff, unless nil, checks the first content.SniffLen bytes of the
	// body (head must then be empty) before anything is written.
	sniff func(head []byte) error
	// received, unless nil, counts the bytes written to the store.
	received *atomic.Int64
	bufs     *bufferPool
}

// Errors of an ingest besides copyFile's (errOversize, errRead, a
// *sniffError) and the store's (store.ErrExists when the ID is taken,
// store.ErrDigest).
var (
	// errShort: the body ended before the declared size.
	errShort = errors.New("body shorter than the declared size")
)

// A storeFailure is a failure of the store at one step of an ingest: the
// server's own, which the client is told nothing of.
type storeFailure struct {
	step string // "create", "write", "commit"
	err  error
}

func (e *storeFailure) Error() string { return "store " + e.step + ": " + e.err.Error() }
func (e *storeFailure) Unwrap() error { return e.err }

// run runs the ingest, and returns the bytes the file has (head
// included). Nothing is left in the store unless it returns nil. Its
// errors are errOversize, errShort, errRead (wrapped), a *sniffError,
// store.ErrExists, store.ErrDigest or a *storeFailure.
func (in *ingest) run(ctx context.Context) (int64, error) {
	limit := in.meta.Size
	if limit == store.SizeUnknown {
		limit = in.meta.MaxSize
	}
	nh := int64(len(in.head))
	if nh > limit {
		return 0, errOversize
	}
	obj, err := in.store.Create(ctx, in.id, in.meta)
	switch {
	case errors.Is(err, store.ErrExists):
		return 0, err
	case err != nil:
		return 0, &storeFailure{"create", err}
	}
	defer obj.Abort() // after a successful Commit it does nothing
	var dst io.Writer = obj
	if in.received != nil {
		dst = &countingWriter{w: obj, n: in.received}
	}
	if nh > 0 {
		if _, err := dst.Write(in.head); err != nil {
			return 0, &storeFailure{"write", err}
		}
	}
	buf := in.bufs.get(limit - nh)
	defer in.bufs.put(buf)
	n, err := copyFile(dst, in.body, limit-nh, buf, in.sniff)
	n += nh
	var mismatch *sniffError
	switch {
	case errors.Is(err, errOversize), errors.Is(err, errRead), errors.As(err, &mismatch), errors.Is(err, store.ErrExists):
		return n, err
	case err != nil:
		return n, &storeFailure{"write", err}
	case in.meta.Size != store.SizeUnknown && n < in.meta.Size:
		return n, errShort
	}
	switch err := obj.Commit(ctx); {
	case errors.Is(err, store.ErrExists), errors.Is(err, store.ErrDigest):
		return n, err
	case err != nil:
		return n, &storeFailure{"commit", err}
	}
	return n, nil
}

// A countingWriter counts the bytes written through it into n.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (cw *countingWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n.Add(int64(n))
	return n, err
}

// httpInternal is the refusal of a failure of the server's own in an
// HTTP request to where (see logInternal): internal, or canceled when the
// client went away.
func (c *config) httpInternal(r *http.Request, where, step string, err error) *refusal {
	if !logInternal(c.ErrorLog, r.Context(), where, step, err) {
		return refuseCanceled
	}
	return refuseInternal
}

// logInternal logs a failure of the server's own (a store's, a signer's)
// at where ("upload", "files/authorizeUpload", …) and step, and reports
// whether it was one: a failure that comes after the request's context
// ended is the client's going away, not the server's, and is not logged.
// Every path answers a failure it reports with its own "internal error",
// never with err's text.
func logInternal(l *log.Logger, ctx context.Context, where, step string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	l.Printf("transfer: %s: %s: %v", where, step, err)
	return true
}
