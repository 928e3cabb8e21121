package token

import (
	"errors"
	"strconv"
)

// The kinds of rejection. Verify and ParseFileURI wrap exactly one of them
// in an [*Error].
var (
	// ErrMalformed: the input is not a token or file URI as this package
	// writes them (bad syntax, bad base64, a field out of range, too long).
	ErrMalformed = errors.New("malformed")
	// ErrUnknownKey: the input names a key id the keyring does not hold
	// (a key rotated out, or another server's key).
	ErrUnknownKey = errors.New("unknown signing key")
	// ErrBadSignature: the sealed part does not open (its authentication
	// tag does not match); the input was altered, forged, sealed for
	// another use, or (for a file URI) belongs to another owner or host.
	ErrBadSignature = errors.New("bad signature")
	// ErrWrongPurpose: a genuine token issued for another purpose.
	ErrWrongPurpose = errors.New("wrong purpose")
	// ErrExpired: a genuine token or file URI past its expiry.
	ErrExpired = errors.New("expired")
)

// An Error reports why a token or file URI was rejected. It never holds
// the input, only its length: both are bearer capabilities and errors end
// up in logs.
type Error struct {
	Input  string // "token", "file URI" or "sealed text"
	Len    int    // length in bytes of the rejected input
	Err    error  // ErrMalformed, ErrUnknownKey, ErrBadSignature, ErrWrongPurpose or ErrExpired
	Reason string // the rule broken, or ""
}

// fileURIForm is what a malformed file URI's error says a file URI looks like.
const fileURIForm = "want mcp-file://<host>/<key id>.<sealed> as returned by files/authorizeUpload"

// Error returns e.g. `token (120 bytes): bad signature` or
// `file URI (31 bytes): malformed: query not allowed (want mcp-file://…)`.
func (e *Error) Error() string {
	s := e.Input + " (" + strconv.Itoa(e.Len) + " bytes): " + e.Err.Error()
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Input == inputFileURI && e.Err == ErrMalformed {
		s += " (" + fileURIForm + ")"
	}
	return s
}

// Unwrap returns the kind of rejection, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

const (
	inputToken   = "token"
	inputFileURI = "file URI"
	inputSealed  = "sealed text"
)
