package transfer

import (
	"errors"
	"net/http"
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
