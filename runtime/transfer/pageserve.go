package transfer

// The HTTP side of upload pages (see page.go): the page, GET
// PublicURL/page/<token>, and its form's post, POST PublicURL/page, which
// runs the upload endpoint's checks through the shared ingest.

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/text"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// pageUsed refuses a page through which a file was uploaded already.
var pageUsed = refuseUsed.says("A file was uploaded through this page already. Go back to the application that asked for it.")

const pageGone = "This upload page is no longer waiting for a file (it was declined, or its request ended). Go back to the application that asked for it."

// servePage answers GET PublicURL/page/<token>: the upload page.
func (c *config) servePage(w http.ResponseWriter, r *http.Request, tok string) {
	pageHeaders(w)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		c.pageProblem(w, r, refuseMethod.says("This address shows an upload page: open it in a browser."), "")
		return
	}
	claims, rf := c.pageClaims(r, tok)
	if rf != nil {
		c.pageProblem(w, r, rf, "")
		return
	}
	recordOf(w).about(claims.Owner, claims.FileID, claims.MediaType, claims.Size)
	if c.pageEnded(r, claims.FileID) {
		c.pageProblem(w, r, refusePageClosed, "")
		return
	}
	switch _, err := c.Store.Stat(r.Context(), claims.FileID); {
	case err == nil:
		c.pageProblem(w, r, pageUsed, "")
		return
	case !errors.Is(err, store.ErrNotFound):
		c.pageProblem(w, r, httpInternal(c.obs, r, "upload page", "store stat", err).says("The server could not show this page. Try again later."), "")
		return
	}
	accept := splitAccept(claims.MediaType)
	tool, message := parsePageAsk(claims.Name)
	data := pageData{
		Server:     c.serverName(r.Context()),
		Tool:       tool,
		Message:    message,
		Action:     c.pagePostURL,
		Token:      tok,
		MaxSize:    claims.Size,
		MaxText:    humanSize(claims.Size),
		AcceptAttr: strings.Join(accept, ","),
		AcceptText: acceptText(accept),
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		pageTemplates.ExecuteTemplate(w, "page", data)
	}
}

// pageClaims verifies the token of an upload page for the request.
func (c *config) pageClaims(r *http.Request, tok string) (token.Claims, *refusal) {
	const altered = "This is not an upload page of this server, or its address was altered."
	claims, rf := verifyToken(c.Keys, tok, token.PurposePage, c.Now())
	switch {
	case rf == nil:
	case rf.code == ReasonExpired:
		return claims, rf.says("This upload page has expired. Go back to the application that asked for the file, and ask it again.")
	case rf.code == ReasonMalformed:
		return claims, rf.says("This upload page's address is damaged. Open the address the application gave you, unchanged.")
	default:
		return claims, rf.says(altered)
	}
	owner, err := c.Keys.Open(claims.Owner)
	if err != nil {
		return claims, refuseUnauthorized.says(altered)
	}
	message, err := c.Keys.Open(claims.Name)
	if err != nil {
		return claims, refuseUnauthorized.says(altered)
	}
	claims.Owner, claims.Name = owner, message
	if rf := checkOwner(c.httpOwner, r, claims.Owner); rf != nil {
		return claims, rf.says("This upload page was made for another user.")
	}
	return claims, nil
}

// servePagePost answers POST PublicURL/page: the page's form, with its
// token before the file, in multipart/form-data.
func (c *config) servePagePost(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		c.pageProblem(w, r, refuseMethod.says("Files are sent here with POST, from the upload page's form."), "")
		return
	}
	// Another site's form could post here; the token stops it (it is not
	// in that site's page), and so do the browser's own headers.
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		c.pageProblem(w, r, refuseCrossSite, "")
		return
	}
	// A browser sends "Origin: null" for the page's own plain form post,
	// since the page's Referrer-Policy is no-referrer (the Fetch standard's
	// origin serialization); Sec-Fetch-Site, where sent, tells it apart
	// from an opaque origin elsewhere (cross-site), refused above.
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !strings.EqualFold(o, c.publicOrigin) {
		c.pageProblem(w, r, refuseCrossSite, "")
		return
	}
	tok, part, rf := formToken(r, c.Upload.MaxPreambleBytes, c.Upload.MaxParts)
	if rf != nil {
		c.pageProblem(w, r, rf.says("The form was not sent as the upload page sends it ("+rf.text+"). Use the upload page the application gave you."), "")
		return
	}
	claims, rf := c.pageClaims(r, tok)
	if rf != nil {
		c.pageProblem(w, r, rf, "")
		return
	}
	again := c.pageURL + tok // where a person can choose another file
	n, rf := c.pageUpload(w, r, claims, part)
	if rf != nil {
		if rf.code == ReasonAlreadyUsed || rf.code == ReasonInternal {
			again = ""
		}
		c.pageProblem(w, r, rf, again)
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusCreated, map[string]any{"size": n})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusCreated)
	pageTemplates.ExecuteTemplate(w, "done", struct{ Size string }{humanSize(n)})
}

// pageUpload stores the file part of a page's post under the token's file
// ID, with the upload endpoint's checks, and ends the wait of the handler
// that asked for it. It returns the file's size.
func (c *config) pageUpload(w http.ResponseWriter, r *http.Request, claims token.Claims, part *multipart.Part) (int64, *refusal) {
	ctx := r.Context()
	recordOf(w).about(claims.Owner, claims.FileID, claims.MediaType, claims.Size)
	p := c.pages.get(claims.FileID) // nil when another replica minted the page
	if c.pageEnded(r, claims.FileID) {
		return 0, refusePageClosed
	}
	received := new(atomic.Int64)
	if p != nil {
		p.uploading.Add(1)
		defer p.uploading.Add(-1)
		p.received.Store(0)
		received = &p.received
	} else { // the replica running the call learns of it from the store
		defer c.markProgress(ctx, claims.FileID, claims.Size, claims.Expires, received)()
	}
	name := part.FileName()
	browser, _, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
	if err != nil {
		browser = ""
	}
	if name == "" {
		return 0, refuseNoFile
	}
	mem := int64(c.bufs.sizeFor(claims.Size))
	key := admissionKey(claims.Owner, r)
	if rf := c.admit.enter(w, key, mem); rf != nil {
		return 0, rf.says("The server is busy with other uploads (" + rf.text + "). Try again in a minute.")
	}
	defer c.admit.leave(key, mem)
	switch u, ok, err := c.quota.check(ctx, claims.Owner, claims.Size, c.Now()); {
	case err != nil:
		return 0, c.pageInternal(r, "store usage", err)
	case !ok && u.shared:
		return 0, refuseQuota.says(fmt.Sprintf("The server holds %s of files; with one of up to %s that would pass the %s it takes from people who are not signed in. Try again later.", humanSize(u.held), humanSize(claims.Size), humanSize(u.limit)))
	case !ok:
		return 0, refuseQuota.says(fmt.Sprintf("The server holds %s of %s; with one of up to %s that would pass the limit of %s. Try again when some of them have expired%s.", humanSize(u.held), u.whose(), humanSize(claims.Size), humanSize(u.limit), u.signIn()))
	}

	// The first bytes decide the media type, before anything is stored.
	var body io.Reader = newPaceReader(part, w, c.Upload.uploadPace(claims.Size, claims.Expires, c.Now()), claims.Size)
	head, err := readHead(body, content.SniffLen)
	if errors.Is(err, errTooSlow) {
		return 0, c.pageTooSlow(p, r, claims, err)
	}
	if err != nil {
		return 0, c.pageBrokeOff(p, r, claims, int64(len(head)))
	}
	tooLarge := func() *refusal {
		return refuseTooLarge.says("The file is larger than the limit of " + humanSize(claims.Size) + ". Choose a smaller file.")
	}
	if int64(len(head)) > claims.Size {
		return 0, tooLarge()
	}
	mt, rf := pageMediaType(splitAccept(claims.MediaType), browser, head)
	if rf != nil {
		return 0, rf
	}

	expires := c.Now().Add(c.FileTTL)
	if expires.Before(claims.Expires.Add(c.FileTTL)) {
		expires = claims.Expires.Add(c.FileTTL) // as the file URI says
	}
	in := ingest{
		store: c.Store, id: claims.FileID, head: head, body: body, bufs: c.bufs,
		meta: store.Meta{
			Size: store.SizeUnknown, MaxSize: claims.Size, MediaType: mt,
			Name: text.Cut(runtime.SanitizeName(name), token.MaxNameLen), Owner: claims.Owner, Expires: expires,
		},
	}
	in.received = received
	n, err := in.run(ctx)
	recordOf(w).moved(n)
	switch {
	case errors.Is(err, errOversize):
		return 0, tooLarge()
	case errors.Is(err, errTooSlow):
		return 0, c.pageTooSlow(p, r, claims, err)
	case errors.Is(err, errRead):
		return 0, c.pageBrokeOff(p, r, claims, n)
	case errors.Is(err, store.ErrExists):
		return 0, pageUsed
	case err != nil: // a *storeFailure
		return 0, c.pageInternal(r, "ingest", err)
	}
	if p != nil {
		p.finish(n, nil)
	}
	return n, nil
}

// pageBrokeOff answers an upload whose body broke off after n bytes: the
// browser went away (closed, or lost its connection). The handler waiting
// for the page ends with an error, since no one is left to try again.
func (c *config) pageBrokeOff(p *page, r *http.Request, claims token.Claims, n int64) *refusal {
	err := fmt.Errorf("the upload through the page broke off after %d bytes (the browser closed, or lost its connection); ask for the file again", n)
	c.markEnded(r.Context(), claims.FileID, claims.Expires, err)
	if p != nil {
		p.finish(0, err)
	}
	return refuseIncomplete.says("The upload broke off before the whole file arrived. Go back to the application that asked for the file.")
}

// pageTooSlow answers an upload cut by its pace (err says why): the
// handler waiting for the page ends with an error, as for one that broke
// off.
func (c *config) pageTooSlow(p *page, r *http.Request, claims token.Claims, err error) *refusal {
	why := cutReason(err)
	ended := fmt.Errorf("the upload through the page was cut: %s; ask for the file again", why)
	c.markEnded(r.Context(), claims.FileID, claims.Expires, ended)
	if p != nil {
		p.finish(0, ended)
	}
	return refuseTooSlow.says("The upload was too slow (" + why + "), so the server stopped it. Try again on a faster connection.")
}

// pageInternal answers a failure of the server's own in a page's post, in
// the page's words (see httpInternal).
func (c *config) pageInternal(r *http.Request, step string, err error) *refusal {
	if rf := httpInternal(c.obs, r, "upload page", step, err); rf.code == ReasonCanceled {
		return rf.says("The upload was canceled.")
	}
	return refuseInternal.says("The server failed to store the file. Try again later.")
}

// pageEnded reports whether the page of fileID ended without a file: on
// this replica, or on another (its marker in the store).
func (c *config) pageEnded(r *http.Request, fileID string) bool {
	if p := c.pages.get(fileID); p != nil && p.isFinished() {
		return p.err != nil
	}
	return c.endedMark(r.Context(), fileID) != nil
}

// pageProblem answers a refused page request: a short page that says why
// (again, when not "", is the page to choose another file on), or, to the
// page's script, JSON.
func (c *config) pageProblem(w http.ResponseWriter, r *http.Request, rf *refusal, again string) {
	recordOf(w).refused(rf)
	if wantsJSON(r) {
		rf.write(w)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(rf.status)
	pageTemplates.ExecuteTemplate(w, "problem", struct{ Status, Reason, Again string }{strconv.Itoa(rf.status) + " " + http.StatusText(rf.status), rf.text, again})
}

// wantsJSON reports whether the request is the page's script's.
func wantsJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Accept"))
	return mt == "application/json"
}

// pageHeaders are the headers of every page response: nothing runs but
// the page's own script and style, nothing frames it, no one caches it,
// and its address (which holds the token) goes to no other site.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// humanSize writes a byte count for people: "2 GiB", "1.5 MiB", "300 bytes".
func humanSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		if n == 1 {
			return "1 byte"
		}
		return strconv.FormatInt(n, 10) + " bytes"
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + units[u:u+1] + "iB"
}

// origin is the scheme://host[:port] of an absolute URL as browsers send
// it in Origin: lower-cased, without the scheme's default port.
func origin(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		return u.Scheme + "://" + host
	}
	return u.Scheme + "://" + host + ":" + port
}
