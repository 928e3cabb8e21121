// Package token signs and checks the two capabilities of SEP-2631
// out-of-band transfer: tokens, which authorize one upload or download, and
// the mcp-file:// URIs the server hands out for uploaded files. Its callers
// are the transfer HTTP handler, which checks the token of each upload, and
// the decoder's resolver, which turns a file URI in tools/call or an
// elicitation answer into a file of the store; neither needs shared state
// beyond a [Keyring], so any replica that holds the keys checks what any
// other replica issued.
//
// Security model: a token or file URI is a stateless bearer capability,
// an HMAC-SHA-256 over everything it grants (and the key that signed it),
// scoped to one purpose and one file, and valid until it expires; whoever
// holds it may use it. When the server has auth, it binds the owner (the
// principal) too, so that another principal's request fails the check;
// single use and quotas are the store's business, not this package's.
//
// # Tokens
//
// [Keyring.Sign] encodes [Claims] as
//
//	<payload>.<mac>
//
// both parts base64url without padding (RFC 4648 §5). The payload is a
// fixed binary layout: a version byte (1), then the key id, purpose, file
// id, owner, size, SHA-256 digest, media type and expiry, each string
// length-prefixed (one byte, two for the owner) and each number 8 bytes
// big-endian (the expiry in Unix seconds). The mac is the full 32-byte
// HMAC-SHA-256, under the secret of the named key, of "mcpfile/token/v1",
// a NUL, and the payload. The layout has exactly one encoding per claim
// set, the decoder accepts nothing else (no trailing bytes, no CR or LF, no
// stray base64 bits), and so a token that verifies is byte for byte what
// Sign produced for its claims.
//
// # File URIs
//
// [Keyring.FileURI] writes
//
//	mcp-file://<host>/<file id>.<key id>.<expiry>.<mac>
//
// where host names the server (lower case, e.g. the host of its public
// URL), expiry is Unix seconds in decimal and mac is the first 16 bytes of
// HMAC-SHA-256 of "mcpfile/file-uri/v1", a NUL, and the host, key id, file
// id, owner and expiry, length-prefixed as in tokens. The owner is signed
// but not written: the resolver passes the caller's principal, and a URI
// of another owner fails like a forged one, so it neither leaks principal
// ids into model-visible text nor tells a stranger that the file exists.
// [Keyring.ParseFileURI] is strict: lower-case scheme and host, no
// userinfo, query, fragment, %-escapes or further path segments, bounded
// length. A file URI is never a path and nothing here touches a file.
//
// # Errors
//
// Verify and ParseFileURI return an [*Error] that wraps one of
// [ErrMalformed], [ErrUnknownKey], [ErrBadSignature], [ErrWrongPurpose] and
// [ErrExpired], for errors.Is. An HTTP handler answers ErrMalformed with
// 400 and the others with 403; a resolver rejects every file URI error as
// invalid params (-32602). No error holds the token or URI, only its length.
package token
