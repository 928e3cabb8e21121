package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// The decisions every upload path shares, each made here once: the quota
// (files/authorizeUpload, the upload endpoint, upload pages) and the
// create → copy → commit pipeline (the upload endpoint, upload pages),
// with the copy through two halves of one pooled buffer. A path keeps only
// its own wording. (The answer to a failure of the server's own, which
// every path shares too, is logInternal, in refusal.go.)

// A quota is the one check of how many bytes of unexpired uploaded files
// an owner may hold, in a store that counts them ([store.Usager]), and of
// how many the store may hold in all for a caller without auth to add one
// (a [store.TotalUsager]).
type quota struct {
	usage     store.Usager // nil: no quota
	limit     int64
	total     store.TotalUsager // nil: no bound on callers without auth together
	anonLimit int64
}

// A quotaUse is what a quota check found: the bytes held against the bound
// that applies, and the bound.
type quotaUse struct {
	held, limit int64
	shared      bool // the bound of callers without auth together, not the caller's own
	address     bool // the caller's own bound is its address's (quotaOwner)
	network     bool // and that address is an IPv6 network, a /48
}

// holds says who holds u.held: one (the caller as the path calls it) for
// the caller's own bound.
func (u quotaUse) holds(one string) string {
	switch {
	case u.shared:
		return "callers without auth share a limit on the whole server, which holds"
	case u.network:
		return "callers without auth from this IPv6 network (a /48, all its /64s together; authenticate for a quota of your own) hold"
	case u.address:
		return "callers without auth from this address (authenticate for a quota of your own) hold"
	}
	return one + " holds"
}

// whose says, on an upload page, whose files count against the limit: the
// visitor's own, or for people not signed in all those from their address
// or IPv6 network, which they share.
func (u quotaUse) whose() string {
	switch {
	case u.network:
		return "files from your network, which people who are not signed in share"
	case u.address:
		return "files from your address, which people who are not signed in share"
	}
	return "your files"
}

// signIn is what an upload page adds to whose when signing in would give
// the visitor a limit of their own.
func (u quotaUse) signIn() string {
	if u.network || u.address {
		return ", or sign in for a limit of your own"
	}
	return ""
}

// newQuota is the quota of limit bytes in s; none when limit is not
// positive or s does not count its files.
func newQuota(s store.Store, limit int64) quota {
	if us, ok := s.(store.Usager); ok && limit > 0 {
		return quota{usage: us, limit: limit}
	}
	return quota{}
}

// withAnonymous adds to q the bound of limit bytes on the store as a whole
// for callers without auth, when limit is positive and the store counts
// its total.
func (q quota) withAnonymous(s store.Store, limit int64) quota {
	if tu, ok := s.(store.TotalUsager); ok && q.usage != nil && limit > 0 {
		q.total, q.anonLimit = tu, limit
	}
	return q
}

// admits reports whether a file of size bytes could be held at all.
func (q quota) admits(size int64) bool { return q.usage == nil || size <= q.limit }

// check returns what owner holds at now, and whether size bytes more stay
// within the quota (always, when there is none); for a caller without auth
// (anonymous), also within the bound of the store as a whole, and when
// they do not, what the store holds. err is the store's.
func (q quota) check(ctx context.Context, owner string, size int64, now time.Time) (quotaUse, bool, error) {
	if q.usage == nil {
		return quotaUse{}, true, nil
	}
	used, err := q.usage.Usage(ctx, owner, now)
	if err != nil {
		return quotaUse{}, false, err
	}
	u := quotaUse{held: used, limit: q.limit, address: isAddressKey(owner), network: isNetworkKey(owner)}
	if used > q.limit-size {
		return u, false, nil
	}
	if q.total != nil && anonymous(owner) {
		all, err := q.total.TotalUsage(ctx, now)
		if err != nil {
			return quotaUse{}, false, err
		}
		if all > q.anonLimit-size {
			return quotaUse{held: all, limit: q.anonLimit, shared: true}, false, nil
		}
	}
	return u, true, nil
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
	first    [content.SniffLen]byte // where the first bytes are read, when sniff is set
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
	if in.sniff != nil && nh == 0 {
		// The first bytes arrive into a small buffer of their own and are
		// checked before the copy buffer is taken: a connection that sends
		// nothing, or less than content.SniffLen bytes, holds no more.
		m, err := readFull(in.body, in.first[:min(int64(len(in.first)), limit+1)])
		switch {
		case int64(m) > limit:
			return int64(m), errOversize
		case err != nil:
			return int64(m), fmt.Errorf("%w: %w", errRead, err)
		case m < len(in.first) && int64(m) < limit:
			return int64(m), errShort
		}
		if err := in.sniff(in.first[:m]); err != nil {
			return int64(m), err
		}
		in.head, in.sniff, nh = in.first[:m], nil, int64(m)
	}
	if nh > 0 {
		if _, err := dst.Write(in.head); err != nil {
			return 0, &storeFailure{"write", err}
		}
	}
	n, ended, err := in.trickle(dst, nh, limit)
	if err != nil {
		return n, err
	}
	if !ended {
		buf := in.bufs.get(limit - n)
		defer in.bufs.put(buf)
		m, err := copyFile(dst, in.body, limit-n, buf, in.sniff)
		n += m
		_, mismatch := err.(*sniffError) // as the sniff returned it: no errors.As target to allocate
		switch {
		case errors.Is(err, errOversize), errors.Is(err, errRead), mismatch, errors.Is(err, store.ErrExists):
			return n, err
		case err != nil:
			return n, &storeFailure{"write", err}
		}
	}
	if in.meta.Size != store.SizeUnknown && n < in.meta.Size {
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

// trickle copies the body, of which n bytes of at most limit were read,
// to dst through the small buffer in.first, a read at a time, for as long
// as the bytes come slowly: until a read fills in.first, when the copy
// buffer is worth taking (ended false), or until the body ends (ended
// true). A slow sender holds no more than in.first, however long its
// pace lets it go on. It returns the bytes read in all; its errors are
// errOversize, errRead (wrapped), store.ErrExists and a *storeFailure.
func (in *ingest) trickle(dst io.Writer, n, limit int64) (_ int64, ended bool, _ error) {
	for {
		m, err := in.body.Read(in.first[:min(int64(len(in.first)), limit-n+1)])
		if int64(m) > limit-n {
			return n, false, errOversize
		}
		if m > 0 {
			if _, err := dst.Write(in.first[:m]); errors.Is(err, store.ErrExists) {
				return n, false, err
			} else if err != nil {
				return n, false, &storeFailure{"write", err}
			}
			n += int64(m)
		}
		switch {
		case err == io.EOF:
			return n, true, nil
		case err != nil:
			return n, false, fmt.Errorf("%w: %w", errRead, err)
		case m == len(in.first):
			return n, false, nil
		}
	}
}

// readFull reads r into b until b is full or r ends; an error other than
// r's end is returned.
func readFull(r io.Reader, b []byte) (int, error) {
	n, err := io.ReadFull(r, b)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return n, err
}

// keptBuffers is how many idle copy buffers a handler keeps for reuse.
const keptBuffers = 8

// A bufferPool hands out the copy buffers of uploads and keeps up to
// keptBuffers idle ones. Unlike a sync.Pool, which every collection
// empties, it keeps them across collections: allocating a 512 KiB buffer
// again after each one was a fifth of what the server allocated for a
// 64 MiB upload end to end (BENCHMARKS.md §7).
type bufferPool struct {
	size int
	idle chan []byte
}

func newBufferPool(size int) *bufferPool {
	return &bufferPool{size: size, idle: make(chan []byte, keptBuffers)}
}

// get returns a buffer for a file of at most limit bytes: a full one, or
// for a small file one that holds it twice over (at least MinBufferSize),
// so that a connection that declares a few bytes does not hold half a
// megabyte.
func (p *bufferPool) get(limit int64) []byte {
	if n := p.sizeFor(limit); n < p.size {
		return make([]byte, n)
	}
	select {
	case b := <-p.idle:
		return b
	default:
		return make([]byte, p.size)
	}
}

// sizeFor is the size of the buffer get returns for limit.
func (p *bufferPool) sizeFor(limit int64) int {
	if need := 2 * (limit + 1); need < int64(p.size) {
		return int(max(need, MinBufferSize))
	}
	return p.size
}

// put keeps b for reuse if it is a full buffer and fewer than keptBuffers
// are idle.
func (p *bufferPool) put(b []byte) {
	if len(b) != p.size {
		return
	}
	select {
	case p.idle <- b:
	default:
	}
}

// Errors of copyFile.
var (
	errOversize = errors.New("body larger than the declared size")
	errRead     = errors.New("reading the body")
)

// A sniffError reports that the first bytes are not the declared type.
type sniffError struct {
	declared, detected string
}

func (e *sniffError) Error() string {
	return "content is " + content.Describe(e.detected) + ", not " + e.declared
}

// sniffer returns the check of a file's first bytes against the media
// type declared in its token ("" declares none: nothing to check).
func sniffer(declared string) func(head []byte) error {
	if declared == "" {
		return func([]byte) error { return nil }
	}
	mt, params, err := mime.ParseMediaType(declared)
	if err != nil { // signed by us, so parseable; if not, check the bare type
		mt, _, _ = strings.Cut(declared, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	charset := strings.ToLower(params["charset"])
	return func(head []byte) error {
		if detected, ok := content.Check(mt, charset, head); !ok {
			return &sniffError{declared: mt, detected: detected}
		}
		return nil
	}
}

// copyFile copies src to dst through the two halves of buf: while one
// half is written to dst on a goroutine of its own (and hashed there, by
// the store), src is read into the other. Each half is filled before it is
// written, so that the store sees a few large writes rather than whatever
// each read of the connection returned; but a slow sender's bytes go to
// the store at least every flushAfter.
//
// It stops with errOversize at the first byte past limit, never reading
// further than that one byte; with an error wrapping errRead and src's own
// when src fails; and with the error of dst.Write, which comes first
// whatever else went wrong, and stops the reading at once. A panic in
// dst.Write is raised again in the caller's goroutine. Unless nil, first
// sees the file's first content.SniffLen bytes (or all of a file shorter
// than that which ends at limit) before anything is written, and its
// error stops the copy; a src that ends short of limit before that is left
// to the caller's size check. It returns the bytes read from src and, with
// a nil error, written to dst; it returns only once dst is no longer
// written, so that the caller may abort dst and reuse buf.
//
// Against one 32 KiB buffer read and written in turn, the two halves took
// 38 % off the upload of 64 MiB by multipart POST, and 10 % off 1 GiB
// (BENCHMARKS.md §7): reading a multipart body costs as much as hashing
// it, and each now overlaps the other.
func copyFile(dst io.Writer, src io.Reader, limit int64, buf []byte, first func(head []byte) error) (n int64, err error) {
	var (
		writing sync.WaitGroup
		chunk   []byte // being written
		werr    error  // of the write of chunk, read after writing.Wait
		wpanic  any    // likewise
		failed  atomic.Bool
	)
	write := func() { // made once, so that go write() allocates nothing
		defer writing.Done()
		defer func() {
			if p := recover(); p != nil {
				wpanic = p
				failed.Store(true)
			}
		}()
		if _, werr = dst.Write(chunk); werr != nil {
			failed.Store(true)
		}
	}
	// wait waits for the write in flight and returns its error, if any,
	// before err.
	wait := func(err error) error {
		writing.Wait()
		if wpanic != nil {
			panic(wpanic)
		}
		if werr != nil {
			return werr
		}
		return err
	}
	defer writing.Wait()
	half := len(buf) / 2
	cur, next := buf[:half], buf[half:]
	for {
		atLeast := 1
		if first != nil {
			atLeast = content.SniffLen
		}
		m, rerr := fill(src, cur[:min(int64(len(cur)), limit-n+1)], atLeast, &failed)
		if int64(m) > limit-n {
			return n, wait(errOversize)
		}
		n += int64(m)
		if rerr != nil && rerr != io.EOF {
			return n, wait(fmt.Errorf("%w: %w", errRead, rerr))
		}
		if err := wait(nil); err != nil {
			return n, err
		}
		if first != nil {
			if rerr == io.EOF && n < limit {
				return n, nil // short: the caller's to say
			}
			if err := first(cur[:min(m, content.SniffLen)]); err != nil {
				return n, err
			}
			first = nil
		}
		if m > 0 {
			chunk = cur[:m]
			writing.Add(1)
			go write()
		}
		if rerr == io.EOF {
			return n, wait(nil)
		}
		cur, next = next, cur
	}
}

// flushAfter is how long copyFile waits for a half to fill before it
// writes what it has: a store that streams to a server with an idle
// timeout (S3's is some 20 s) keeps getting bytes from a slow sender, and
// an upload page's progress keeps moving.
const flushAfter = 250 * time.Millisecond

// fill reads from r into b until b is full or r fails (io.EOF included),
// or, once it has atLeast bytes, when flushAfter has passed since it
// started. It stops before its next read once stop is set.
func fill(r io.Reader, b []byte, atLeast int, stop *atomic.Bool) (n int, err error) {
	start := time.Now()
	for n < len(b) && err == nil && !stop.Load() {
		if n >= atLeast && time.Since(start) >= flushAfter {
			break
		}
		var m int
		m, err = r.Read(b[n:])
		n += m
	}
	return n, err
}
