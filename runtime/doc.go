// Package runtime is what an MCP server built with mcpfile compiles in: it
// turns the string a client sent for an x-mcp-file argument (SEP-2356) into
// a validated [File], or into an [*Error] whose text the client shows to the
// model. Everything a client sends is treated as hostile until checked.
//
// A generated UnmarshalJSON method is one call to [Object.Unmarshal], which
// finds the file members of the JSON object, decodes each with [DecodeJSON]
// (or checks it with [ValidateJSON], for a field kept as a string) against
// the x-mcp-file constraints of the type's schema, and leaves the other
// members to encoding/json; servers and tests can call [Decode], [Validate]
// and [Encode] directly.
//
// # What is accepted
//
// Only RFC 2397 data: URIs, data:[<mediatype>][;base64],<data>; every other
// value (https:, file:, mcp-file:, a path, an empty string) breaks
// [RuleScheme] and is never fetched or opened. The scheme and the ";base64"
// marker are case-insensitive. The form is checked strictly (breaking
// [RuleURIForm]):
//
//   - The media type is type/subtype of RFC 2045 token characters, "*"
//     excluded, lower-cased into File.MediaType. When it is omitted, RFC
//     2397's default applies: text/plain with charset US-ASCII unless a
//     charset parameter is given ("data:;charset=utf-8,…").
//   - Parameters are attribute=value with a token name and a value of token
//     characters and %XX escapes, decoded into File.Params; a repeated
//     name, a parameter without "=", and ";base64" anywhere but last are
//     errors. The media type and its parameters may take 2048 bytes.
//   - A name= parameter, which older drafts put in the URI, is tolerated:
//     it is %-decoded, passed through [SanitizeName] into File.Name and left
//     out of File.Params. Nothing depends on it.
//   - Base64 data uses the standard alphabet (RFC 4648 §4, not the URL-safe
//     one). Padding is optional: unpadded data is decoded as such. Line
//     breaks (CR, LF) are ignored, as RFC 2045 and encoding/base64 do; any
//     other whitespace, a '%', or '=' before the end is invalid. Non-zero
//     padding bits are tolerated, as in encoding/base64.
//   - Percent-encoded data decodes %XX escapes (either case); every other
//     byte stands for itself (a model may write "data:text/plain,a b"),
//     except control characters, which must be escaped, and a '%' not
//     followed by two hex digits. '+' is a plus sign, not a space.
//   - Leading whitespace before "data:" is an error, not trimmed.
//
// # Checks and their order
//
// [Decode] checks, in order: scheme, form of the media type and parameters,
// the media type against accept ([Descriptor.Accepts], [RuleMediaType]),
// the decoded size against maxSize ([RuleMaxSize]), the data itself
// ([RuleURIForm]), and the content ([RuleContent]). The size check comes
// before the decoded buffer is allocated: for base64 the decoded size follows
// from the encoded length and the padding, for percent-encoding from the
// length and the number of '%'. A file of exactly maxSize bytes is accepted.
// Without a maxSize, [DefaultMaxSize] (32 MiB) applies.
//
// # Content check
//
// The media type of a data: URI is advisory; the spec forbids dispatching on
// it without looking at the bytes. The first 512 decoded bytes are given to
// net/http.DetectContentType (the WHATWG MIME Sniffing algorithm), and:
//
//   - A declared type with a fixed signature must have it: PNG (and APNG),
//     JPEG, GIF, WebP, BMP, ICO, PDF, ZIP, gzip, RAR, WebAssembly, Ogg,
//     WAV, AIFF, MIDI, AVI, WebM (any EBML, so Matroska too), WOFF, WOFF2, OpenType and font
//     collections, EOT, with their common aliases (image/jpg, audio/x-wav,
//     application/gzip…). ZIP-based types (Office Open XML, OpenDocument,
//     EPUB, JAR, APK, anything "+zip") must be a ZIP archive.
//   - A declared textual type (text/*, JSON, XML, YAML, JavaScript, and the
//     +json, +xml, +yaml suffixes) must sniff as text: no binary bytes (NUL
//     and the like) in the first 512 bytes, and no binary signature (a PNG
//     sent as text/plain is rejected).
//   - Every other declared type (application/octet-stream, image/tiff,
//     image/avif, video/mp4, audio/mpeg, application/msword…) is not
//     checked: the sniffer cannot recognise it reliably, so it is not blocked.
//
// The sniffer is the standard library's on purpose: its signatures are the
// WHATWG standard's and change with it only, it reads at most 512 bytes,
// allocates nothing, keeps no global state, and is already linked into every
// MCP server. A larger library (github.com/gabriel-vasile/mimetype) knows
// more formats, but recognises text formats such as JSON, CSV or SVG by
// heuristics, which a check that rejects files cannot rely on.
//
// The check confirms the kind of file, not that it is well-formed: a server
// that parses the bytes must still treat them as untrusted (OWASP ASVS 5.0
// §V5). [Descriptor].NoSniff turns the check off for one argument.
//
// # Errors
//
// Every failure is an [*Error] that names the argument and the rule in the
// words of the SEP, with the figures:
//
//	Argument 'image' exceeds maxSize: received 15728640 bytes, limit is 5242880.
//	Argument 'documents' exceeds maxFiles: received 5 files, limit is 3.
//	Argument 'image' has a media type that accept does not allow: received "text/plain", allowed are image/png, image/jpeg.
//	Argument 'image' fails the content check: declared "image/png" but the bytes are text; send image/png data or declare the real media type.
//	Argument 'image' is not a data: URI: received scheme "https:", only data: URIs are accepted.
//	Argument 'image' is not a valid data: URI: there is no comma before the data; the form is data:[<mediatype>][;base64],<data>.
//
// An error text never contains file bytes; it quotes only tokens checked to
// be a scheme or a media type, cut to 64 bytes.
//
// # Redaction
//
// File values are sensitive (SEP-2356). A [File] prints under every fmt verb,
// logs through log/slog and marshals to JSON as metadata only, e.g.
// data:image/png;base64,[70 bytes]; [Redact] does the same for a URI kept as
// a string.
//
// # Performance
//
// [DecodeJSON] reads a JSON string token without escapes in place, checks
// it with vector routines (bytes.IndexByte for quotes and backslashes,
// github.com/segmentio/asm's ascii.ValidPrint for control characters and
// non-ASCII bytes), and decodes base64 with github.com/segmentio/asm's
// AVX2 decoder (about eight times encoding/base64's speed, and already in the
// MCP Go SDK's module graph) into one buffer of exactly the decoded size.
// [Object.Unmarshal] skips long strings the same way, so a multi-megabyte argument
// is walked at close to memory speed.
package runtime
