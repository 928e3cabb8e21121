// Package runtime is what an MCP server built with mcpfile uses: tools and
// elicitation forms whose arguments hold files (SEP-2356's x-mcp-file), each
// file checked before the handler sees it. A server:
//
//	type DescribeArgs struct {
//		Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg,maxSize=5MiB"`
//	}
//
//	func main() {
//		s := mcp.NewServer(&mcp.Implementation{Name: "images", Version: "v1"}, nil)
//		runtime.AddTool(s, &mcp.Tool{Name: "describe_image"}, func(ctx context.Context, req *mcp.CallToolRequest, in DescribeArgs) (*mcp.CallToolResult, any, error) {
//			r, err := in.Image.Open() // the checked bytes; in.Image.Bytes() has them in memory
//			if err != nil {
//				return nil, nil, err
//			}
//			defer r.Close()
//			cfg, format, err := image.DecodeConfig(r) // reads the header only
//			if err != nil {
//				return nil, nil, err
//			}
//			return nil, map[string]any{"format": format, "width": cfg.Width, "height": cfg.Height, "bytes": in.Image.Size()}, nil
//		})
//		s.Run(context.Background(), &mcp.StdioTransport{})
//	}
//
// with //go:generate go tool mcpfilegen in the package, which writes the
// type's MCPSchema and UnmarshalJSON. The handler reads a [File] through
// [File.Open], a reader that works for every file, or takes the bytes of a
// file held in memory, as every inline file is, from [File.Bytes]; [NewFile]
// builds a File for a test. [AddTool] registers the tool, [Elicit] asks the
// user for a file mid-call in a form, [ElicitUpload] through an upload page
// in their browser (for big files), [Unmarshal] decodes arguments outside AddTool,
// [MaxRequestBytes] sizes the transport's request limit, and every
// violation is an [*Error] whose text the client shows to the model.
// Everything a client sends is treated as hostile until checked.
//
// Files need not come as data: URIs: a field tagged transfer=upload takes
// files uploaded out of band (SEP-2631), once runtime/transfer's Register
// has set the server up; one tagged form=filedata takes Odeus FileData
// objects, and one tagged form=openai ChatGPT's file objects, which the
// runtime fetches, with the fetcher given by [UseFetcher], before the
// handler runs. Each arrives as the same [File], checked the same way;
// a malformed host object breaks [RuleForm].
//
// Beside this package: runtime/datauri parses, decodes, encodes and redacts
// RFC 2397 data: URIs, and knows nothing of MCP; runtime/mcpfileimpl is what
// generated code calls, not for hand use; runtime/transfer serves uploads
// and downloads; runtime/fetch downloads a host's file URL safely;
// runtime/mcpgo, a module of its own, registers tools with files on
// servers written with github.com/mark3labs/mcp-go, checked by the same
// code.
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
//     charset parameter is given ("data:;charset=utf-8,…"); File.Params
//     holds only the parameters sent.
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
// Each file is checked, in order: scheme, form of the media type and
// parameters, the media type against accept ([RuleMediaType]: only
// type/subtype counts, case-insensitively; "type/*" allows every subtype;
// extensions such as ".pdf" are picker hints and ignored, so an accept list
// of extensions only allows every type),
// the decoded size against maxSize ([RuleMaxSize]), the data itself
// ([RuleURIForm]), and the content ([RuleContent]). The size check comes
// before the decoded buffer is allocated: for base64 the decoded size follows
// from the encoded length and the padding, for percent-encoding from the
// length and the number of '%'. A file of exactly maxSize bytes is accepted.
// Without a maxSize, [DefaultMaxSize] (32 MiB) applies. An array of files
// is counted before any item is decoded: more than its maxFiles (without
// one, [DefaultMaxFiles], 32) breaks [RuleMaxFiles], fewer than its
// minItems [RuleMinFiles]; a member of the wrong JSON type breaks
// [RuleType].
//
// # Content check
//
// The media type of a data: URI is advisory; the spec forbids dispatching on
// it without looking at the bytes. The first 1024 decoded bytes are checked
// against the declared type:
//
//   - A declared type with a fixed signature must carry it: PNG (and APNG),
//     JPEG, GIF, WebP, BMP, ICO and CUR, PDF, ZIP, gzip, RAR 4 and 5,
//     WebAssembly, Ogg, WAV (and RF64), AIFF (and AIFF-C), MIDI, AVI, WebM
//     (any EBML, so Matroska too), WOFF, WOFF2, OpenType (CFF or TrueType
//     outlines), font collections, EOT, TIFF (and BigTIFF), and the ISO
//     base media files (MP4, M4A, HEIF/HEIC, AVIF, 3GPP: an ftyp box
//     first), with their common aliases (image/jpg, audio/x-wav,
//     application/gzip…). ZIP-based types (Office
//     Open XML, OpenDocument, EPUB, JAR, APK, anything "+zip") must be a ZIP
//     archive. Each signature takes the variants readers open: a ZIP may be
//     empty (its end record alone) or the first part of a split archive,
//     and a PDF's "%PDF-" header may start anywhere in the first 1024 bytes
//     (after a newline, a BOM or a spooler header).
//   - A declared textual type (text/*, JSON, XML, YAML, JavaScript, and the
//     +json, +xml, +yaml suffixes) must be text, decided on every byte
//     checked, never on a prefix: valid UTF-8 (after an optional BOM; a
//     character cut at byte 1024 is not held against it), or UTF-16 marked
//     by a BOM, little- or big-endian, with its surrogates paired; in either
//     case without WHATWG MIME Sniffing's binary data bytes (NUL, 0x01-0x08,
//     0x0B, 0x0E-0x1A, 0x1C-0x1F; tab, line breaks, form feed and escape are
//     text). So a CSV that starts "BMI,weight" or notes that start
//     "%PDF-1.7" pass as text, and binary after a BOM, "<p>" or "<?xml"
//     does not. Text declared in a legacy 8-bit charset
//     (charset=windows-1252, ISO-8859-1…) is checked for binary bytes
//     only; text labelled UTF-16LE, UTF-16BE or UTF-16 without a BOM is
//     checked as UTF-16 of that byte order (RFC 2781).
//   - Every other declared type (application/octet-stream, video/quicktime,
//     audio/mpeg, application/msword…) is not
//     checked: no signature in the first bytes tells all its files, so it is
//     not blocked.
//
// The signatures are a table of this package's own, decided per format, and
// change only with it: a check that rejects files must not move under a
// server's feet when a dependency or the Go toolchain is updated. Neither
// net/http.DetectContentType, which this check used before, nor
// github.com/gabriel-vasile/mimetype does the job: both decide text on a few
// leading bytes (a BOM; "<p>" or "GIF89a" for one or the other), neither
// checks UTF-8, and both reject valid files of the types above (an RF64
// WAV, an AIFF-C file, an OpenType font with TrueType outlines; the
// standard sniffer also an empty ZIP and a PDF after a newline). The check
// reads at most 1024 bytes, allocates nothing and keeps no state that can
// be changed.
//
// The check confirms the kind of file, not that it is well-formed: a server
// that parses the bytes must still treat them as untrusted (OWASP ASVS 5.0
// §V5). The mcpfile tag sniff=false turns the check off for one argument.
//
// # Errors
//
// Every failure is an [*Error] that names the argument and the rule in the
// words of the SEP, with the figures:
//
//	Argument 'image' exceeds maxSize: received 15728640 bytes, limit is 5242880.
//	Argument 'documents' exceeds maxFiles: received 5 files, limit is 3.
//	Argument 'documents' has fewer files than minFiles: received 0 files, minimum is 1.
//	Argument 'image' has the wrong JSON type: received an object, want a data: URI string.
//	Argument 'image' has a media type that accept does not allow: received "text/plain", allowed are image/png, image/jpeg.
//	Argument 'image' fails the content check: declared "image/png" but the bytes are text; send image/png data or declare the real media type.
//	Argument 'image' is not a data: URI: received scheme "https:", only data: URIs are accepted.
//	Argument 'image' is not a valid data: URI: there is no comma before the data; the form is data:[<mediatype>][;base64],<data>.
//
// An error text never contains file bytes; it quotes only tokens checked to
// be a scheme or a media type, cut to 64 bytes. The same holds for what
// [AddTool] and [Elicit] answer when the arguments break the schema
// elsewhere: the schema validator sees long strings, data: URIs and long
// numbers replaced by short stand-ins that it judges alike ("[string of
// 7340032 bytes]", "data:image/png;base64,[5242880 bytes]"), and every
// such text is cut to 1 KiB.
//
// # Redaction
//
// File values are sensitive (SEP-2356). A [File] prints under every fmt verb,
// logs through log/slog and marshals to JSON as metadata only, e.g.
// data:image/png;base64,[70 bytes]; datauri.Redact does the same for a URI kept as
// a string.
//
// # Performance
//
// The decoder reads a file's JSON string without escapes in place, checks
// it with vector routines (bytes.IndexByte for quotes and backslashes,
// github.com/segmentio/asm's ascii.ValidPrint for control characters and
// non-ASCII bytes), and decodes base64 with github.com/segmentio/asm's
// AVX2 decoder (about eight times encoding/base64's speed, and already in
// the MCP Go SDK's module graph) into one buffer of exactly the decoded
// size. The JSON object around it is walked once, long strings skipped the
// same way, so a multi-megabyte argument is walked at close to memory
// speed.
package runtime
