package conform

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

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
	{"elicit.accept", "MUST", `§3/§4: a file field in an elicitation form takes a valid file (data: URI) in the answer`},
	{"elicit.refuse.type", "MUST", `§3: "Servers MUST validate received file inputs against their declared constraints regardless of which surface delivered them" (an elicitation answer of a type outside accept)`},
	{"elicit.refuse.maxsize", "MUST", `§3: validated "regardless of which surface delivered them" (an elicitation answer of maxSize + 1 bytes)`},
	{"elicit.refuse.content", "MUST", `§3: the declared type is advisory, "MUST NOT dispatch on it without validating the content" (an elicitation answer whose bytes contradict it)`},
	{"elicit.refusal.form", "SHOULD", `§4: "the server SHOULD either return another InputRequiredResult re-issuing the elicitation … or fail the tool call with an isError: true result. It SHOULD NOT answer with a JSON-RPC error"`},

	// SEP-2631 (sep-2631.md's sections).
	{"upload.serve", "MUST", `2631 §3: clients "MUST use files/authorizeUpload" for transferModes ["upload"]: a server with such an argument answers it`},
	{"upload.authorize", "MUST", `2631 §5/§7: files/authorizeUpload answers a file URI and a descriptor (https, POST or PUT, multipart with a fileField) that is "scoped, time-limited, and transport-protected" (an expiresAt; https, or http on loopback)`},
	{"upload.authorize.reason", "SHOULD", `2631 §7: "-32602 when a file URI is malformed or violates declared constraints"; "SHOULD include machine-readable details" (a malformed digest: -32602 with data.reason)`},
	{"upload.accept", "MUST", `2631 §3: "Servers that returned a file URI from files/authorizeUpload MUST accept that URI" (uploaded as the descriptor says: multipart POST or PUT)`},
	{"upload.refuse.size", "MUST", `2631 §7: "Servers MUST validate MIME type, size, and file content … rather than trusting client metadata" (one byte fewer, one more than declared)`},
	{"upload.refuse.digest", "MUST", `2631 §5: "When a digest was provided during authorization, the server MUST reject a completed upload whose bytes do not match it"`},
	{"upload.digest.reason", "SHOULD", `2631 §7: "Servers SHOULD distinguish digest mismatches from other upload validation failures" (the refusal says digest)`},
	{"upload.refuse.replay", "MUST", `2631 §4/§7: a digest "describes the complete immutable byte sequence identified by the file URI"; descriptors are "scoped" (a used upload descriptor is refused)`},
	{"upload.refuse.token", "MUST", `2631 §7: descriptors "MUST be scoped" (an upload with the descriptor's credentials altered is refused)`},
	{"upload.refuse.type", "MUST", `2631 §3: the uploaded file's URI is accepted "subject to the same declared accept and maxSize constraints" (a type outside accept)`},
	{"upload.refuse.maxsize", "MUST", `2631 §3: the uploaded file's URI is accepted "subject to the same declared accept and maxSize constraints" (maxSize + 1 bytes)`},
	{"upload.refuse.unknown", "MUST", `2631 §6: "Servers MUST reject expired, unauthorized, or unknown file URIs" (a file URI it never issued, in tools/call)`},
	{"upload.uri.recheck", "MUST", `2631 §3: "Servers MUST validate and either accept or reject file URI values using their normal request validation rules" (a file uploaded for one argument, sent to another whose accept it breaks)`},
	{"upload.refuse.inline", "MUST", `2631 §3/§5: transferModes ["upload"] rules out "this inline shortcut"; servers validate the declared constraints (a data: URI to an upload-only argument is refused)`},
	{"download.fallback", "MUST", `2631 §2/§4: the file content block is for clients that declared files.download; others get the file in a form they read (structuredContent, resource_link, embedded), and output "MUST NOT require resources/read"`},
	{"download.authorize", "MUST", `2631 §6/§7: files/authorizeDownload of a file a tool returned answers a GET descriptor that is "scoped, time-limited, and transport-protected" (https, or http on loopback; an expiresAt)`},
	{"download.verify", "MUST", `2631 §4: clients "MUST verify the received byte count and digest": the bytes have the size and sha-256 digest declared ("MUST support sha-256")`},
	{"download.range", "SHOULD", `HTTP (RFC 9110 §14): a download that answers Range: bytes=1-2 with 206 holds those bytes (200 with the whole file is allowed)`},
	{"download.refuse.token", "MUST", `2631 §7: descriptors "MUST be scoped" (a GET with the descriptor's credentials altered is refused)`},
	{"download.refuse.unknown", "MUST", `2631 §6: "Servers MUST reject expired, unauthorized, or unknown file URIs with an appropriate JSON-RPC error" (files/authorizeDownload of a URI it never issued)`},
}

// The cases of the checks that need more than one call or a choice of
// file. The others are in runner.field.

// maxSize sends a file of exactly maxSize bytes, then one of maxSize + 1.
func (c *caller) maxSize(ctx context.Context, k kind) error {
	f := c.f
	switch {
	case f.maxSize < 0:
		c.r.res.add("inline.accept.maxsize", "skip", "", f.String()+": no maxSize")
		c.r.res.add("inline.refuse.maxsize", "skip", "", f.String()+": no maxSize")
		return nil
	case f.maxSize+1 > BigSize && !c.r.o.Big:
		why := fmt.Sprintf("%s: maxSize %d is over 64 MiB (run with -big)", f, f.maxSize)
		c.r.res.add("inline.accept.maxsize", "skip", "", why)
		c.r.res.add("inline.refuse.maxsize", "skip", "", why)
		return nil
	}
	exact, ok := k.sized(f.maxSize)
	if !ok {
		why := fmt.Sprintf("%s: maxSize %d is smaller than the suite's smallest %s", f, f.maxSize, k.mediaType)
		c.r.res.add("inline.accept.maxsize", "skip", "", why)
		c.r.res.add("inline.refuse.maxsize", "skip", "", why)
		return nil
	}
	if err := c.accept(ctx, "inline.accept.maxsize", fmt.Sprintf("%s of %d bytes", k.mediaType, f.maxSize), b64URI(k.mediaType, exact)); err != nil {
		return err
	}
	over, _ := k.sized(f.maxSize + 1)
	return c.refuse(ctx, "inline.refuse.maxsize", fmt.Sprintf("%s of %d bytes", k.mediaType, f.maxSize+1), b64URI(k.mediaType, over), over)
}

// outsideAccept sends a real file of a type accept does not allow.
func (c *caller) outsideAccept(ctx context.Context) error {
	for _, mt := range []string{"application/pdf", "image/png", "text/plain", "application/zip", "application/json"} {
		if c.f.matches(mt) {
			continue
		}
		b := kinds[mt].build(0)
		return c.refuse(ctx, "inline.refuse.type", mt, b64URI(mt, b), b)
	}
	c.r.res.add("inline.refuse.type", "skip", "", c.f.String()+": accept allows every type the suite makes")
	return nil
}

// mismatch sends bytes of another format declared as k's type.
func (c *caller) mismatch(ctx context.Context, k kind) error {
	if strings.EqualFold(k.mediaType, "application/octet-stream") {
		c.r.res.add("inline.refuse.content", "skip", "", c.f.String()+": no bytes contradict application/octet-stream")
		return nil
	}
	other, name := pngFile(0), "PNG bytes"
	if strings.EqualFold(k.mediaType, "image/png") {
		other, name = pdfFile(0), "PDF bytes"
	}
	return c.refuse(ctx, "inline.refuse.content", name+" declared "+k.mediaType, b64URI(k.mediaType, other), other)
}

// schemes sends URIs of other schemes, which point where the suite sees
// any fetch.
func (c *caller) schemes(ctx context.Context) error {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(c.r.version + "-" + c.f.String())
	abs := filepath.Join(c.r.trap.files, "conform.png")
	for _, s := range []struct{ id, what, uri string }{
		{"scheme.refuse.https", "https:", "https://" + c.r.trap.tls.Addr().String() + "/conform/" + name + ".png"},
		{"scheme.refuse.http", "http:", c.r.trap.http.URL + "/conform/" + name + ".png"},
		{"scheme.refuse.file", "file:", "file://" + filepath.ToSlash(abs)},
		{"scheme.refuse.path", "absolute path", abs},
		{"scheme.refuse.path", "relative path", "conform.png"},
	} {
		if err := c.refuse(ctx, s.id, s.what, s.uri, nil); err != nil {
			return err
		}
	}
	return nil
}

// items checks the array's bounds with valid files.
func (c *caller) items(ctx context.Context, k kind) error {
	f := c.f
	if !f.array {
		c.r.res.add("array.refuse.maxitems", "skip", "", f.String()+": not an array")
		c.r.res.add("array.refuse.minitems", "skip", "", f.String()+": not an array")
		return nil
	}
	b := k.build(0)
	u := b64URI(k.mediaType, b)
	send := func(id string, n int) error {
		items := make([]any, n)
		for i := range items {
			items[i] = u
		}
		return c.refuseValue(ctx, id, fmt.Sprintf("%d files", n), items, b)
	}
	if f.maxItems < 0 {
		c.r.res.add("array.refuse.maxitems", "skip", "", f.String()+": no maxItems")
	} else if err := send("array.refuse.maxitems", f.maxItems+1); err != nil {
		return err
	}
	if f.minItems < 1 {
		c.r.res.add("array.refuse.minitems", "skip", "", f.String()+": no minItems")
		return nil
	}
	return send("array.refuse.minitems", f.minItems-1)
}
