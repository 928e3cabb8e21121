package transfer

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// UploadHandler returns the upload endpoint: it takes the bytes of one
// file authorized by an upload token ([token.PurposeUpload]) into
// o.Store under the token's file ID, in one of two ways:
//
//   - POST of multipart/form-data, as the SEP's descriptor says: the token
//     in the form field "token", then the bytes in the file field "file".
//     The token field must come before the file part, so that the token
//     is checked before a byte of the file is read; fields other than
//     these two are read and ignored. Parts are taken raw (no
//     Content-Transfer-Encoding is decoded) and the file part's
//     Content-Type is ignored: the token declares the media type.
//   - PUT of the bytes as the request body, with the token in an
//     Mcp-Upload-Token header ([HeaderUploadToken]), which an auth layer in
//     front of the endpoint leaves alone, or else in an
//     "Authorization: Bearer" header. The request's Content-Type is
//     ignored; a Content-Length other than the declared size is refused
//     before anything is read.
//
// Every request runs one pipeline: method → find the token → verify it →
// check the owner → check the declared length → check the quota → create
// the object (the token's single use) → copy the body through one fixed buffer, enforcing
// the declared size to the byte, sniffing the first [content.SniffLen]
// bytes against the declared media type, while the store hashes them →
// commit, where the store checks the SHA-256 and makes the file visible.
// A success is 201 with a JSON body {"size": …, "digest": {"algorithm":
// "sha-256", "value": <base64url>}}. A rejection is a JSON body {"error":
// text, "reason": code}: the code is stable (one of the Reason constants),
// the text is for people, and neither ever holds the token or any byte of
// the file:
//
//	405  methodNotAllowed     method other than POST or PUT (with an Allow header)
//	401  noToken              PUT without an Mcp-Upload-Token or Bearer token (with WWW-Authenticate: Bearer)
//	415  unsupportedBody      POST that is not multipart/form-data
//	400  malformed            malformed multipart body, no token before the file part, no
//	                          file part, a field or part count over its limit, a token
//	                          field too long; malformed token
//	403  unauthorized         token of an unknown key, with a bad signature, for another
//	                          purpose (the text says which), or issued to another owner
//	                          than the request's (see Owner)
//	403  expired              expired token
//	507  quotaExceeded        the owner's files would pass the quota (see Quota)
//	413  maxSizeExceeded      body longer than the declared size: at the first extra
//	                          byte, which is the last byte read (or at once from
//	                          Content-Length)
//	429  tooManyUploads       the owner has MaxUploadsPerOwner uploads in progress (with
//	                          Retry-After)
//	503  busy                 the server has MaxUploads uploads in progress, or their
//	                          buffers would pass MaxUploadMemory (with Retry-After)
//	400  incomplete           body shorter than the declared size, or a body that breaks off
//	408  tooSlow              the body came slower than MinRate over a RateWindow, did not
//	                          end by its deadline, or stalled for IdleTimeout (see MinRate)
//	409  alreadyUsed          the token was used already (a file is committed under its ID)
//	415  contentMismatch      the first bytes are not the declared media type (the text
//	                          says what they are)
//	422  digestMismatch       the bytes do not have the declared SHA-256
//	400  canceled             the client went away
//	500  internal             the store failed (logged to ErrorLog; the text says no more)
//
// A rejected upload leaves nothing in the store and does not use up its
// token: the genuine upload may follow. The handler never redirects, holds
// no more of a file than its buffer (for a small file, twice the file's
// size), leaves no goroutine behind, and aborts the object when the client
// goes away. UploadHandler panics if o.Store or o.Keys is nil.
func UploadHandler(o UploadOptions) http.Handler {
	if o.Store == nil || o.Keys == nil {
		panic("transfer: UploadHandler needs UploadOptions.Store and UploadOptions.Keys")
	}
	o.fillDefaults()
	obs := newObserver(o.Logger, o.MeterProvider, o.Keys, o.ErrorLog)
	return newUploadHandler(o, newBufferPool(o.BufferSize), newAdmission(&o, obs), obs)
}

// newUploadHandler is the upload endpoint of o, whose defaults are filled
// in, copying through buffers of bufs, its uploads admitted by admit,
// recorded by obs.
func newUploadHandler(o UploadOptions, bufs *bufferPool, admit *admission, obs *observer) *uploadHandler {
	return &uploadHandler{o: o, quota: newQuota(o.Store, o.Quota), bufs: bufs, admit: admit, obs: obs}
}

type uploadHandler struct {
	o     UploadOptions // defaults filled in
	quota quota
	bufs  *bufferPool
	admit *admission
	obs   *observer
}

func (h *uploadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	var rec transferRecord
	rec.begin(opUpload, viaEndpoint, r)
	rf := h.upload(w, r, &rec)
	if rf != nil {
		rf.write(w)
	}
	rec.end(r.Context(), h.obs, rf, http.StatusCreated)
}

// upload is the pipeline: it writes the success response itself and
// returns the rejection of a refused request. It fills in rec as it
// learns what the upload is.
func (h *uploadHandler) upload(w http.ResponseWriter, r *http.Request, rec *transferRecord) *refusal {
	ctx := r.Context()

	// 1. Method: POST (the SEP's multipart descriptor) or PUT (raw body).
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		w.Header().Set("Allow", "POST, PUT")
		return refuseMethod.says(fmt.Sprintf("method %q not allowed (want POST or PUT)", r.Method))
	}

	// 2. Find the token, and the reader of the file's bytes.
	var tok string
	var body io.Reader
	var rf *refusal
	if r.Method == http.MethodPut {
		tok, rf = putToken(r)
		body = r.Body
	} else {
		var part *multipart.Part
		tok, part, rf = formToken(r, h.o.MaxPreambleBytes, h.o.MaxParts)
		body = part
	}
	if rf != nil {
		return rf
	}

	// 3. Verify the token: well formed, signed by our keys, for upload, unexpired.
	c, rf := verifyToken(h.o.Keys, tok, token.PurposeUpload, h.o.Now())
	if rf != nil {
		return rf
	}

	rec.about(c.Owner, c.FileID, c.MediaType, c.Size)

	// 4. Owner: the token's principal is the request's, when it has one.
	if rf := checkOwner(h.o.Owner, r, c.Owner); rf != nil {
		return rf
	}

	// 5. Declared length: a PUT body is the file, so its Content-Length must be the size.
	if r.Method == http.MethodPut && r.ContentLength > c.Size {
		return refuseTooLarge.says(fmt.Sprintf("Content-Length %d is larger than the declared size %d", r.ContentLength, c.Size))
	}
	if r.Method == http.MethodPut && r.ContentLength >= 0 && r.ContentLength < c.Size {
		return refuseIncomplete.says(fmt.Sprintf("Content-Length %d is smaller than the declared size %d", r.ContentLength, c.Size))
	}

	// 6. Room: the owner's uploads in progress, the server's, and the
	// buffer this one may hold, within their bounds; and the quota: what
	// the owner holds, and this file, within the limit.
	mem := int64(h.bufs.sizeFor(c.Size))
	key := admissionKey(c.Owner, r)
	if rf := h.admit.enter(w, key, mem); rf != nil {
		return rf
	}
	defer h.admit.leave(key, mem)
	switch u, ok, err := h.quota.check(ctx, c.Owner, c.Size, h.o.Now()); {
	case err != nil:
		return httpInternal(h.obs, r, "upload", "store usage", err)
	case !ok:
		return refuseQuota.says(fmt.Sprintf("quota exceeded: %s %d bytes of uploaded files, and %d more would pass the quota of %d", u.holds("the owner"), u.held, c.Size, u.limit))
	}

	// 7–9. Create the object (a committed one under the ID means the token
	// was used), copy the body into it (exact size, the first bytes
	// sniffed, hashed by the store), commit (the store checks the digest).
	// The file outlives its token, so that the token stays spent: were the
	// file swept while the token was good, the token could upload other
	// bytes under the same ID, and one file URI would name two files.
	expires := h.o.Now().Add(h.o.TTL)
	if expires.Before(c.Expires) {
		expires = c.Expires
	}
	meta := store.Meta{Size: c.Size, MediaType: c.MediaType, Name: c.Name, Owner: c.Owner, Expires: expires}
	copy(meta.SHA256[:], c.SHA256) // nil declares no digest: the zero value
	in := ingest{
		store: h.o.Store, id: c.FileID, meta: meta, bufs: h.bufs, sniff: sniffer(c.MediaType),
		body: endAtCut{newPaceReader(body, w, h.o.uploadPace(c.Size, c.Expires, h.o.Now()), c.Size)},
	}
	n, err := in.run(ctx)
	rec.Bytes = n
	mismatch, _ := err.(*sniffError) // as ingest returns it: no errors.As target to allocate
	switch {
	case errors.Is(err, errTooSlow):
		return refuseTooSlow.says(fmt.Sprintf("upload cut after %d of the declared %d bytes: %s", n, c.Size, cutReason(err)))
	case errors.Is(err, errOversize):
		return refuseTooLarge.says(fmt.Sprintf("body is larger than the declared size %d", c.Size))
	case errors.Is(err, errShort):
		return refuseIncomplete.says(fmt.Sprintf("body ended after %d of the declared %d bytes", n, c.Size))
	case mismatch != nil:
		return refuseContent.says(fmt.Sprintf("content is %s, not the declared %s", content.Describe(mismatch.detected), mismatch.declared))
	case errors.Is(err, errRead):
		return refuseIncomplete.says(fmt.Sprintf("reading the body failed after %d bytes", n))
	case errors.Is(err, store.ErrExists): // at create, or from a store that learns of the earlier upload later
		return refuseUsed
	case errors.Is(err, store.ErrDigest):
		return refuseDigest
	case err != nil: // a *storeFailure
		return httpInternal(h.obs, r, "upload", "ingest", err)
	}

	// 10. Created: the size and digest of what the file URI now resolves to.
	sum := c.SHA256
	if sum == nil {
		m, err := h.o.Store.Stat(ctx, c.FileID)
		if err != nil {
			return httpInternal(h.obs, r, "upload", "store stat", err)
		}
		sum = m.SHA256[:]
	}
	writeJSON(w, http.StatusCreated, uploadResult{
		Size:   n,
		Digest: FileDigest{Algorithm: DigestSHA256, Value: base64.RawURLEncoding.EncodeToString(sum)},
	})
	return nil
}

// uploadResult is the body of a 201: the file's size and digest, as in
// the SEP's file metadata.
type uploadResult struct {
	Size   int64      `json:"size"`
	Digest FileDigest `json:"digest"`
}

// bearerToken returns the token of a PUT's Authorization header.
func bearerToken(r *http.Request) (string, *refusal) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		return "", refuseNoToken
	}
	if len(vals) > 1 {
		return "", refuseMalformed.says("more than one Authorization header")
	}
	scheme, tok, _ := strings.Cut(vals[0], " ")
	tok = strings.Trim(tok, " ")
	if !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", refuseNoToken
	}
	return tok, nil
}

// formToken reads a multipart/form-data body up to the start of its file
// part, which it returns, and the token field before it. What it reads is
// bounded by maxPreamble bytes and maxParts parts.
func formToken(r *http.Request, maxPreamble int64, maxParts int) (tok string, file *multipart.Part, rf *refusal) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return "", nil, refuseBodyType
	}
	if params["boundary"] == "" {
		return "", nil, refuseMalformed.says("multipart/form-data without a boundary")
	}
	pre := &preambleReader{r: r.Body, left: maxPreamble}
	mr := multipart.NewReader(pre, params["boundary"])
	tooLong := refuseMalformed.says(fmt.Sprintf("the parts before the file field are longer than %d bytes", maxPreamble))
	malformed := refuseMalformed.says("malformed multipart body")
	haveToken := false
	for range maxParts {
		p, err := mr.NextRawPart() // raw: the file's bytes are never transformed
		switch {
		case pre.hit:
			return "", nil, tooLong
		case err == io.EOF:
			return "", nil, refuseMalformed.says(`no file field "` + FormFieldFile + `"`)
		case err != nil:
			return "", nil, malformed
		}
		switch p.FormName() {
		case FormFieldToken:
			if haveToken {
				return "", nil, refuseMalformed.says(`more than one token field "` + FormFieldToken + `"`)
			}
			b, err := io.ReadAll(io.LimitReader(p, token.MaxTokenLen+1))
			switch {
			case pre.hit:
				return "", nil, tooLong
			case err != nil:
				return "", nil, malformed
			case len(b) > token.MaxTokenLen:
				return "", nil, refuseMalformed.says(fmt.Sprintf("token field longer than %d bytes", token.MaxTokenLen))
			}
			tok, haveToken = string(b), true
		case FormFieldFile:
			if !haveToken {
				return "", nil, refuseMalformed.says(`no token field "` + FormFieldToken + `" before the file field "` + FormFieldFile + `"`)
			}
			pre.left = -1 // the file part's length is bounded by the declared size
			return tok, p, nil
		default: // another field: read and ignored
			_, err := io.Copy(io.Discard, p)
			switch {
			case pre.hit:
				return "", nil, tooLong
			case err != nil:
				return "", nil, malformed
			}
		}
	}
	return "", nil, refuseMalformed.says(fmt.Sprintf("no file field %q among the first %d parts", FormFieldFile, maxParts))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}
