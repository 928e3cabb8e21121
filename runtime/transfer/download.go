package transfer

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// serveDownload is the download endpoint: a GET (or HEAD) of
// …/download/<token>, with a single Range at a time (a request for several
// ranges gets the whole file), that never redirects.
//
//	200, 206                the bytes (or the ranges asked for)
//	400  malformed          malformed token
//	403  unauthorized       token of an unknown key, altered, for another purpose,
//	                        or of another owner than the request's principal
//	403  expired            expired token
//	404  notFound           the file is gone (deleted, expired) or is not the one
//	                        the token was issued for
//	405  methodNotAllowed   another method than GET or HEAD
//	416  rangeNotSatisfiable a Range that asks for no byte of the file, or is
//	                        not a range (see downloadRange)
//	500  internal           the store failed (logged)
//
// A refusal has the JSON body {"error": text, "reason": code}, as the
// upload endpoint's.
func (c *config) serveDownload(w http.ResponseWriter, r *http.Request, tok string) {
	var rec transferRecord
	rec.begin(opDownload, "", r)
	cw := &countingResponse{ResponseWriter: w}
	rf := c.download(cw, r, tok, &rec)
	if rf != nil {
		rf.write(cw)
	}
	if rf == nil {
		rec.Bytes = cw.n
	}
	rec.end(r.Context(), c.obs, rf, cw.status)
}

// download serves a download, and returns its refusal (written by the
// caller); it fills in rec as it learns what the download is.
func (c *config) download(w http.ResponseWriter, r *http.Request, tok string, rec *transferRecord) *refusal {
	h := w.Header()
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		return refuseMethod.says(fmt.Sprintf("method %q not allowed (want GET or HEAD)", r.Method))
	}
	cl, rf := verifyToken(c.Keys, tok, token.PurposeDownload, c.Now())
	if rf != nil {
		return rf
	}
	rec.about(cl.Owner, cl.FileID, cl.MediaType, cl.Size)
	if rf := checkOwner(c.httpOwner, r, cl.Owner); rf != nil {
		return rf
	}
	m, err := c.Store.Stat(r.Context(), cl.FileID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return refuseNotFound
	case err != nil:
		return httpInternal(c.obs, r, "download", "store stat", err)
	case m.Owner != cl.Owner || m.Size != cl.Size || string(m.SHA256[:]) != string(cl.SHA256):
		return refuseNotFound // the ID holds another file than the one the token was issued for
	}
	rd, err := c.Store.Open(r.Context(), cl.FileID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return refuseNotFound
	case err != nil:
		return httpInternal(c.obs, r, "download", "store open", err)
	}
	defer rd.Close()
	etag := `"sha256-` + base64.RawURLEncoding.EncodeToString(m.SHA256[:]) + `"`
	switch downloadRange(r.Header, etag, m.Size) {
	case rangeWhole:
		r.Header.Del("Range")
	case rangeNotSatisfiable:
		h.Set("Content-Range", "bytes */"+strconv.FormatInt(m.Size, 10))
		return refuseRange
	}
	// Whatever the file is, the browser saves it and runs nothing in it.
	h.Set("Content-Type", downloadType(m.MediaType))
	h.Set("Content-Disposition", store.ContentDisposition(m.Name))
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, rd)
	return nil
}

// What a download does with the request's Range.
const (
	rangeOne            = iota // serve the one range asked for (http.ServeContent)
	rangeWhole                 // serve the whole file: ignore the Range
	rangeNotSatisfiable        // refuse with 416: no byte of the file is asked for
)

// downloadRange decides what a download of size bytes with ETag etag does
// with the Range of request header h (RFC 9110 §14). http.ServeContent is
// left only the one range that overlaps the file, as it answers some
// ranges that select nothing (bytes=-0) with an empty 206.
//
//   - No Range, one whose If-Range is not etag, or of another unit than
//     bytes: the whole file.
//   - A range-spec that is not one (bytes=5-4, bytes=-, bytes=a-b), or
//     none that overlaps the file (bytes=2500- of 2500 bytes, bytes=-0):
//     416.
//   - Several ranges (in one header or several), of which one overlaps:
//     the whole file, as RFC 9110 allows; they can overlap and cost a part
//     header each.
//   - One range that overlaps the file: that range. An empty file has
//     none; a suffix range of it, which RFC 9110 counts as satisfiable,
//     gets the (empty) whole file.
func downloadRange(h http.Header, etag string, size int64) int {
	specs := h.Values("Range")
	if len(specs) == 0 {
		return rangeWhole
	}
	if ir := h.Get("If-Range"); ir != "" && ir != etag {
		return rangeWhole
	}
	set := strings.Join(specs, ",")
	unit, set, ok := strings.Cut(set, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return rangeWhole
	}
	n, overlaps := 0, false
	for spec := range strings.SplitSeq(set, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue // RFC 9110's #rule allows empty list elements
		}
		n++
		first, last, ok := strings.Cut(spec, "-")
		if !ok || !digits(last) && last != "" || !digits(first) && first != "" || first == "" && last == "" {
			return rangeNotSatisfiable
		}
		switch {
		case first == "": // suffix: the last n bytes, some if n > 0
			overlaps = overlaps || strings.TrimLeft(last, "0") != ""
		case last != "" && position(last) < position(first):
			return rangeNotSatisfiable
		default:
			overlaps = overlaps || position(first) < size
		}
	}
	switch {
	case n == 0 || !overlaps:
		return rangeNotSatisfiable
	case n > 1 || size == 0:
		return rangeWhole
	}
	return rangeOne
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// position is the value of the digits s, or math.MaxInt64 past it.
func position(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return math.MaxInt64
	}
	return v
}

// downloadType is the Content-Type a download is served with: the stored
// media type when it parses, else application/octet-stream.
func downloadType(mt string) string {
	if t, params, err := mime.ParseMediaType(mt); err == nil && strings.Contains(t, "/") {
		return mime.FormatMediaType(t, params)
	}
	return "application/octet-stream"
}
