package client

import (
	"crypto/sha256"
	"mime"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/runtime/internal/text"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// The checks of the server's answers: the file of files/authorizeUpload
// (checkFile), its upload descriptor (checkDescriptor; its headers are
// checked by requestHeaders, which knows the body), and the endpoint's
// receipt (checkReceipt). Each refusal is one line, in the SEP's member
// names.

const authorize = wire.MethodAuthorizeUpload

// checkFile checks the file files/authorizeUpload answered against the
// declaration d. It returns the sha-256 sum the server announced when d
// declared none, to be checked against the bytes sent.
func checkFile(f wire.FileValue, d *declaration) (announced *[sha256.Size]byte, err error) {
	scheme, _, ok := strings.Cut(f.URI, ":")
	switch {
	case f.URI == "":
		return nil, bad("%s answered no file.uri", authorize)
	case !ok || !strings.EqualFold(scheme, "mcp-file"):
		return nil, bad("%s answered a file.uri of scheme %s (want mcp-file:)", authorize, quoteShort(scheme))
	case f.Size != nil && *f.Size != d.size:
		return nil, bad("%s answered file.size %d, not the declared %d", authorize, *f.Size, d.size)
	case f.MimeType != "" && !sameMediaType(f.MimeType, d.mediaType):
		return nil, bad("%s answered file.mimeType %s, not the declared %q", authorize, quoteShort(f.MimeType), d.mediaType)
	case f.Digest == nil:
		return nil, nil
	}
	sum, err := f.Digest.SHA256()
	switch {
	case err != nil && d.sum != nil:
		return nil, bad("%s answered a file.digest that is not the declared one: %s", authorize, strings.TrimPrefix(err.Error(), "wire: "))
	case err != nil:
		return nil, nil // another algorithm, of bytes the client did not declare: nothing to check it against
	case d.sum != nil && sum != *d.sum:
		return nil, bad("%s answered file.digest %s, not the declared %s", authorize, quoteShort(f.Digest.Value), wire.SHA256Digest(*d.sum).Value)
	case d.sum != nil:
		return nil, nil
	}
	return &sum, nil
}

// sameMediaType reports whether a and b have the same type/subtype.
func sameMediaType(a, b string) bool {
	ma, _, err1 := mime.ParseMediaType(a)
	mb, _, err2 := mime.ParseMediaType(b)
	return err1 == nil && err2 == nil && ma == mb
}

// checkDescriptor checks the upload descriptor d at time now and returns
// its URL.
func checkDescriptor(d wire.FileTransferDescriptor, allowHTTP bool, now time.Time) (*url.URL, error) {
	switch {
	case d.Transport != wire.TransportHTTPS:
		return nil, bad("%s answered upload.transport %s (want %q)", authorize, quoteShort(d.Transport), wire.TransportHTTPS)
	case d.Method == wire.TransferGET:
		return nil, bad("%s answered upload.method %q, a download (want POST or PUT)", authorize, d.Method)
	case d.Method != wire.TransferPOST && d.Method != wire.TransferPUT:
		return nil, bad("%s answered upload.method %s (want POST or PUT)", authorize, quoteShort(d.Method))
	}
	if m := d.Multipart; m != nil {
		if m.FileField == "" {
			return nil, bad("%s answered upload.multipart without a fileField", authorize)
		}
		if !fieldName(m.FileField) {
			return nil, bad("%s answered upload.multipart.fileField %s, which is not a form field name", authorize, quoteShort(m.FileField))
		}
		for k := range m.Fields {
			switch {
			case k == m.FileField:
				return nil, bad("%s answered upload.multipart.fields with a field %s, which is the fileField", authorize, quoteShort(k))
			case !fieldName(k):
				return nil, bad("%s answered upload.multipart.fields with a field %s, which is not a form field name", authorize, quoteShort(k))
			}
		}
	}
	u, err := url.Parse(d.URL)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return nil, bad("%s answered an upload.url that is not an absolute URL", authorize)
	case u.Scheme == "http" && !allowHTTP:
		return nil, bad("%s answered an upload.url of %s, not https: (refused: SEP-2631 uploads are transport-protected; set Options.AllowHTTP for a server you trust over plain HTTP)", authorize, redact(u))
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, bad("%s answered an upload.url of scheme %s (want https)", authorize, quoteShort(u.Scheme))
	case u.User != nil:
		return nil, bad("%s answered an upload.url of %s with user info (credentials go in upload.headers)", authorize, redact(u))
	case !d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt):
		return nil, bad("%s answered an upload descriptor that expired at %s (it is now %s)", authorize, d.ExpiresAt.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return u, nil
}

// fieldName reports whether s can be a form field name: printable, so
// that it cannot break the part's headers.
func fieldName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// checkReceipt checks what the endpoint's 2xx answer reported, and the
// sum the server announced in files/authorizeUpload, against what was
// sent.
func checkReceipt(s *sent, announced *[sha256.Size]byte) error {
	r := s.receipt
	if r.Size != nil && *r.Size != s.size {
		return bad("the upload endpoint answered size %d, but %d bytes were sent", *r.Size, s.size)
	}
	if r.Digest != nil {
		sum, err := r.Digest.SHA256()
		switch {
		case err != nil && strings.EqualFold(r.Digest.Algorithm, wire.DigestSHA256):
			return bad("the upload endpoint answered a malformed digest: %s", strings.TrimPrefix(err.Error(), "wire: "))
		case err == nil && sum != s.sum:
			return bad("the upload endpoint answered digest %s, but the bytes sent have %s", quoteShort(r.Digest.Value), wire.SHA256Digest(s.sum).Value)
		}
	}
	if announced != nil && *announced != s.sum {
		return bad("%s answered file.digest %s, but the bytes sent have %s", authorize, wire.SHA256Digest(*announced).Value, wire.SHA256Digest(s.sum).Value)
	}
	return nil
}

// redact is u as errors show it: scheme and host, never the path or
// query, which may hold a signature or token.
func redact(u *url.URL) string {
	return u.Scheme + "://" + u.Host + "/…"
}

// shortLen is how many bytes of a server's value an error quotes.
const shortLen = 24

// quoteShort quotes s, or its first shortLen bytes followed by an
// ellipsis when it is longer.
func quoteShort(s string) string { return text.Quote(s, shortLen) }
