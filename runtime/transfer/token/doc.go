// Package token seals and checks the two capabilities of SEP-2631
// out-of-band transfer: tokens, which authorize one upload or download, and
// the mcp-file:// URIs the server hands out for uploaded files. Its callers
// are the transfer HTTP handler, which checks the token of each upload, and
// the decoder's resolver, which turns a file URI in tools/call or an
// elicitation answer into a file of the store; neither needs shared state
// beyond a [Keyring], so any replica that holds the keys checks what any
// other replica issued.
//
// Security model: a token or file URI is a stateless bearer capability,
// sealed (encrypted and authenticated, AES-256-GCM) over everything it
// grants and the key that sealed it, scoped to one purpose and one file,
// and valid until it expires; whoever holds it may use it, and no one
// without the key can read it. When the server has auth, it binds the
// owner (the principal) too, so that another principal's request fails
// the check; single use and quotas are the store's business, not this
// package's.
//
// Nothing a token or file URI grants is in clear: not the principal, file
// name, media type, size, digest, file id or expiry. Tokens travel in
// places that are logged and kept (a download URL is a GET path that
// lands in access logs, proxies and browser history; a file URI is shown
// to models), so only what is needed to check one is readable: the key id,
// which picks the key, and a file URI's host, which its scheme requires.
// A token's length is rounded up to 32 bytes of claims, so it tells little
// of the lengths of its owner and name.
//
// # Sealing
//
// Everything sealed here, [Keyring.Seal]'s texts included, is sealed the
// same way: AES-256-GCM under a key derived from the Key's secret (its
// HMAC-SHA-256 of "mcpfile/seal/v1", a NUL and a NUL), with a random
// 96-bit nonce, written as nonce, ciphertext and tag. The additional data
// starts with a domain that names the use ("mcpfile/seal/v1",
// "mcpfile/token/v2" or "mcpfile/file-uri/v2", then a NUL) and the key id,
// so that a text sealed for one use never opens as another, nor under
// another key id. Random nonces bound a key to some 2^32 seals; rotate
// keys long before.
//
// # Tokens
//
// [Keyring.Sign] writes [Claims] as
//
//	<key id>.<sealed>
//
// where sealed is base64url without padding (RFC 4648 §5) of the sealed
// claims. The claims are a fixed binary layout: the purpose, file id,
// owner, size, SHA-256 digest, media type, name and expiry, each string
// length-prefixed (one byte, two for the owner and name) and each number
// 8 bytes big-endian (the expiry in Unix seconds), then zeros to a
// multiple of 32 bytes. The layout has exactly one encoding per claim set,
// and the decoder accepts nothing else (no trailing bytes, no CR or LF, no
// stray base64 bits). The same claims seal to a different token each time.
//
// # File URIs
//
// [Keyring.FileURI] writes
//
//	mcp-file://<host>/<key id>.<sealed>
//
// where host names the server (lower case, e.g. the host of its public
// URL) and sealed is base64url of the file's expiry (8 bytes, Unix seconds),
// file id (its length, then its characters packed 6 bits each) and, when
// they were known as the URI was made, what was authorized of the file's
// bytes (its size, and the first 16 bytes of its SHA-256), sealed with the
// host and owner in the additional data. The owner is bound but
// not written: the resolver passes the caller's principal, and a URI of
// another owner fails like a forged one, so it neither leaks principal
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
