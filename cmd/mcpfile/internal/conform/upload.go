package conform

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// SEP-2631's upload checks. Each argument that takes uploads (no
// transferModes, or one naming "upload") gets a valid file uploaded as the
// descriptor says (through runtime/transfer/client, as a Go client would)
// and its URI in tools/call, then uploads that break one rule, sent by
// hand (sendUpload), since the client refuses to send them.

// uploadIDs are the checks that need files/authorizeUpload.
var uploadIDs = []string{"upload.authorize", "upload.authorize.reason", "upload.accept", "upload.refuse.size", "upload.refuse.digest", "upload.digest.reason", "upload.refuse.replay", "upload.refuse.token", "upload.refuse.type", "upload.refuse.maxsize", "upload.refuse.unknown", "upload.uri.recheck", "upload.refuse.inline"}

// kindExt is the file name extension of a file of media type mt.
func kindExt(mt string) string {
	switch mt := strings.ToLower(mt); {
	case mt == "image/jpeg":
		return ".jpg"
	case mt == "application/octet-stream":
		return ".bin"
	case strings.HasPrefix(mt, "text/"):
		return ".txt"
	case strings.Contains(mt, "/"):
		return "." + mt[strings.IndexByte(mt, '/')+1:]
	}
	return ""
}

func (k kind) ext() string { return kindExt(k.mediaType) }

// errNoUploads is the answer of a server that does not serve
// files/authorizeUpload (-32601).
var errNoUploads = errors.New("the server does not serve files/authorizeUpload")

// uploads runs the upload checks on every argument that takes uploads.
func (r *runner) uploads(ctx context.Context, tools []tool) error {
	var fields []*caller
	for _, t := range tools {
		for _, f := range t.fields {
			if len(f.problems) > 0 || !f.allows("upload") {
				continue
			}
			c := &caller{r: r, t: t, f: f}
			if reason := c.others(); reason != "" {
				r.skipUploads(f.String() + ": " + reason)
				continue
			}
			if _, ok := firstKind(f); !ok {
				r.skipUploads(f.String() + ": accept names no type the suite can make")
				continue
			}
			fields = append(fields, c)
		}
	}
	if len(fields) == 0 {
		r.skipUploads("no argument takes uploads (transferModes without upload)")
		return nil
	}
	// Does the server serve uploads at all? A server may answer the
	// unknown method with -32601, or (go-sdk over HTTP) with an HTTP 400
	// that ends the session.
	_, err := r.authorize(ctx, "conform.txt", "text/plain", []byte("conform"), true)
	var je *jsonrpc.Error
	if err != nil && !errors.Is(err, errNoUploads) && !errors.As(err, &je) {
		r.cs.Close()
		if cerr := r.connect(ctx); cerr != nil {
			return fmt.Errorf("reconnecting after files/authorizeUpload failed: %v", cerr)
		}
		err = fmt.Errorf("%w: it failed (%v)", errNoUploads, err)
	}
	if errors.Is(err, errNoUploads) {
		r.skipUploads(r.version + ": " + err.Error())
		for _, c := range fields {
			if !c.f.inline() {
				r.res.add("upload.serve", "fail", r.target(c.f, ""), "the argument takes uploads only, but files/authorizeUpload answers -32601: no client can call the tool")
			}
		}
		return nil
	}
	r.authorizeReason(ctx)
	for _, c := range fields {
		if !c.f.inline() {
			r.res.add("upload.serve", "pass", c.f.String(), "")
		}
	}
	for i, c := range fields {
		if err := c.uploadChecks(ctx, fields[i+1:], fields[:i]); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) skipUploads(reason string) {
	for _, id := range uploadIDs {
		r.res.add(id, "skip", "", reason)
	}
}

// allows reports whether transferModes allows mode.
func (f field) allows(mode string) bool { return f.modes == nil || slices.Contains(f.modes, mode) }

// authorize asks for an upload of body, declaring its name, media type,
// size and, with digest, its SHA-256.
func (r *runner) authorize(ctx context.Context, name, mt string, body []byte, digest bool) (*wire.AuthorizeUploadResult, error) {
	size := int64(len(body))
	p := &wire.AuthorizeUploadParams{Name: name, MimeType: mt, Size: &size}
	if digest {
		d := wire.SHA256Digest(sha256.Sum256(body))
		p.Digest = &d
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	res, err := mcp.CallCustomMethod[*wire.AuthorizeUploadParams, *wire.AuthorizeUploadResult](ctx, r.cs, wire.MethodAuthorizeUpload, p)
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
		return nil, fmt.Errorf("%w (-32601)", errNoUploads)
	}
	if err == nil && res == nil {
		err = errors.New("no result")
	}
	return res, err
}

// authorizeReason sends files/authorizeUpload a malformed digest: the
// refusal should be -32602 with data.reason.
func (r *runner) authorizeReason(ctx context.Context) {
	size := int64(7)
	p := &wire.AuthorizeUploadParams{Name: "conform.txt", MimeType: "text/plain", Size: &size, Digest: &wire.FileDigest{Algorithm: "sha-256", Value: "not-a-digest"}}
	cctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	_, err := mcp.CallCustomMethod[*wire.AuthorizeUploadParams, *wire.AuthorizeUploadResult](cctx, r.cs, wire.MethodAuthorizeUpload, p)
	tg := r.version + " files/authorizeUpload (digest value \"not-a-digest\")"
	var je *jsonrpc.Error
	switch {
	case err == nil:
		r.res.add("upload.authorize.reason", "fail", tg, "authorized an upload whose declared digest is not a sha-256 value")
	case !errors.As(err, &je):
		r.res.add("upload.authorize.reason", "fail", tg, "the request failed: "+err.Error())
	case je.Code != jsonrpc.CodeInvalidParams:
		r.res.add("upload.authorize.reason", "fail", tg, fmt.Sprintf("JSON-RPC error %d, want -32602", je.Code))
	default:
		if _, ok := wire.ErrorDataOf(err); !ok {
			r.res.add("upload.authorize.reason", "fail", tg, "a -32602 error without data.reason")
			return
		}
		r.res.add("upload.authorize.reason", "pass", tg, "")
	}
}

// checkAuthorized reports what is wrong with an upload authorization of
// a file declared as mt and size bytes.
func checkAuthorized(res *wire.AuthorizeUploadResult, mt string, size int64) []string {
	var bad []string
	f, d := res.File, res.Upload
	switch {
	case f.URI == "":
		bad = append(bad, "file.uri is empty")
	case strings.HasPrefix(strings.ToLower(f.URI), "data:"):
		bad = append(bad, "file.uri is a data: URI")
	}
	if f.Size != nil && *f.Size != size {
		bad = append(bad, fmt.Sprintf("file.size is %d, %d were declared", *f.Size, size))
	}
	if d.Transport != wire.TransportHTTPS {
		bad = append(bad, fmt.Sprintf("upload.transport is %q (want https)", d.Transport))
	}
	if d.Method != wire.TransferPOST && d.Method != wire.TransferPUT {
		bad = append(bad, fmt.Sprintf("upload.method is %q (want POST or PUT)", d.Method))
	}
	if d.Multipart != nil && d.Multipart.FileField == "" {
		bad = append(bad, "upload.multipart has no fileField")
	}
	u, err := url.Parse(d.URL)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		bad = append(bad, "upload.url is not an absolute URL")
	case u.Scheme == "http" && !loopback(u.Hostname()):
		bad = append(bad, "upload.url is plain http to "+u.Host+": descriptors MUST be transport-protected")
	case u.Scheme != "https" && u.Scheme != "http":
		bad = append(bad, "upload.url is of scheme "+u.Scheme)
	}
	switch {
	case d.ExpiresAt.IsZero():
		bad = append(bad, "upload has no expiresAt: descriptors MUST be time-limited")
	case !time.Now().Before(d.ExpiresAt):
		bad = append(bad, "upload.expiresAt has passed")
	}
	return bad
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// An endpointAnswer is what an upload or download endpoint answered.
type endpointAnswer struct {
	status int
	body   string // at most 4 KiB
}

func (a endpointAnswer) ok() bool { return a.status/100 == 2 }

func (a endpointAnswer) String() string {
	s := fmt.Sprintf("%d %s", a.status, http.StatusText(a.status))
	if b := strings.TrimSpace(a.body); b != "" {
		if r := []rune(b); len(r) > 120 {
			b = string(r[:120]) + "…"
		}
		s += ": " + b
	}
	return s
}

// sendUpload sends body as descriptor d says (a multipart POST with the
// fields, then the file part; or the bytes as the body), with the file's
// name and media type. It is the suite's own sender, for bodies that
// break the declaration, which runtime/transfer/client never sends.
func (r *runner) sendUpload(ctx context.Context, d wire.FileTransferDescriptor, name, mt string, body []byte) (endpointAnswer, error) {
	var buf bytes.Buffer
	contentType := mt
	if m := d.Multipart; m != nil {
		mw := multipart.NewWriter(&buf)
		keys := make([]string, 0, len(m.Fields))
		for k := range m.Fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			mw.WriteField(k, m.Fields[k])
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, m.FileField, name))
		h.Set("Content-Type", mt)
		pw, _ := mw.CreatePart(h)
		pw.Write(body)
		mw.Close()
		contentType = mw.FormDataContentType()
	} else {
		buf.Write(body)
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, d.Method, d.URL, &buf)
	if err != nil {
		return endpointAnswer{}, fmt.Errorf("the upload request: %v", unwrapURL(err))
	}
	for k, v := range d.Headers {
		req.Header.Set(k, v)
	}
	if d.Multipart != nil || req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	return do(req)
}

// noRedirect is the suite's HTTP client: it follows no redirect.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func do(req *http.Request) (endpointAnswer, error) {
	res, err := noRedirect.Do(req)
	if err != nil {
		return endpointAnswer{}, fmt.Errorf("%s %s://%s: %v", req.Method, req.URL.Scheme, req.URL.Host, unwrapURL(err))
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	return endpointAnswer{status: res.StatusCode, body: string(b)}, nil
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// tamper changes one character in the middle of s, keeping its alphabet:
// the middle, since the last characters of base64 may carry unused bits.
func tamper(s string) string {
	if s == "" {
		return "x"
	}
	b := []byte(s)
	i := len(b) / 2
	switch {
	case b[i] == 'A':
		b[i] = 'B'
	case b[i] >= '0' && b[i] <= '9':
		b[i] = '0' + (b[i]-'0'+1)%10
	default:
		b[i] = 'A'
	}
	return string(b)
}

// tampered is d with every credential it carries changed: the multipart
// fields, the headers other than Content-Type, the URL's query, or else
// the URL's last path segment. what says which.
func tampered(d wire.FileTransferDescriptor) (wire.FileTransferDescriptor, string) {
	var what []string
	out := d
	if d.Multipart != nil && len(d.Multipart.Fields) > 0 {
		m := *d.Multipart
		m.Fields = map[string]string{}
		for k, v := range d.Multipart.Fields {
			m.Fields[k] = tamper(v)
			what = append(what, "field "+k)
		}
		out.Multipart = &m
	}
	out.Headers = map[string]string{}
	for k, v := range d.Headers {
		if strings.EqualFold(k, "Content-Type") {
			out.Headers[k] = v
			continue
		}
		out.Headers[k] = tamper(v)
		what = append(what, "header "+k)
	}
	if u, err := url.Parse(d.URL); err == nil {
		switch {
		case u.RawQuery != "":
			q := u.Query()
			for k, vs := range q {
				for i := range vs {
					vs[i] = tamper(vs[i])
				}
				q[k] = vs
			}
			u.RawQuery = q.Encode()
			what = append(what, "the URL's query")
		case len(what) == 0:
			i := strings.LastIndexByte(u.Path, '/')
			u.Path = u.Path[:i+1] + tamper(u.Path[i+1:])
			u.RawPath = ""
			what = append(what, "the URL's last path segment")
		}
		out.URL = u.String()
	}
	slices.Sort(what)
	return out, strings.Join(what, ", ")
}

// uploadChecks runs the upload checks on the argument c sends to. later
// and earlier are the other arguments that take uploads, for the second
// tool's re-check.
func (c *caller) uploadChecks(ctx context.Context, later, earlier []*caller) error {
	r, f := c.r, c.f
	k, _ := firstKind(f)
	b := k.build(0)
	if f.maxSize >= 0 && int64(len(b)) > f.maxSize {
		r.skipUploads(fmt.Sprintf("%s: maxSize %d is smaller than the suite's smallest %s", f, f.maxSize, k.mediaType))
		return nil
	}
	name := "conform" + k.ext()
	tg := func(what string) string { return r.target(f, what) }

	// The valid upload, through the Go client, and its URI in tools/call.
	fv, err := r.upload(ctx, name, k.mediaType, b)
	switch {
	case errors.Is(err, client.ErrBadAnswer):
		r.res.add("upload.authorize", "fail", tg(k.mediaType), strings.TrimPrefix(err.Error(), "transfer/client: "))
		return nil
	case err != nil:
		r.res.add("upload.accept", "fail", tg(k.mediaType), "the upload failed: "+strings.TrimPrefix(err.Error(), "transfer/client: "))
		return nil
	}
	if err := c.accept(ctx, "upload.accept", k.mediaType+" uploaded", fv.URI); err != nil {
		return err
	}

	// The authorization's shape, and the uploads that break it.
	steps := []func() error{
		func() error { return c.authorizeShape(ctx, name, k.mediaType, b) },
		func() error { return c.badSize(ctx, name, k.mediaType, b) },
		func() error { return c.badDigest(ctx, name, k.mediaType, b) },
		func() error { return c.replay(ctx, name, k.mediaType, b) },
		func() error { return c.badToken(ctx, name, k.mediaType, b) },
		func() error { return c.uploadedOutsideAccept(ctx) },
		func() error { return c.uploadedOverMaxSize(ctx, k) },
		func() error {
			return c.refuse(ctx, "upload.refuse.unknown", "a file URI it never issued", tamper(fv.URI), nil)
		},
		func() error { return c.secondTool(ctx, later, earlier) },
		func() error {
			if f.inline() {
				r.res.add("upload.refuse.inline", "skip", "", f.String()+": takes data: URIs too")
				return nil
			}
			return c.refuse(ctx, "upload.refuse.inline", "a data: URI", b64URI(k.mediaType, b), b)
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// upload uploads body through runtime/transfer/client.
func (r *runner) upload(ctx context.Context, name, mt string, body []byte) (wire.FileValue, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	return client.Upload(ctx, r.cs, client.File{Name: name, MediaType: mt, Size: int64(len(body)), Body: bytes.NewReader(body)}, &client.Options{AllowHTTP: true})
}

func (c *caller) authorizeShape(ctx context.Context, name, mt string, b []byte) error {
	res, err := c.r.authorize(ctx, name, mt, b, true)
	tg := c.r.target(c.f, mt)
	if err != nil {
		c.r.res.add("upload.authorize", "fail", tg, "files/authorizeUpload refused a valid declaration: "+err.Error())
		return nil
	}
	if bad := checkAuthorized(res, mt, int64(len(b))); len(bad) > 0 {
		c.r.res.add("upload.authorize", "fail", tg, strings.Join(bad, "; "))
		return nil
	}
	c.r.res.add("upload.authorize", "pass", tg, "")
	return nil
}

// refusedUpload records check id for an upload that breaks its
// declaration: the endpoint's refusal passes; so does an upload the
// endpoint took whose URI tools/call then refuses.
func (c *caller) refusedUpload(ctx context.Context, id, what string, res *wire.AuthorizeUploadResult, a endpointAnswer) error {
	tg := c.r.target(c.f, what)
	if !a.ok() {
		c.r.res.add(id, "pass", tg, "")
		return nil
	}
	ans := c.call(ctx, c.value(res.File.URI))
	switch {
	case ans.broken != nil:
		c.r.res.add(id, "fail", tg, "the endpoint took it ("+a.String()+"), and the call failed: "+ans.broken.Error())
		return c.alive(ctx, tg)
	case ans.refused():
		c.r.res.add(id, "pass", tg, "")
	default:
		c.r.res.add(id, "fail", tg, "the endpoint took it ("+a.String()+") and tools/call accepted its URI")
	}
	return nil
}

// badSize declares len(b) bytes and sends one fewer, then one more.
func (c *caller) badSize(ctx context.Context, name, mt string, b []byte) error {
	for _, tt := range []struct {
		what string
		body []byte
	}{
		{fmt.Sprintf("%d bytes declared, %d sent", len(b), len(b)-1), b[:len(b)-1]},
		{fmt.Sprintf("%d bytes declared, %d sent", len(b), len(b)+1), append(slices.Clip(b), '\n')},
	} {
		res, a, err := c.authorizeAndSend(ctx, name, mt, b, false, tt.body)
		if err != nil {
			c.r.res.add("upload.refuse.size", "fail", c.r.target(c.f, tt.what), err.Error())
			continue
		}
		if err := c.refusedUpload(ctx, "upload.refuse.size", tt.what, res, a); err != nil {
			return err
		}
	}
	return nil
}

// authorizeAndSend authorizes an upload declared as decl (with its digest
// when digest is set) and sends body.
func (c *caller) authorizeAndSend(ctx context.Context, name, mt string, decl []byte, digest bool, body []byte) (*wire.AuthorizeUploadResult, endpointAnswer, error) {
	res, err := c.r.authorize(ctx, name, mt, decl, digest)
	if err != nil {
		return nil, endpointAnswer{}, fmt.Errorf("files/authorizeUpload: %v", err)
	}
	a, err := c.r.sendUpload(ctx, res.Upload, name, mt, body)
	return res, a, err
}

// badDigest declares b's digest and sends other bytes of the same length.
func (c *caller) badDigest(ctx context.Context, name, mt string, b []byte) error {
	other := alter(b)
	what := "other bytes than the declared digest's"
	res, a, err := c.authorizeAndSend(ctx, name, mt, b, true, other)
	tg := c.r.target(c.f, what)
	if err != nil {
		c.r.res.add("upload.refuse.digest", "fail", tg, err.Error())
		return nil
	}
	if !a.ok() {
		if strings.Contains(strings.ToLower(a.body), "digest") {
			c.r.res.add("upload.digest.reason", "pass", tg, "")
		} else {
			c.r.res.add("upload.digest.reason", "fail", tg, "the refusal does not say it is the digest: "+a.String())
		}
	}
	return c.refusedUpload(ctx, "upload.refuse.digest", what, res, a)
}

// replay uploads b, then sends it again with the same descriptor.
func (c *caller) replay(ctx context.Context, name, mt string, b []byte) error {
	tg := c.r.target(c.f, "the descriptor used twice")
	res, a, err := c.authorizeAndSend(ctx, name, mt, b, false, b)
	switch {
	case err != nil:
		c.r.res.add("upload.refuse.replay", "fail", tg, err.Error())
		return nil
	case !a.ok():
		c.r.res.add("upload.refuse.replay", "fail", tg, "the first upload, as the descriptor says, was refused: "+a.String())
		return nil
	}
	again, err := c.r.sendUpload(ctx, res.Upload, name, mt, b)
	switch {
	case err != nil:
		c.r.res.add("upload.refuse.replay", "fail", tg, err.Error())
	case again.ok():
		c.r.res.add("upload.refuse.replay", "fail", tg, "the second upload was taken ("+again.String()+"): the bytes of a file URI must not change")
	default:
		c.r.res.add("upload.refuse.replay", "pass", tg, "")
	}
	return nil
}

// badToken sends b with every credential of the descriptor altered, then
// as the descriptor says, which must work.
func (c *caller) badToken(ctx context.Context, name, mt string, b []byte) error {
	res, err := c.r.authorize(ctx, name, mt, b, true)
	if err != nil {
		c.r.res.add("upload.refuse.token", "fail", c.r.target(c.f, ""), "files/authorizeUpload: "+err.Error())
		return nil
	}
	d, what := tampered(res.Upload)
	tg := c.r.target(c.f, what+" altered")
	a, err := c.r.sendUpload(ctx, d, name, mt, b)
	if err != nil {
		c.r.res.add("upload.refuse.token", "fail", tg, err.Error())
		return nil
	}
	if a.ok() {
		c.r.res.add("upload.refuse.token", "fail", tg, "the upload was taken: "+a.String())
		return nil
	}
	if a, err := c.r.sendUpload(ctx, res.Upload, name, mt, b); err != nil || !a.ok() {
		c.r.res.add("upload.refuse.token", "skip", "", fmt.Sprintf("%s: the upload was refused untampered too (%v%v)", c.f, a, err))
		return nil
	}
	c.r.res.add("upload.refuse.token", "pass", tg, "")
	return nil
}

// alter returns b with one byte changed, so that its digest differs but
// its type does not: the last letter made another letter (text stays
// text), else the last byte.
func alter(b []byte) []byte {
	out := slices.Clone(b)
	for i := len(out) - 1; i >= 0; i-- {
		if c := out[i]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			out[i] ^= 0x20 // the other case
			return out
		}
	}
	out[len(out)-1] ^= 1
	return out
}

// uploadedOutsideAccept uploads a file of a type outside accept: the
// upload may be taken, the call must refuse it.
func (c *caller) uploadedOutsideAccept(ctx context.Context) error {
	for _, mt := range []string{"application/pdf", "image/png", "text/plain", "application/zip", "application/json"} {
		if c.f.matches(mt) {
			continue
		}
		b := kinds[mt].build(0)
		return c.refuseUploaded(ctx, "upload.refuse.type", mt, b)
	}
	c.r.res.add("upload.refuse.type", "skip", "", c.f.String()+": accept allows every type the suite makes")
	return nil
}

// uploadedOverMaxSize uploads maxSize + 1 bytes.
func (c *caller) uploadedOverMaxSize(ctx context.Context, k kind) error {
	f := c.f
	switch {
	case f.maxSize < 0:
		c.r.res.add("upload.refuse.maxsize", "skip", "", f.String()+": no maxSize")
		return nil
	case f.maxSize+1 > BigSize && !c.r.o.Big:
		c.r.res.add("upload.refuse.maxsize", "skip", "", fmt.Sprintf("%s: maxSize %d is over 64 MiB (run with -big)", f, f.maxSize))
		return nil
	}
	over, ok := k.sized(f.maxSize + 1)
	if !ok {
		c.r.res.add("upload.refuse.maxsize", "skip", "", fmt.Sprintf("%s: the suite makes no %s of %d bytes", f, k.mediaType, f.maxSize+1))
		return nil
	}
	return c.refuseUploaded(ctx, "upload.refuse.maxsize", fmt.Sprintf("%s of %d bytes", k.mediaType, f.maxSize+1), over)
}

// refuseUploaded uploads b, of the media type what starts with, and
// requires that tools/call refuse its URI. An upload the server refuses
// outright (at files/authorizeUpload or the endpoint) passes too: the
// file never reaches the tool.
func (c *caller) refuseUploaded(ctx context.Context, id, what string, b []byte) error {
	mt, _, _ := strings.Cut(what, " ")
	fv, err := c.r.upload(ctx, "conform"+kindExt(mt), mt, b)
	if err != nil {
		var se *client.StatusError
		var je *jsonrpc.Error
		if errors.As(err, &se) || errors.As(err, &je) {
			c.r.res.add(id, "pass", c.r.target(c.f, what+", refused at upload"), "")
			return nil
		}
		c.r.res.add(id, "fail", c.r.target(c.f, what), "the upload failed: "+strings.TrimPrefix(err.Error(), "transfer/client: "))
		return nil
	}
	return c.refuse(ctx, id, what+" uploaded", fv.URI, b)
}

// secondTool uploads a file one argument accepts and sends its URI to
// another whose accept or maxSize it breaks: the server must check the
// file against the constraints of the argument it arrives in.
func (c *caller) secondTool(ctx context.Context, later, earlier []*caller) error {
	for _, o := range append(slices.Clone(later), earlier...) {
		if o.f.String() == c.f.String() {
			continue
		}
		for _, a := range c.f.accept {
			k, ok := kindFor(a)
			if !ok || strings.Contains(a, "*") && o.f.matches(k.mediaType) {
				continue
			}
			if !strings.Contains(a, "*") {
				k.mediaType = a
			}
			if o.f.matches(k.mediaType) {
				continue
			}
			b := k.build(0)
			if c.f.maxSize >= 0 && int64(len(b)) > c.f.maxSize {
				continue
			}
			fv, err := c.r.upload(ctx, "conform"+k.ext(), k.mediaType, b)
			if err != nil {
				c.r.res.add("upload.uri.recheck", "fail", c.r.target(c.f, k.mediaType), "the upload failed: "+err.Error())
				return nil
			}
			if err := c.accept(ctx, "upload.accept", k.mediaType+" uploaded", fv.URI); err != nil {
				return err
			}
			return o.refuse(ctx, "upload.uri.recheck", fmt.Sprintf("%s uploaded for %s, which accepts it", k.mediaType, c.f), fv.URI, b)
		}
	}
	c.r.res.add("upload.uri.recheck", "skip", "", c.f.String()+": no other argument that takes uploads refuses a file it accepts")
	return nil
}
