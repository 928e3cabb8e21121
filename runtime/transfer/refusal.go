package transfer

// How the HTTP endpoints refuse a request, and how every path, HTTP or
// JSON-RPC, answers a failure of the server's own.

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The refusals of the HTTP endpoints (upload, download, upload pages), in
// one table: each a stable machine code, the JSON body's "reason" (the
// ErrorData reason where the meaning is the same), a status, and a
// sentence for people, the JSON body's "error", which a path may word its
// own way ([refusal.says]). A refusal never carries a token or a byte of
// a file.
var (
	refuseMethod       = &refusal{ReasonMethodNotAllowed, http.StatusMethodNotAllowed, "method not allowed"}
	refuseNoToken      = &refusal{ReasonNoToken, http.StatusUnauthorized, "no token (want an Mcp-Upload-Token: <upload token> header, or Authorization: Bearer <upload token>)"}
	refuseBodyType     = &refusal{ReasonUnsupportedBody, http.StatusUnsupportedMediaType, "POST wants a multipart/form-data body (or PUT the bytes)"}
	refuseMalformed    = &refusal{ReasonMalformed, http.StatusBadRequest, "malformed request"}
	refuseExpired      = &refusal{ReasonExpired, http.StatusForbidden, "token expired"}
	refuseUnauthorized = &refusal{ReasonUnauthorized, http.StatusForbidden, "token not valid here"}
	refuseOtherOwner   = &refusal{ReasonUnauthorized, http.StatusForbidden, "token was issued to another owner"}
	refuseQuota        = &refusal{ReasonQuotaExceeded, http.StatusInsufficientStorage, "quota exceeded"}
	refuseTooLarge     = &refusal{ReasonMaxSizeExceeded, http.StatusRequestEntityTooLarge, "body is larger than the declared size"}
	refuseIncomplete   = &refusal{ReasonIncomplete, http.StatusBadRequest, "body ended before the declared size"}
	refuseUsed         = &refusal{ReasonAlreadyUsed, http.StatusConflict, "upload token already used"}
	refuseContent      = &refusal{ReasonContentMismatch, http.StatusUnsupportedMediaType, "content is not the declared media type"}
	refuseNotAccepted  = &refusal{ReasonMimeTypeNotAccepted, http.StatusUnsupportedMediaType, "media type not accepted"}
	refuseDigest       = &refusal{ReasonDigestMismatch, http.StatusUnprocessableEntity, "digest mismatch"}
	refuseNotFound     = &refusal{ReasonNotFound, http.StatusNotFound, "the file is gone"}
	refuseRange        = &refusal{ReasonRangeNotSatisfiable, http.StatusRequestedRangeNotSatisfiable, "the Range asks for no byte of the file (want bytes=first-last, bytes=first- or bytes=-n, with n above 0, that overlaps it)"}
	refusePageClosed   = &refusal{ReasonPageClosed, http.StatusGone, pageGone}
	refuseCrossSite    = &refusal{ReasonCrossSite, http.StatusForbidden, "This form was sent from another site. Use the upload page the application gave you."}
	refuseNoFile       = &refusal{ReasonNoFile, http.StatusBadRequest, "No file was chosen. Choose a file, then send it."}
	refuseCanceled     = &refusal{ReasonCanceled, http.StatusBadRequest, "request canceled"}
	refuseInternal     = &refusal{ReasonInternal, http.StatusInternalServerError, "internal error"}
	refuseTooSlow      = &refusal{ReasonTooSlow, http.StatusRequestTimeout, "upload too slow"}
	refuseTooMany      = &refusal{ReasonTooManyUploads, http.StatusTooManyRequests, "too many uploads in progress"}   // with Retry-After
	refuseBusy         = &refusal{ReasonBusy, http.StatusServiceUnavailable, "the server is busy with other uploads"} // with Retry-After
)

// A refusal is why an HTTP endpoint refuses a request (see the table
// above).
type refusal struct {
	code   string // stable: the JSON body's "reason"
	status int
	text   string // for people: the JSON body's "error"
}

// says returns the refusal r with text for people in place of its own.
func (r *refusal) says(text string) *refusal {
	c := *r
	c.text = text
	return &c
}

// refusalBody is the JSON body of a refusal.
type refusalBody struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
}

// write answers with r: its status (with WWW-Authenticate: Bearer for a
// 401) and the JSON body {"error": text, "reason": code}.
func (r *refusal) write(w http.ResponseWriter) {
	if r.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	writeJSON(w, r.status, refusalBody{Error: r.text, Reason: r.code})
}

// httpInternal is the refusal of a failure of the server's own in an
// HTTP request to where, logged to o (see observer.internal): internal, or
// canceled when the client went away.
func httpInternal(o *observer, r *http.Request, where, step string, err error) *refusal {
	if !o.internal(r.Context(), where, step, err) {
		return refuseCanceled
	}
	return refuseInternal
}

// logInternal logs a failure of the server's own (see observer.internal).
func logInternal(o *observer, ctx context.Context, where, step string, err error) bool {
	return o.internal(ctx, where, step, err)
}

// internal is the JSON-RPC error of a failure of the server's own in
// method, logged (see logInternal).
func (c *config) internal(ctx context.Context, method, step string, err error) error {
	logInternal(c.obs, ctx, method, step, err)
	c.obs.Refused(ctx, method, ReasonInternal)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: method + ": internal error"}
}
