package transfer_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// behindBearer is an auth layer in front of h: it lets through only
// requests whose Authorization is the user's bearer, "Bearer abc".
func behindBearer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer abc" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestUploadPUTBehindBearerAuth: a PUT through an auth layer that takes
// Authorization for the user's bearer carries its upload token in
// Mcp-Upload-Token, and the upload endpoint reads it from there and leaves
// Authorization alone; without that header, Authorization: Bearer is still
// the token.
func TestUploadPUTBehindBearerAuth(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		r := put("", bytes.NewReader(data), false)
		r.Header.Set("Authorization", "Bearer abc")
		r.Header.Set(transfer.HeaderUploadToken, sign(t, fx.keys, claims(data)))
		wantCreated(t, fx, serve(behindBearer(fx.handler), r), data)
	})
	stores(t, func(t *testing.T, fx *fixture) {
		wantCreated(t, fx, serve(fx.handler, put(sign(t, fx.keys, claims(data)), bytes.NewReader(data), false)), data)
	})
	fx := newFixture(t, "memstore")
	tok := sign(t, fx.keys, claims(data))
	for _, tt := range []struct {
		name   string
		tokens []string
		status int
		reason string
	}{
		{"two token headers", []string{tok, tok}, http.StatusBadRequest, transfer.ReasonMalformed},
		{"an empty token header", []string{" "}, http.StatusUnauthorized, transfer.ReasonNoToken},
	} {
		r := put("", bytes.NewReader(data), false)
		r.Header.Set("Authorization", "Bearer abc")
		for _, v := range tt.tokens {
			r.Header.Add(transfer.HeaderUploadToken, v)
		}
		w := serve(behindBearer(fx.handler), r)
		if w.Code != tt.status || reasonOf(w.Body.Bytes()) != tt.reason || bytes.Contains(w.Body.Bytes(), []byte(tok)) {
			t.Errorf("%s: %d %s, want %d %s without the token", tt.name, w.Code, w.Body, tt.status, tt.reason)
		}
	}
}
