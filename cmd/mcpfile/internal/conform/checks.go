package conform

// The checks, in report order. Each id is stable: tools and CI may key on
// it. The requirement quotes x-mcp-file.md (SEP-2356's last text) by
// section; REQUIREMENTS.md maps every requirement of the text to these.
var checks = []struct{ id, level, requirement string }{
	{"schema.shape", "MUST", `§1: x-mcp-file sits on {"type":"string","format":"uri"} (on an array, on its items), with accept a list of media types or extensions and maxSize an integer; anything else is malformed`},
	{"inline.accept.base64", "MUST", `§2: "Servers MUST accept both the ;base64 form and the percent-encoded form" (each accepted type, base64)`},
	{"inline.accept.percent", "MUST", `§2: "Servers MUST accept both the ;base64 form and the percent-encoded form" (percent-encoded)`},
	{"inline.accept.mediatype-case", "SHOULD", `§3: accept matching is case-insensitive`},
	{"inline.accept.mediatype-params", "SHOULD", `§3: accept matching compares type/subtype only, ignoring parameters`},
	{"inline.accept.maxsize", "MUST", `§1: maxSize is the largest decoded size; "A payload of exactly maxSize bytes is accepted"`},
	{"inline.refuse.maxsize", "MUST", `§1: "Servers MUST reject larger payloads" (maxSize + 1 bytes; in an array, each file)`},
	{"inline.refuse.type", "MUST", `§3: "Servers MUST validate received file inputs against their declared constraints" (a media type outside accept)`},
	{"inline.refuse.content", "MUST", `§3: the <mediatype> "is advisory; servers MUST NOT dispatch on it without validating the content" (bytes contradicting the declared type)`},
	{"scheme.refuse.https", "MUST", `§2: servers "MUST reject any other scheme" (https:)`},
	{"scheme.refuse.http", "MUST", `§2: servers "MUST reject any other scheme" (http:)`},
	{"scheme.refuse.file", "MUST", `§2: servers "MUST reject any other scheme" (file:)`},
	{"scheme.refuse.path", "MUST", `§2: servers "MUST reject any other scheme" (absolute and relative paths)`},
	{"scheme.nofetch", "MUST", `§2: servers "MUST NOT dereference it" (no connection to the suite's loopback URLs)`},
	{"uri.refuse.nocomma", "MUST", `§2/§3: a value that is not RFC 2397 data:[<mediatype>][;base64],<data> (no comma) is refused`},
	{"uri.refuse.badbase64", "MUST", `§2/§3: a ;base64 payload that is not base64 is refused`},
	{"array.refuse.maxitems", "MUST", `§3: "Servers MUST validate received file inputs against their declared constraints" (more files than the array's maxItems)`},
	{"array.refuse.minitems", "MUST", `§3: "Servers MUST validate received file inputs against their declared constraints" (fewer files than the array's minItems)`},
	{"refusal.form", "SHOULD", `§4: a violation is "a tool result with isError: true, whose text names the argument" (SEP-2631's JSON-RPC -32602 with data.reason accepted too, and reported)`},
	{"refusal.noecho", "MUST", `§3: data-URI values "MUST be treated as sensitive" and redacted in error reports (no run of 16 characters of the file's base64 or bytes in a refusal)`},
	{"refusal.alive", "MUST", `§4: a violation is reported as a result: the server answers the next request after each refusal`},
}
