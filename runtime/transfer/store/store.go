// Package store defines where uploaded files live between the upload and
// the tool call that uses them: the [Store] interface, its errors and the
// file IDs it accepts.
//
// The transfer layer (SEP-2631 out-of-band uploads) calls a Store; server
// authors choose one and pass it in its options. The main module has two:
// package diskstore, a directory on local disk and the default, and package
// memstore, in memory, for tests. Other backends (S3) live in their own
// modules. Every backend runs the conformance suite in package storetest.
//
// A Store gives the transfer layer the storage half of its guarantees:
//
//   - An object is written through a [Writer] and becomes visible under its
//     ID only when [Writer.Commit] succeeds: complete, of exactly the size
//     declared in its [Meta] (or, declared of [SizeUnknown], of the length
//     written, at most its [Meta.MaxSize]), and with the declared SHA-256 if
//     one was given. A half-written object is never visible.
//   - Commit is create-if-absent: of all the writers of one ID, at most one
//     ever commits, and every other gets [ErrExists]. This is what makes an
//     upload token single use without a shared database.
//   - Every rejection (a write past the size or the maximum size, a short or
//     mismatched body, an abort, a cancelled context, a lost race) leaves
//     nothing behind, and leaves the ID free: a rejected attempt does not
//     use up the ID.
//   - A committed object survives a restart of the process (for stores that
//     persist: diskstore does, memstore does not).
//   - Objects expire: after [Meta.Expires], [Store.Stat] and [Store.Open]
//     report [ErrNotFound], and [Store.Sweep] (run it with [RunSweeper])
//     deletes them.
//   - IDs are checked by [ValidID] on every method: nothing that looks like
//     a path reaches a backend.
//   - A [Usager] that counts open writers counts each at the most it can
//     take (its declared size, or its MaxSize when the size is unknown) from
//     Create until it ends, and then, if it committed, at the size of its
//     object: never twice, and never a writer that failed.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpfile/mcpfile/runtime/internal/observe"
)

// Errors a Store returns, wrapped or as they are; test them with [errors.Is].
var (
	// ErrNotFound: no committed object has the ID, or it has expired.
	ErrNotFound = errors.New("store: object not found")
	// ErrExists: an object with the ID was committed before (it may have
	// expired since, but has not been deleted). The earlier object is intact.
	ErrExists = errors.New("store: object already exists")
	// ErrBadID: the ID is not one [ValidID] accepts.
	ErrBadID = errors.New("store: invalid object id")
	// ErrTooLarge: a write went past [Meta.Size], or past [Meta.MaxSize]
	// when the size is [SizeUnknown].
	ErrTooLarge = errors.New("store: object larger than its declared size")
	// ErrIncomplete: Commit was called before [Meta.Size] bytes were
	// written. It never applies to a size of [SizeUnknown].
	ErrIncomplete = errors.New("store: object smaller than its declared size")
	// ErrDigest: the bytes written do not have the SHA-256 declared in
	// [Meta.SHA256].
	ErrDigest = errors.New("store: object digest mismatch")
	// ErrClosed: the Writer was already committed, aborted or failed.
	ErrClosed = errors.New("store: writer closed")
)

// MaxIDLen is the length of the longest ID a Store accepts.
const MaxIDLen = 128

// SizeUnknown, as the [Meta.Size] given to [Store.Create], declares an
// object whose length is not known until it is written, such as the file
// of a browser's form post. The Writer then takes at most [Meta.MaxSize]
// bytes: a write past it fails with [ErrTooLarge] and writes nothing,
// spending the Writer, exactly as a write past a known Size does. Commit
// records the length written ([ErrIncomplete] never applies, and an empty
// object is allowed), and checks a declared SHA-256 as for any object;
// [Store.Stat] and [Store.Open] report that length.
const SizeUnknown = -1

// Meta describes a stored object.
type Meta struct {
	// Size is the object's length in bytes. It is declared when the object
	// is created, and the Writer enforces it exactly; or it is
	// [SizeUnknown], and the Writer takes up to MaxSize bytes. Returned by
	// [Store.Stat] it is the length stored, never SizeUnknown.
	Size int64
	// MaxSize is the most bytes a Writer of unknown size takes. It is used
	// only with Size == [SizeUnknown], and must be above 0 then ([Meta.Limit]
	// and so [Store.Create] refuse it otherwise); with a known Size it is
	// ignored. [Store.Stat] returns it as 0.
	MaxSize int64
	// MediaType is the declared media type, stored as given.
	MediaType string
	// Name is the file name, sanitized by the caller and stored as given.
	Name string
	// Owner is the principal the object belongs to, "" when the server has
	// no auth. The store records it; checking it is the caller's business.
	Owner string
	// SHA256 is the digest of the bytes. Given to [Store.Create] it is the
	// declared digest, which Commit checks (the zero value declares none);
	// returned by [Store.Stat] it is the digest of the stored bytes,
	// computed while they were written.
	SHA256 [32]byte
	// Expires is when the object stops being visible and becomes eligible
	// for [Store.Sweep]. The zero value never expires.
	Expires time.Time
}

// Expired reports whether an object with meta m has expired at now.
func (m Meta) Expired(now time.Time) bool {
	return !m.Expires.IsZero() && !now.Before(m.Expires)
}

// Limit returns the most bytes a Writer of an object declared by m takes:
// m.Size, or m.MaxSize when m.Size is [SizeUnknown]. It fails, saying what
// is allowed, when m declares neither: a negative Size other than
// SizeUnknown, or SizeUnknown with a MaxSize not above 0. Every Store's
// Create checks m with it.
func (m Meta) Limit() (int64, error) {
	switch {
	case m.Size >= 0:
		return m.Size, nil
	case m.Size != SizeUnknown:
		return 0, fmt.Errorf("store: size %d (want 0 or more, or SizeUnknown with a MaxSize above 0)", m.Size)
	case m.MaxSize <= 0:
		return 0, fmt.Errorf("store: size unknown with MaxSize %d (want a MaxSize above 0 with SizeUnknown)", m.MaxSize)
	}
	return m.MaxSize, nil
}

// Store keeps uploaded objects by ID. Implementations are safe for
// concurrent use. Every method returns [ErrBadID] for an ID that [ValidID]
// refuses, and the context's error if ctx is done when it is called.
type Store interface {
	// Create starts writing the object id, declared by m, which
	// [Meta.Limit] must accept. Nothing is visible under id until
	// [Writer.Commit] succeeds. Create may fail early with [ErrExists] when
	// id is already committed; Commit is the authority.
	Create(ctx context.Context, id string, m Meta) (Writer, error)
	// Stat returns the Meta of the committed object id, with the SHA256 of
	// its bytes; [ErrNotFound] if there is none or it has expired.
	Stat(ctx context.Context, id string) (Meta, error)
	// Open returns a reader of the committed object's bytes; [ErrNotFound]
	// if there is none or it has expired. The caller closes it.
	Open(ctx context.Context, id string) (Reader, error)
	// Delete removes the committed object id. Deleting an object that does
	// not exist is not an error. Writers of id that have not committed are
	// not affected.
	Delete(ctx context.Context, id string) error
	// Sweep deletes the objects that have expired at now, and any temporary
	// objects the store judges abandoned, and returns how many it deleted.
	Sweep(ctx context.Context, now time.Time) (int, error)
}

// A Presigner is a Store whose clients upload straight to the backend:
// it signs a request that the backend itself enforces (the exact length,
// the media type, the SHA-256 when one is declared, and create-if-absent),
// so the bytes never pass through the server. The transfer layer hands the
// signed request to the client as the upload descriptor, in place of its own
// upload endpoint; the object becomes visible under id only when the
// backend has taken the whole body. Meta is as for [Store.Create], but its
// Size must be known: a presigned upload always declares its exact length,
// and PresignUpload refuses [SizeUnknown]. The signature is good until
// expires.
type Presigner interface {
	PresignUpload(ctx context.Context, id string, m Meta, expires time.Time) (SignedRequest, error)
}

// A DownloadPresigner is a Store whose clients download straight from the
// backend: it signs a GET of the object id, good until expires, whose
// response the backend serves with the given Content-Type and
// Content-Disposition (so that a browser saves the file and runs nothing
// in it), or, when it cannot, with application/octet-stream and a bare
// attachment. A signed URL lands in access logs, so it should not carry
// them: a backend that serves an object with headers kept from when it
// was stored keeps these ([ContentDisposition] of the name) there. The
// transfer layer hands the signed request to the client as the download
// descriptor, in place of its own download endpoint.
type DownloadPresigner interface {
	PresignDownload(ctx context.Context, id, contentType, contentDisposition string, expires time.Time) (SignedRequest, error)
}

// A SignedRequest is an HTTP request a client sends as it is: the method,
// the URL and the headers, which are part of what was signed.
type SignedRequest struct {
	Method  string
	URL     string
	Headers map[string]string
}

// A Usager is a Store that can tell how many bytes of unexpired objects an
// owner has: what the transfer layer holds against its per-owner quota.
// The count may include the owner's open writers, so that concurrent
// uploads of one owner see each other (diskstore and memstore do): each at
// its declared size, or at its [Meta.MaxSize] while its size is
// [SizeUnknown] (the most it may take), until it ends; a writer that
// commits is then counted as its object, at the length written. Stores
// that cannot answer cheaply leave it out, and have no quota.
type Usager interface {
	Usage(ctx context.Context, owner string, now time.Time) (int64, error)
}

// A TotalUsager is a [Usager] that can also tell how many bytes of
// unexpired objects it holds in all, of every owner, with its open writers
// counted as Usage counts them: what the transfer layer holds callers
// without auth to, together. diskstore and memstore implement it.
type TotalUsager interface {
	TotalUsage(ctx context.Context, now time.Time) (int64, error)
}

// Writer writes one object. It is not safe for concurrent use, but its
// methods may be called from different goroutines one after the other: the
// upload handler writes each part of a file from a goroutine of its own.
//
// A write that would take the object past [Meta.Size] (or past
// [Meta.MaxSize], when the size is [SizeUnknown]) fails with [ErrTooLarge]
// and writes nothing. After any failed Write the Writer is spent: Commit
// returns the error and leaves nothing behind.
//
// Abort after a successful Commit does nothing, so a caller can always
//
//	w, err := s.Create(ctx, id, m)
//	if err != nil { … }
//	defer w.Abort()
//	if _, err := io.Copy(w, body); err != nil { … }
//	if err := w.Commit(ctx); err != nil { … }
type Writer interface {
	io.Writer
	// Commit makes the object visible under its ID, if it is complete
	// ([ErrIncomplete] if not; an object of [SizeUnknown] is complete
	// whatever its length), has the declared digest ([ErrDigest]), and
	// no object was committed under the ID before ([ErrExists]; the earlier
	// object is intact). A failed Commit leaves nothing behind.
	Commit(ctx context.Context) error
	// Abort discards what was written. It does nothing after Commit.
	Abort() error
}

// Reader reads a committed object. Size is its length in bytes.
type Reader interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
	Size() int64
}

// ValidID reports whether a Store accepts id: 1 to [MaxIDLen] characters,
// each an ASCII letter, digit, '-' or '_'. This keeps every ID a plain file
// name and a plain object key: no '/', '\\', '.', '%', NUL or space can
// appear, so "..", "%2e%2e", "/abs", "C:" and "a/b" are all refused. The
// error wraps [ErrBadID] and says what is allowed.
func ValidID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty (want 1 to %d characters of A-Z a-z 0-9 - _)", ErrBadID, MaxIDLen)
	}
	if len(id) > MaxIDLen {
		return fmt.Errorf("%w: %d bytes long (want 1 to %d characters of A-Z a-z 0-9 - _)", ErrBadID, len(id), MaxIDLen)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !idChar(c) {
			return fmt.Errorf("%w: %q has %q at byte %d (want 1 to %d characters of A-Z a-z 0-9 - _)", ErrBadID, id, c, i, MaxIDLen)
		}
	}
	return nil
}

// CheckCall is the check every Store method starts with: id must be one
// [ValidID] accepts (the error wraps [ErrBadID]), and ctx must not be done
// (its error).
func CheckCall(ctx context.Context, id string) error {
	if err := ValidID(id); err != nil {
		return err
	}
	return ctx.Err()
}

func idChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// RunSweeper calls s.Sweep every interval, with the time of the tick, until
// ctx is done, and then returns. After each sweep it writes a record of it
// to slog.Default() ("sweep": deleted, duration, and the error of one that
// failed) and counts the files deleted (mcpfile.store.swept, through
// otel.GetMeterProvider()), and calls report, if not nil, with the number
// deleted and the error; a failed sweep does not stop the loop. Servers
// run it in a goroutine beside the store. A sweep that ctx's end cuts
// short is neither recorded nor reported.
func RunSweeper(ctx context.Context, s Store, interval time.Duration, report func(deleted int, err error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			n, err := s.Sweep(ctx, now)
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return // cut short by the end of the loop, not failed
			}
			observe.Default().Sweep(ctx, fmt.Sprintf("%T", s), n, time.Since(now), err)
			if report != nil {
				report(n, err)
			}
		}
	}
}
