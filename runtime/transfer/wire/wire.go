// Package wire holds the wire types of SEP-2631 (File Objects and
// Transfer): the file metadata a server hands out (FileValue, FileDigest),
// the descriptor of an out-of-band transfer (FileTransferDescriptor), the
// params and results of files/authorizeUpload and files/authorizeDownload,
// and the error data of a rejected file, with the reasons that both its
// JSON-RPC errors and the HTTP endpoints' refusals carry. The JSON member
// names are the SEP's; the examples in the SEP round-trip through these
// types unchanged (see wire_test.go).
//
// It is a leaf: the server (package transfer, which gives each of these
// an alias of the same name) and the Go client (transfer/client) both
// import it, so that a program that only uploads and downloads links none
// of the server.
package wire

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/text"
)

// The methods of SEP-2631, for mcp.AddReceivingCustomMethod and
// mcp.AddSendingCustomMethod / mcp.CallCustomMethod.
const (
	MethodAuthorizeUpload   = "files/authorizeUpload"
	MethodAuthorizeDownload = "files/authorizeDownload"
)

// DigestSHA256 is the one digest algorithm SEP-2631 requires ("MUST
// support sha-256") and the only one this package produces or verifies.
const DigestSHA256 = "sha-256"

// A FileDigest is the digest of a file's complete, immutable byte
// sequence: {"algorithm": "sha-256", "value": <base64url without padding>}.
type FileDigest struct {
	Algorithm string `json:"algorithm" jsonschema:"the digest's algorithm: sha-256"`
	Value     string `json:"value" jsonschema:"the digest, base64url without padding"`
}

// SHA256Digest returns the FileDigest of a SHA-256 sum, as from
// sha256.Sum256.
func SHA256Digest(sum [sha256.Size]byte) FileDigest {
	return FileDigest{Algorithm: DigestSHA256, Value: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// sha256ValueLen is the length of a SHA-256 sum in base64url without
// padding.
var sha256ValueLen = base64.RawURLEncoding.EncodedLen(sha256.Size)

// SHA256 returns the sum d holds. It fails when d's algorithm is not
// "sha-256" (compared without regard to case, as hash algorithm names are)
// or its value is not exactly 32 bytes in base64url without padding. The
// error quotes at most a short prefix of what it got.
func (d FileDigest) SHA256() ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	if !strings.EqualFold(d.Algorithm, DigestSHA256) {
		return sum, fmt.Errorf("wire: digest algorithm %s is not supported (want %q)", text.Quote(d.Algorithm, shortLen), DigestSHA256)
	}
	if len(d.Value) != sha256ValueLen {
		return sum, fmt.Errorf("wire: sha-256 digest value %s is %d characters long (want %d characters of base64url without padding)", text.Quote(d.Value, shortLen), len(d.Value), sha256ValueLen)
	}
	n, err := base64.RawURLEncoding.Strict().Decode(sum[:], []byte(d.Value))
	if err != nil || n != sha256.Size {
		return [sha256.Size]byte{}, fmt.Errorf("wire: sha-256 digest value %s is not base64url without padding (want %d characters of A-Z a-z 0-9 - _)", text.Quote(d.Value, shortLen), sha256ValueLen)
	}
	return sum, nil
}

// shortLen is how many bytes of a rejected value an error quotes.
const shortLen = 12

// A FileValue is the metadata of a file the server holds under a file URI
// (mcp-file://…): what files/authorizeUpload and files/authorizeDownload
// return, and what a tool result carries in structuredContent or in a
// content block {"type": "file", "file": …}.
//
// Size is a pointer so that an absent size and a size of 0 (an empty file)
// are told apart and both round-trip.
type FileValue struct {
	URI      string      `json:"uri" jsonschema:"the file's URI (mcp-file:), for files/authorizeDownload"`
	Name     string      `json:"name,omitempty" jsonschema:"the file's name"`
	MimeType string      `json:"mimeType,omitempty" jsonschema:"the file's media type"`
	Size     *int64      `json:"size,omitempty" jsonschema:"the file's size in bytes"`
	Digest   *FileDigest `json:"digest,omitempty" jsonschema:"the digest of the file's bytes"`
}

// The transport and methods of a FileTransferDescriptor.
const (
	// TransportHTTPS is the one transport SEP-2631 defines, multipart
	// form uploads included.
	TransportHTTPS = "https"

	TransferGET  = "GET"  // a download
	TransferPUT  = "PUT"  // an upload of the raw bytes
	TransferPOST = "POST" // an upload, multipart/form-data when Multipart is set
)

// A FileTransferDescriptor tells a client how to move a file's bytes out
// of band: a bearer-style capability, scoped and time-limited. Transport
// is "https"; Method is "GET" for a download, "PUT" or "POST" for an
// upload. Headers are to be sent with the request. Multipart, when set,
// says the upload is a multipart/form-data body with the bytes in the
// part named FileField and the Fields as form fields. ExpiresAt, RFC 3339
// on the wire, is omitted when zero.
type FileTransferDescriptor struct {
	Transport string            `json:"transport"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers,omitempty"`
	Multipart *Multipart        `json:"multipart,omitempty"`
	ExpiresAt time.Time         `json:"expiresAt,omitzero"`
}

// Multipart describes a multipart/form-data upload: the form field of
// the file's bytes and the other fields to send (such as the token).
type Multipart struct {
	FileField string            `json:"fileField"`
	Fields    map[string]string `json:"fields,omitempty"`
}

// An AuthorizedFile is a file's metadata with, optionally, an eager
// download authorization.
type AuthorizedFile struct {
	File     FileValue               `json:"file"`
	Download *FileTransferDescriptor `json:"download,omitempty"`
}

// AuthorizeUploadParams are the params of files/authorizeUpload: what the
// client declares of the file it will upload. Every member is optional;
// Size is a pointer so that a declared size of 0 is kept.
type AuthorizeUploadParams struct {
	mcp.ParamsBase
	Name     string      `json:"name,omitempty"`
	MimeType string      `json:"mimeType,omitempty"`
	Size     *int64      `json:"size,omitempty"`
	Digest   *FileDigest `json:"digest,omitempty"`
}

// AuthorizeDownloadParams are the params of files/authorizeDownload.
type AuthorizeDownloadParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

// ResultComplete is the resultType of a final result (protocol 2026-07-28,
// SEP-2322): the only one files/authorize* results have.
const ResultComplete = "complete"

// AuthorizeUploadResult is the result of files/authorizeUpload: the file
// URI and metadata the upload will produce, the descriptor of the upload,
// and optionally an eager download authorization.
//
// ResultType is always on the wire: "complete" when left empty (see
// MarshalJSON). go-sdk v1.8 sets resultType only on its own result types,
// through an unexported embedded struct a custom result cannot embed, so
// these results carry it themselves; an older client ignores the member.
type AuthorizeUploadResult struct {
	mcp.ResultBase
	ResultType string                  `json:"resultType"`
	File       FileValue               `json:"file"`
	Upload     FileTransferDescriptor  `json:"upload"`
	Download   *FileTransferDescriptor `json:"download,omitempty"`
}

// MarshalJSON writes r with resultType "complete" when r.ResultType is
// empty.
func (r AuthorizeUploadResult) MarshalJSON() ([]byte, error) {
	type plain AuthorizeUploadResult // without this method
	if r.ResultType == "" {
		r.ResultType = ResultComplete
	}
	return json.Marshal(plain(r))
}

// AuthorizeDownloadResult is the result of files/authorizeDownload: the
// file's metadata and the descriptor of its download. ResultType is as in
// [AuthorizeUploadResult].
type AuthorizeDownloadResult struct {
	mcp.ResultBase
	ResultType string                 `json:"resultType"`
	File       FileValue              `json:"file"`
	Download   FileTransferDescriptor `json:"download"`
}

// MarshalJSON writes r with resultType "complete" when r.ResultType is
// empty.
func (r AuthorizeDownloadResult) MarshalJSON() ([]byte, error) {
	type plain AuthorizeDownloadResult // without this method
	if r.ResultType == "" {
		r.ResultType = ResultComplete
	}
	return json.Marshal(plain(r))
}

// The reasons of ErrorData, and of the JSON body {"error": …, "reason": …}
// of a request the HTTP endpoints refuse (the upload and download
// endpoints, upload pages). SEP-2631 names only maxSizeExceeded (in its
// example) and asks that digest mismatches be told apart; the others are
// this package's, in the same style. A reason is stable; the text beside
// it is for people and may change.
const (
	// ReasonMaxSizeExceeded: the file is larger than the field's maxSize,
	// or an upload's body larger than its declared size. MaxSize and
	// ActualSize (the declared or uploaded size) say by how much.
	ReasonMaxSizeExceeded = "maxSizeExceeded"
	// ReasonMimeTypeNotAccepted: the file's media type is not in the
	// field's accept list. MimeType is the rejected type, Accept the list.
	ReasonMimeTypeNotAccepted = "mimeTypeNotAccepted"
	// ReasonDigestMismatch: the uploaded bytes do not have the digest
	// declared in files/authorizeUpload (the upload endpoint's 422).
	ReasonDigestMismatch = "digestMismatch"
	// ReasonExpired: the file URI, or the token of an upload, download or
	// upload page, has expired.
	ReasonExpired = "expired"
	// ReasonUnauthorized: the file URI or token exists but the requester
	// may not use it: it was issued to another principal, by another
	// server, or was altered.
	ReasonUnauthorized = "unauthorized"
	// ReasonNotFound: the server knows no file under the URI, or the file
	// a download token names is gone.
	ReasonNotFound = "notFound"
	// ReasonMalformed: the file URI, the digest or another member of the
	// params, or a request to an HTTP endpoint (its token, its multipart
	// body), is not well formed.
	ReasonMalformed = "malformed"
	// ReasonQuotaExceeded: the owner's uploaded files and this one would
	// pass the server's per-owner quota. MaxSize is the quota, ActualSize
	// what the owner would then hold.
	ReasonQuotaExceeded = "quotaExceeded"

	// ReasonMethodNotAllowed: an HTTP method the endpoint does not take.
	ReasonMethodNotAllowed = "methodNotAllowed"
	// ReasonNoToken: an upload without a token (a PUT without an
	// Authorization: Bearer header).
	ReasonNoToken = "noToken"
	// ReasonUnsupportedBody: a POST whose body is not
	// multipart/form-data.
	ReasonUnsupportedBody = "unsupportedBody"
	// ReasonIncomplete: an upload's body ended, or broke off, before the
	// whole file arrived.
	ReasonIncomplete = "incomplete"
	// ReasonAlreadyUsed: the upload token, or the upload page, was used
	// already: a file is stored under its ID.
	ReasonAlreadyUsed = "alreadyUsed"
	// ReasonContentMismatch: the file's first bytes are not of the
	// declared media type.
	ReasonContentMismatch = "contentMismatch"
	// ReasonPageClosed: the upload page no longer waits for a file (it
	// was declined, or its request ended).
	ReasonPageClosed = "pageClosed"
	// ReasonCrossSite: a post to the upload pages from another site.
	ReasonCrossSite = "crossSite"
	// ReasonNoFile: an upload page's post without a chosen file.
	ReasonNoFile = "noFile"
	// ReasonRangeNotSatisfiable: a download's Range asks for no byte of
	// the file: every range starts past its end, is empty (bytes=-0), or
	// is not a range (bytes=5-4, bytes=-).
	ReasonRangeNotSatisfiable = "rangeNotSatisfiable"
	// ReasonCanceled: the client went away before the request ended.
	ReasonCanceled = "canceled"
	// ReasonTooSlow: an upload was cut because its bytes came slower than
	// the server's minimum rate, or it passed its deadline.
	ReasonTooSlow = "tooSlow"
	// ReasonTooManyUploads: the owner has as many uploads in progress as
	// the server lets one owner have; retry after the Retry-After header.
	ReasonTooManyUploads = "tooManyUploads"
	// ReasonBusy: the server has as many uploads in progress as it takes
	// at once; retry after the Retry-After header.
	ReasonBusy = "busy"
	// ReasonInternal: the server failed (its store, its keys); it logs
	// why and says no more.
	ReasonInternal = "internal"
)

// ErrorData is the machine-readable data of a rejected file, the "data"
// of a JSON-RPC error (SEP-2631 §10):
// {"reason": "maxSizeExceeded", "maxSize": 10485760, "actualSize": 24812345}.
type ErrorData struct {
	Reason     string   `json:"reason"`
	MaxSize    *int64   `json:"maxSize,omitempty"`
	ActualSize *int64   `json:"actualSize,omitempty"`
	MimeType   string   `json:"mimeType,omitempty"`
	Accept     []string `json:"accept,omitempty"`
}

// InvalidFileError returns the JSON-RPC error of a rejected file: code
// -32602 (invalid params, as SEP-2631 says for a malformed file URI or one
// that violates declared constraints), message, and data as its "data".
// An empty message is replaced by one naming the reason.
func InvalidFileError(message string, data ErrorData) *jsonrpc.Error {
	if message == "" {
		message = "invalid file: " + data.Reason
	}
	e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: message}
	if b, err := json.Marshal(data); err == nil { // ErrorData always marshals
		e.Data = b
	}
	return e
}

// ErrorDataOf returns the ErrorData of err when err is (or wraps) a
// *jsonrpc.Error whose data is an object with a non-empty "reason".
func ErrorDataOf(err error) (ErrorData, bool) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || len(je.Data) == 0 {
		return ErrorData{}, false
	}
	var d ErrorData
	if json.Unmarshal(je.Data, &d) != nil || d.Reason == "" {
		return ErrorData{}, false
	}
	return d, true
}

// Compile-time checks: the params and results work with
// mcp.AddReceivingCustomMethod and mcp.CallCustomMethod.
var (
	_ mcp.Params = (*AuthorizeUploadParams)(nil)
	_ mcp.Params = (*AuthorizeDownloadParams)(nil)
	_ mcp.Result = (*AuthorizeUploadResult)(nil)
	_ mcp.Result = (*AuthorizeDownloadResult)(nil)
)
