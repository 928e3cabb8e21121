package transfer

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// The one check of a file URI (mcp-file://…) that a caller sends, for
// every path that takes one: the resolution of tools/call arguments,
// files/authorizeDownload, and the requestState of an upload page's retry.

// A uriProblem is why a file URI names no file the caller may have.
type uriProblem int

const (
	uriMalformed   uriProblem = iota // not a file URI of the grammar (lookupError.detail says what)
	uriExpired                       // past its expiry
	uriForged                        // not signed for this caller by these keys: altered, another server's, another caller's
	uriForeign                       // signed by these keys for another host
	uriMissing                       // no file is stored under it (never uploaded, deleted, expired)
	uriOtherOwner                    // the stored file belongs to another principal
	uriReplaced                      // the stored file has another size or SHA-256 than was authorized
	uriStoreFailed                   // the store failed (lookupError.err); the server's own failure
	uriProblems                      // how many there are
)

// A uriWording is what one path says of each uriProblem but
// uriStoreFailed, which every path answers as its internal error. What is
// malformed in a malformed URI is the server's business: no wording says.
type uriWording [uriProblems]string

// reasons are the ErrorData reasons of the problems.
var reasons = [uriProblems]string{
	uriMalformed:  ReasonMalformed,
	uriExpired:    ReasonExpired,
	uriForged:     ReasonUnauthorized,
	uriForeign:    ReasonUnauthorized,
	uriMissing:    ReasonNotFound,
	uriOtherOwner: ReasonUnauthorized,
	uriReplaced:   ReasonDigestMismatch,
}

// A lookupError is why a file URI names no file the caller may have.
type lookupError struct {
	problem uriProblem
	err     error // of uriStoreFailed
}

// reason is the ErrorData reason of e.
func (e *lookupError) reason() string { return reasons[e.problem] }

// text is what w says of e.
func (e *lookupError) text(w *uriWording) string { return w[e.problem] }

// checkFileURI checks the signature of uri for owner, its expiry and its
// host, and returns what it names.
func (c *config) checkFileURI(uri, owner string) (token.FileRef, *lookupError) {
	ref, err := c.Keys.ParseFileURI(uri, owner, c.Now())
	switch {
	case errors.Is(err, token.ErrMalformed):
		return ref, &lookupError{problem: uriMalformed}
	case errors.Is(err, token.ErrExpired):
		return ref, &lookupError{problem: uriExpired}
	case err != nil: // unknown key, bad signature
		return ref, &lookupError{problem: uriForged}
	case ref.Host != c.Host:
		return ref, &lookupError{problem: uriForeign}
	}
	return ref, nil
}

// lookup checks uri for owner (checkFileURI) and returns what it names
// and the stored file's metadata, which must be the owner's, and of the
// size and SHA-256 the URI says were authorized (see authorized).
func (c *config) lookup(ctx context.Context, uri, owner string) (token.FileRef, store.Meta, *lookupError) {
	ref, le := c.checkFileURI(uri, owner)
	if le != nil {
		return ref, store.Meta{}, le
	}
	m, err := c.Store.Stat(ctx, ref.FileID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ref, store.Meta{}, &lookupError{problem: uriMissing}
	case err != nil:
		return ref, store.Meta{}, &lookupError{problem: uriStoreFailed, err: err}
	case !storedFor(m.Owner, ref.Owner):
		return ref, store.Meta{}, &lookupError{problem: uriOtherOwner}
	case !authorized(ref, m):
		c.obs.internal(ctx, "file URI", "store check", fmt.Errorf("file %s: the store holds %d bytes of another size or SHA-256 than were authorized under its file URI: it was replaced behind the server's back", ref.FileID, m.Size))
		return ref, store.Meta{}, &lookupError{problem: uriReplaced}
	}
	return ref, m, nil
}

// authorized reports whether the stored file m is what the file URI of
// ref was issued for. What was authorized lives in the URI itself, sealed
// by the server's keys, so no write to the store can change it: the size
// of an upload (declared to files/authorizeUpload) or of an output, and
// its SHA-256 when it was known (declared, or of an output). What is
// compared is the store's Meta, which it knows without reading the bytes:
// S3 the object's length and the SHA-256 checksum it keeps (a HEAD with
// checksum mode; where it keeps none, what the store recorded in the
// object's metadata or tags), diskstore and memstore what they recorded at
// commit. A
// URI of an upload page knows neither, and a URI whose digest was not
// declared knows only the size; for those the store's record is all
// there is.
func authorized(ref token.FileRef, m store.Meta) bool {
	if ref.Sized && m.Size != ref.Size {
		return false
	}
	var none [token.SHA256PrefixLen]byte
	return ref.SHA256Prefix == none || [token.SHA256PrefixLen]byte(m.SHA256[:token.SHA256PrefixLen]) == ref.SHA256Prefix
}

// sized is ref, saying that size bytes, and when sum is not nil the
// SHA-256 sum, were authorized for its file.
func sized(ref token.FileRef, size int64, sum []byte) token.FileRef {
	ref.Sized, ref.Size = true, size
	copy(ref.SHA256Prefix[:], sum)
	return ref
}
