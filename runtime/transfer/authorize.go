package transfer

// The two methods of SEP-2631: files/authorizeUpload, which checks a
// declared file and hands out its file URI and upload descriptor, and
// files/authorizeDownload, which hands out a file's metadata and a
// download descriptor.

import (
	"context"
	"fmt"
	"mime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/text"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// shortLen is how many bytes of a rejected value an error quotes.
const shortLen = 12

// defaultMediaType is the media type of an upload that declares none.
const defaultMediaType = "application/octet-stream"

// sdkAuthorizeUpload serves files/authorizeUpload on a go-sdk server.
func (c *config) sdkAuthorizeUpload(ctx context.Context, ss *mcp.ServerSession, p *AuthorizeUploadParams) (*AuthorizeUploadResult, error) {
	_, extra := hook.ResolverFrom(ctx)
	return c.authorizeUpload(ctx, c.sdkSender(extra, ss, nil), p)
}

// sdkAuthorizeDownload serves files/authorizeDownload on a go-sdk server.
func (c *config) sdkAuthorizeDownload(ctx context.Context, ss *mcp.ServerSession, p *AuthorizeDownloadParams) (*AuthorizeDownloadResult, error) {
	_, extra := hook.ResolverFrom(ctx)
	return c.authorizeDownload(ctx, c.sdkSender(extra, ss, nil), p)
}

// authorizeUpload serves files/authorizeUpload to from, whatever the SDK.
func (c *config) authorizeUpload(ctx context.Context, from sender, p *AuthorizeUploadParams) (*AuthorizeUploadResult, error) {
	if p == nil {
		p = new(AuthorizeUploadParams)
	}
	owner, err := c.ownerOf(from)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "files/authorizeUpload: " + err.Error()}
	}

	// The declaration: size (required), media type, digest, name.
	if p.Size == nil {
		return nil, InvalidFileError("files/authorizeUpload: size is required: declare the file's size in bytes (the upload is held to it)", ErrorData{Reason: ReasonMalformed})
	}
	size := *p.Size
	if size < 0 {
		return nil, InvalidFileError("files/authorizeUpload: size "+strconv.FormatInt(size, 10)+" is negative", ErrorData{Reason: ReasonMalformed})
	}
	declared := p.MimeType
	if declared == "" {
		declared = defaultMediaType
	}
	mt, params, ok := parseMediaType(declared)
	if !ok {
		return nil, InvalidFileError(fmt.Sprintf("files/authorizeUpload: mimeType %s is not a media type (want type/subtype without wildcards, such as application/pdf, with parameters of printable ASCII, at most %d bytes in all)", text.Quote(declared, shortLen), token.MaxMediaTypeLen), ErrorData{Reason: ReasonMalformed})
	}
	var sum []byte
	if p.Digest != nil {
		s, err := p.Digest.SHA256()
		if err != nil {
			return nil, InvalidFileError("files/authorizeUpload: "+strings.TrimPrefix(err.Error(), "wire: "), ErrorData{Reason: ReasonMalformed})
		}
		sum = s[:]
	}
	name := runtime.SanitizeName(p.Name)
	if len(name) > token.MaxNameLen {
		name = runtime.SanitizeName(name[:token.MaxNameLen])
	}

	// Some upload-capable field takes it.
	if err := checkUploadable(c.schemas(), mt, size); err != nil {
		return nil, err
	}

	// The owner's quota: of callers without auth and without a session,
	// their address's, which the store records (quotaOwner).
	holder := c.quotaOwner(ctx, owner)
	switch u, ok, err := c.quota.check(ctx, holder, size, c.Now()); {
	case err != nil:
		return nil, c.internal(ctx, MethodAuthorizeUpload, "store usage", err)
	case !ok:
		total, limit := u.held+size, u.limit
		return nil, InvalidFileError(fmt.Sprintf("files/authorizeUpload: quota exceeded: %s %d bytes of uploaded files, and %d more would pass the quota of %d", u.holds("the caller"), u.held, size, limit),
			ErrorData{Reason: ReasonQuotaExceeded, MaxSize: &limit, ActualSize: &total})
	}

	// The file URI, and the token that lets its bytes be uploaded once.
	now := c.Now()
	authExpires := now.Add(c.AuthorizationTTL).Truncate(time.Second) // as the token keeps it, and as expiresAt says
	id := token.NewFileID()
	uri, err := c.Keys.FileURI(sized(token.FileRef{Host: c.Host, FileID: id, Owner: owner, Expires: authExpires.Add(c.FileTTL)}, size, sum))
	if err != nil {
		return nil, c.internal(ctx, MethodAuthorizeUpload, "file URI", err)
	}
	claims := token.Claims{Purpose: token.PurposeUpload, FileID: id, Owner: holder, Size: size, SHA256: sum,
		MediaType: formatMediaType(mt, params), Name: name, Expires: authExpires}
	res := &AuthorizeUploadResult{
		File: FileValue{URI: uri, Name: name, MimeType: p.MimeType, Size: &size, Digest: p.Digest},
	}
	if ps, ok := c.Store.(store.Presigner); ok {
		meta := store.Meta{Size: size, MediaType: claims.MediaType, Name: name, Owner: holder, Expires: authExpires.Add(c.FileTTL)}
		copy(meta.SHA256[:], sum)
		sr, err := ps.PresignUpload(ctx, id, meta, authExpires)
		if err != nil {
			return nil, c.internal(ctx, MethodAuthorizeUpload, "presign", err)
		}
		res.Upload = FileTransferDescriptor{Transport: TransportHTTPS, Method: sr.Method, URL: sr.URL, Headers: sr.Headers, ExpiresAt: authExpires.UTC()}
	} else {
		tok, err := c.Keys.Sign(claims)
		if err != nil {
			return nil, c.internal(ctx, MethodAuthorizeUpload, "token", err)
		}
		res.Upload = FileTransferDescriptor{
			Transport: TransportHTTPS, Method: TransferPOST, URL: c.uploadURL,
			Multipart: &Multipart{FileField: FormFieldFile, Fields: map[string]string{FormFieldToken: tok}},
			ExpiresAt: authExpires.UTC(),
		}
	}
	return res, nil
}

// parseMediaType parses a declared media type: type/subtype, lower-cased,
// neither of them a wildcard, with parameters; it must be at most
// token.MaxMediaTypeLen bytes as declared, and formatted again as the
// token will carry it (which can lengthen it, and encodes parameter values
// that are not ASCII, RFC 2231) it must be printable ASCII of at most
// that length, every parameter kept.
func parseMediaType(declared string) (mt string, params map[string]string, ok bool) {
	if len(declared) > token.MaxMediaTypeLen {
		return "", nil, false
	}
	mt, params, err := mime.ParseMediaType(declared)
	if err != nil {
		return "", nil, false
	}
	typ, sub, _ := strings.Cut(mt, "/")
	if typ == "" || sub == "" || strings.Contains(mt, "*") {
		return "", nil, false
	}
	f := mime.FormatMediaType(mt, params)
	if f == "" || len(f) > token.MaxMediaTypeLen { // "": a parameter it cannot write, such as one without a name
		return "", nil, false
	}
	if !text.PrintableASCII(f) {
		return "", nil, false
	}
	return mt, params, true
}

// formatMediaType writes a parsed media type, as the token and the store
// carry it.
func formatMediaType(mt string, params map[string]string) string {
	if f := mime.FormatMediaType(mt, params); f != "" {
		return f
	}
	return mt
}

// checkUploadable checks that some upload-capable file field of schemas
// accepts media type mt with a file of size bytes, and returns the -32602
// error that says why not.
func checkUploadable(schemas []*descriptor.Schema, mt string, size int64) error {
	var accept []string
	var limit int64 = -1 // the largest size allowed for mt
	anyField := false
	for _, s := range schemas {
		for _, name := range s.Names() {
			f := s.Props[name].File
			if !f.AllowsUpload() {
				continue
			}
			anyField = true
			for _, a := range f.Allowed() {
				if !slices.Contains(accept, a) {
					accept = append(accept, a)
				}
			}
			if f.Accepts(mt) {
				limit = max(limit, f.Limit(runtime.DefaultMaxSize))
			}
		}
	}
	switch {
	case !anyField:
		return InvalidFileError("files/authorizeUpload: this server has no argument that takes uploaded files", ErrorData{Reason: ReasonMimeTypeNotAccepted, MimeType: mt})
	case limit < 0:
		return InvalidFileError(fmt.Sprintf("files/authorizeUpload: mimeType %s is not accepted: allowed are %s", text.Quote(mt, shortLen), strings.Join(accept, ", ")),
			ErrorData{Reason: ReasonMimeTypeNotAccepted, MimeType: mt, Accept: accept})
	case size > limit:
		return InvalidFileError(fmt.Sprintf("files/authorizeUpload: size %d exceeds maxSize %d for %s", size, limit, mt),
			ErrorData{Reason: ReasonMaxSizeExceeded, MaxSize: &limit, ActualSize: &size})
	}
	return nil
}

// authorizeDownload serves files/authorizeDownload to from: the metadata
// of the file a URI names, and a signed, expiring GET of its bytes.
func (c *config) authorizeDownload(ctx context.Context, from sender, p *AuthorizeDownloadParams) (*AuthorizeDownloadResult, error) {
	if p == nil || p.URI == "" {
		return nil, InvalidFileError("files/authorizeDownload: uri is required", ErrorData{Reason: ReasonMalformed})
	}
	owner, err := c.ownerOf(from)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "files/authorizeDownload: " + err.Error()}
	}
	ref, m, le := c.lookup(ctx, p.URI, owner)
	if le != nil {
		return nil, c.lookupRPC(ctx, le)
	}
	now := c.Now()
	expires := now.Add(c.DownloadTTL)
	if !m.Expires.IsZero() && m.Expires.Before(expires) {
		expires = m.Expires
	}
	expires = expires.Truncate(time.Second) // as the token keeps it, and as expiresAt says
	if expires.Sub(now) < time.Second {
		return nil, c.lookupRPC(ctx, &lookupError{problem: uriExpired})
	}
	d := FileTransferDescriptor{Transport: TransportHTTPS, Method: TransferGET, ExpiresAt: expires.UTC()}
	if ps, ok := c.Store.(store.DownloadPresigner); ok {
		// Straight from the backend, with the endpoint's Content-Type and
		// Content-Disposition (a backend cannot be told to send its other
		// headers, nosniff and the sandboxing CSP).
		sr, err := ps.PresignDownload(ctx, ref.FileID, downloadType(m.MediaType), store.ContentDisposition(m.Name), expires)
		if err != nil {
			return nil, c.internal(ctx, MethodAuthorizeDownload, "presign", err)
		}
		d.Method, d.URL = sr.Method, sr.URL
		if len(sr.Headers) > 0 {
			d.Headers = sr.Headers
		}
	} else {
		tok, err := c.Keys.Sign(token.Claims{Purpose: token.PurposeDownload, FileID: ref.FileID, Owner: m.Owner, // lookup checked it is the caller's
			Size: m.Size, SHA256: m.SHA256[:], MediaType: m.MediaType, Name: m.Name, Expires: expires})
		if err != nil {
			return nil, c.internal(ctx, MethodAuthorizeDownload, "token", err)
		}
		d.URL = c.downloadURL + tok
	}
	return &AuthorizeDownloadResult{File: fileValue(p.URI, m), Download: d}, nil
}

// downloadWording is what files/authorizeDownload says of a uri that
// names no file the caller may have.
var downloadWording = uriWording{
	uriMalformed:  "files/authorizeDownload: the uri is not a file URI this server issued; send the uri of a file output or of files/authorizeUpload, unchanged",
	uriExpired:    "files/authorizeDownload: the uri has expired",
	uriForged:     "files/authorizeDownload: the uri was not issued to this caller by this server, or was altered",
	uriForeign:    "files/authorizeDownload: the uri was issued by another server",
	uriMissing:    "files/authorizeDownload: the uri names no file: it was never uploaded, was deleted, or has expired",
	uriOtherOwner: "files/authorizeDownload: the uri was not issued to this caller",
	uriReplaced:   "files/authorizeDownload: the file stored under the uri is not the one it was issued for (its size or SHA-256 differs: it was replaced in the store)",
}

// lookupRPC is the JSON-RPC error of files/authorizeDownload for le.
func (c *config) lookupRPC(ctx context.Context, le *lookupError) error {
	if le.problem == uriStoreFailed {
		return c.internal(ctx, MethodAuthorizeDownload, "store stat", le.err)
	}
	return InvalidFileError(le.text(&downloadWording), ErrorData{Reason: le.reason()})
}

// fileValue is the FileValue of the stored file m under uri.
func fileValue(uri string, m store.Meta) FileValue {
	size := m.Size
	d := SHA256Digest(m.SHA256)
	return FileValue{URI: uri, Name: m.Name, MimeType: m.MediaType, Size: &size, Digest: &d}
}
