package transfer

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// The checks of the tokens the HTTP endpoints take, one for each: the
// upload endpoint's, the download endpoint's and the upload pages' all
// verify here and check the owner here. (File URIs are checked in
// fileuri.go.)

// verifyToken verifies tok for purpose at now: well formed (else
// malformed), unexpired (else expired), signed by keys for that purpose
// (else unauthorized; the text says which, never the token).
func verifyToken(keys *token.Keyring, tok string, purpose string, now time.Time) (token.Claims, *refusal) {
	c, err := keys.Verify(tok, purpose, now)
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, token.ErrMalformed):
		return c, refuseMalformed.says(err.Error())
	case errors.Is(err, token.ErrExpired):
		return c, refuseExpired.says(err.Error())
	default: // unknown key, bad signature, wrong purpose
		return c, refuseUnauthorized.says(err.Error())
	}
}

// checkOwner refuses a request whose principal, when owner says it has
// one, is not the token's, issuedTo.
func checkOwner(owner func(*http.Request) (string, bool), r *http.Request, issuedTo string) *refusal {
	if p, ok := owner(r); ok && p != issuedTo {
		return refuseOtherOwner
	}
	return nil
}

// HeaderUploadToken is the header in which a PUT to the upload endpoint
// carries its upload token: a header of its own, which an auth layer in
// front of the endpoint leaves alone while it takes Authorization for the
// user's bearer. A PUT without it may still carry the token as
// "Authorization: Bearer <token>", as clients built before it do.
const HeaderUploadToken = "Mcp-Upload-Token"

// putToken returns the upload token of a PUT: its Mcp-Upload-Token
// header when it has one (its Authorization then belongs to an auth
// layer, and is not read), else its Authorization: Bearer.
func putToken(r *http.Request) (string, *refusal) {
	switch vals := r.Header.Values(HeaderUploadToken); {
	case len(vals) == 0:
		return bearerToken(r)
	case len(vals) > 1:
		return "", refuseMalformed.says("more than one " + HeaderUploadToken + " header (want one)")
	case strings.TrimSpace(vals[0]) == "":
		return "", refuseNoToken
	default:
		return strings.TrimSpace(vals[0]), nil
	}
}
