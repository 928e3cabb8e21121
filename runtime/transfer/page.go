package transfer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// Upload pages: URL-mode elicitation of a file from a person
// ([runtime.ElicitUpload]). The handler asks the resolver for a page
// (resolver.NewPage): a signed page token ([token.PurposePage]) that names
// the file ID the upload will be stored under, its owner, the most bytes
// it may have (Claims.Size), the accept list (Claims.MediaType, its entries
// joined by commas) and the message to show (Claims.Name). The person opens
// PublicURL/page/<token>, a form that posts the token in a hidden field and
// the file to PublicURL/page; the post runs the upload endpoint's checks and
// stores the file under the token's file ID. The handler meanwhile waits for
// that file (resolver.AwaitPage), reporting progress, and resolves it as it
// resolves any file URI.

// Timings of the wait for a page's upload.
const (
	// pagePoll is how often a handler waiting for a page's upload asks the
	// store, for an upload that another replica took.
	pagePoll = 2 * time.Second
	// progressEvery is the least time between two progress notifications.
	progressEvery = 250 * time.Millisecond
)

// A page is the record, in this process, of an upload page this server
// minted: what the waiting handler and the page's upload share.
type page struct {
	id      string                     // the file ID the upload is stored under
	key     *pageKey                   // nil for none
	hp      hook.Page                  // what NewPage returned
	total   int64                      // the most bytes the page takes
	expires time.Time                  // the page's token expires
	done    func(elicitationID string) // called once on success; nil for none
	caller  caller
	// uploadDeadline is when an upload that started in time is cut: the
	// page's expiry plus another PageTTL.
	uploadDeadline time.Time
	timer          *time.Timer // ends the page at expiry; guarded by pages.mu
	endedAt        time.Time   // when its wait ended; guarded by pages.mu

	received  atomic.Int64 // bytes of the upload in progress
	uploading atomic.Int32 // uploads in progress
	finished  chan struct{}
	once      sync.Once
	err       error // why the wait ended, set before finished closes; nil: uploaded
	size      int64 // the file's size, set before finished closes
	pages     *pages
}

// finish ends the page's wait: with the file of size bytes when err is nil.
// The page stops counting as pending.
func (p *page) finish(size int64, err error) {
	p.once.Do(func() {
		p.size, p.err = size, err
		done := p.done
		close(p.finished)
		p.pages.end(p)
		if err == nil && done != nil {
			go done(p.hp.ElicitationID)
		}
	})
}

func (p *page) isFinished() bool {
	select {
	case <-p.finished:
		return true
	default:
		return false
	}
}

// A caller is who asks for pages: the principal, or, for anonymous
// callers, the session (its ID, or, for a session without one, such as
// stdio's, the session itself).
type caller struct {
	owner   string
	session any // "" , the session's ID, or a weak.Pointer to it
}

// A pageKey finds the page of a call's retry after a -32042 error: the
// caller, the tool, the input request and what it asks for.
type pageKey struct {
	caller
	tool, id, form string
}

// pages is a server's record of its upload pages: the pending ones by file
// ID, at most max of them and perCaller of one caller's; and by key, the
// pages of -32042 errors, pending or uploaded and not yet taken by the
// retry. A page whose wait ended stays known by file ID for keptFinished.
type pages struct {
	mu        sync.Mutex
	byID      map[string]*page
	byKey     map[pageKey]*page
	pending   int            // pages whose wait is not over
	byCaller  map[caller]int // of those, each caller's
	ended     []*page        // the others, oldest first, for keptFinished: at most 4×max, or 4096
	max       int
	perCaller int
}

func newPages(max, perCaller int) *pages {
	return &pages{byID: map[string]*page{}, byKey: map[pageKey]*page{}, byCaller: map[caller]int{}, max: max, perCaller: perCaller}
}

// forget drops the ended pages older than keptFinished, and the oldest
// beyond 4×max (or 4096). Call with ps.mu held.
func (ps *pages) forget(now time.Time) {
	n := 0
	for n < len(ps.ended) && (len(ps.ended)-n > max(4*ps.max, 4096) || now.Sub(ps.ended[n].endedAt) > keptFinished) {
		p := ps.ended[n]
		if ps.byID[p.id] == p {
			delete(ps.byID, p.id)
		}
		if p.key != nil && ps.byKey[*p.key] == p {
			delete(ps.byKey, *p.key)
		}
		ps.ended[n] = nil
		n++
	}
	ps.ended = ps.ended[n:]
}

func (ps *pages) get(id string) *page {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.byID[id]
}

// byKeyLive returns the page minted under key, unless it expired or its
// upload failed. A page whose upload is done is found for keptFinished
// after the upload: by the retry that takes its file, and by the retries
// after it (a handler that asks for two files runs from the top each
// time); a later call gets a new page.
func (ps *pages) byKeyLive(key pageKey, now time.Time) *page {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.forget(time.Now())
	p := ps.byKey[key]
	if p == nil || !now.Before(p.expires) || (p.isFinished() && p.err != nil) {
		return nil
	}
	return p
}

// end counts p as no longer pending (its wait is over), forgets it by key
// unless its file waits for a retry to take it, and forgets it by file ID
// after keptFinished, the time a retry has to see how the wait ended.
func (ps *pages) end(p *page) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.pending--
	if ps.byCaller[p.caller]--; ps.byCaller[p.caller] <= 0 {
		delete(ps.byCaller, p.caller)
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	if p.key != nil && p.err != nil && ps.byKey[*p.key] == p {
		delete(ps.byKey, *p.key)
	}
	p.done = nil // what it holds need not outlive the wait
	p.endedAt = time.Now()
	ps.ended = append(ps.ended, p)
	ps.forget(p.endedAt)
}

// keptFinished is how long a page whose wait is over stays known: for a
// retry that comes after the upload ended (in failure too), and for the
// page to answer a late post with 410.
const keptFinished = 2 * time.Minute

// add records p until it expires, unless max pages, or perCaller pages of
// p's caller, are pending.
func (ps *pages) add(p *page, now time.Time) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.forget(time.Now())
	if ps.pending >= ps.max {
		return fmt.Errorf("the server has %d upload pages waiting for a file, its limit; try again when some have been used or have expired", ps.max)
	}
	if ps.byCaller[p.caller] >= ps.perCaller {
		return fmt.Errorf("this caller has %d upload pages waiting for a file, the limit per caller; use or decline one first", ps.perCaller)
	}
	p.pages = ps
	ps.pending++
	ps.byCaller[p.caller]++
	ps.byID[p.id] = p
	if p.key != nil {
		ps.byKey[*p.key] = p
	}
	// It ends when it has expired, once no upload is in flight, and an
	// upload may go on at most until its deadline.
	var drop func()
	drop = func() {
		if p.uploading.Load() > 0 && time.Now().Before(p.uploadDeadline) {
			ps.mu.Lock()
			p.timer = time.AfterFunc(time.Minute, drop)
			ps.mu.Unlock()
			return
		}
		p.finish(0, errPageExpired)
	}
	p.timer = time.AfterFunc(p.expires.Sub(now)+time.Minute, drop)
	return nil
}

// ClosePage ends the wait for the page whose state is given: the person
// declined (see hook.Resolver).
func (r *resolver) ClosePage(ctx context.Context, extra *mcp.RequestExtra, state string) {
	c := r.c
	owner, err := c.owner(extra)
	if err != nil {
		return
	}
	ref, le := c.checkFileURI(state, owner)
	if le != nil {
		return
	}
	if p := c.pages.get(ref.FileID); p != nil {
		p.finish(0, errPageClosed)
	}
}

// pageUsed refuses a page through which a file was uploaded already.
var pageUsed = refuseUsed.says("A file was uploaded through this page already. Go back to the application that asked for it.")

const pageGone = "This upload page is no longer waiting for a file (it was declined, or its request ended). Go back to the application that asked for it."

var errPageClosed = errors.New("the person declined to upload a file through the page")

var errPageExpired = errors.New("no file was uploaded through the upload page before it expired; ask for the file again")

// NewPage mints an upload page for the file d describes (see hook.Resolver).
func (r *resolver) NewPage(ctx context.Context, extra *mcp.RequestExtra, hk hook.PageKey, d descriptor.File, message string, done func(elicitationID string)) (hook.Page, error) {
	c := r.c
	now := c.Now()
	owner, err := c.owner(extra)
	if err != nil {
		return hook.Page{}, errors.New("the server cannot tell who is asking")
	}
	who := caller{owner: owner}
	if owner == "" && hk.Session != nil { // anonymous: only the session tells callers apart
		if sid := hk.Session.ID(); sid != "" {
			who.session = sid
		} else {
			who.session = weak.Make(hk.Session) // a page does not keep its session alive
		}
	}
	var key *pageKey
	if hk.Reuse {
		key = &pageKey{caller: who, tool: hk.Tool, id: hk.ID, form: hk.Form}
		if p := c.pages.byKeyLive(*key, now); p != nil {
			hp := p.hp
			hp.Done = p.isFinished()
			return hp, nil
		}
	}
	accept := strings.Join(d.Accept, ",")
	if len(accept) > token.MaxMediaTypeLen || !printableASCII(accept) {
		return hook.Page{}, fmt.Errorf("the accept list %q cannot go on an upload page (at most %d bytes of printable ASCII)", accept, token.MaxMediaTypeLen)
	}
	total := d.Limit(runtime.DefaultMaxSize)
	if !c.quota.admits(total) {
		return hook.Page{}, fmt.Errorf("the file may be up to %d bytes, more than the %d bytes of uploaded files a caller may hold (transfer.Options.Quota): raise the quota, or lower the form's maxSize", total, c.Quota)
	}
	expires := now.Add(c.PageTTL).Truncate(time.Second)
	id := pageFileID(hk.Tool, hk.ID)
	// The page's URL is shown to people and kept in browsers' histories:
	// the principal and the message travel in it sealed, unreadable.
	sealedOwner, err := c.Keys.Seal(owner)
	if err != nil {
		return hook.Page{}, fmt.Errorf("sealing the upload page's owner: %w", err)
	}
	sealedMessage, err := c.Keys.Seal(cutUTF8(strings.ToValidUTF8(message, "\uFFFD"), maxPageMessage))
	if err != nil {
		return hook.Page{}, fmt.Errorf("sealing the upload page's message: %w", err)
	}
	tok, err := c.Keys.Sign(token.Claims{
		Purpose: token.PurposePage, FileID: id, Owner: sealedOwner, Size: total,
		MediaType: accept, Name: sealedMessage, Expires: expires,
	})
	if err != nil {
		return hook.Page{}, fmt.Errorf("signing the upload page's token: %w", err)
	}
	uri, err := c.Keys.FileURI(token.FileRef{Host: c.Host, FileID: id, Owner: owner, Expires: expires.Add(c.FileTTL)})
	if err != nil {
		return hook.Page{}, fmt.Errorf("signing the upload page's file URI: %w", err)
	}
	p := &page{
		id: id, key: key, caller: who, total: total, expires: expires, uploadDeadline: expires.Add(c.PageTTL),
		done: done, finished: make(chan struct{}),
		hp: hook.Page{URL: c.pageURL + tok, ElicitationID: id, State: uri},
	}
	if err := c.pages.add(p, now); err != nil {
		return hook.Page{}, err
	}
	return p.hp, nil
}

// maxPageMessage is the longest message a page shows, in bytes: sealed, it
// must fit a token's name.
const maxPageMessage = 640

// pageFileID returns a new file ID for an upload page of the input
// request id of tool: "page_", a digest of the two, "_" and a random part.
// The file URI of a page is the state its retry brings back: the prefix
// keeps AwaitPage from taking an uploaded file's URI for one, and the
// digest from taking the page of another tool or input request.
func pageFileID(tool, id string) string {
	return pagePrefix + pageBinding(tool, id) + "_" + rand.Text()
}

const pagePrefix = "page_"

func pageBinding(tool, id string) string {
	sum := sha256.Sum256([]byte(strconv.Quote(tool) + strconv.Quote(id)))
	return hex.EncodeToString(sum[:8]) // no "_", which ends it in the ID
}

// pageOf reports whether the file ID fileID is of a page of the input
// request id of tool.
func pageOf(fileID, tool, id string) bool {
	rest, ok := strings.CutPrefix(fileID, pagePrefix)
	b, _, ok2 := strings.Cut(rest, "_")
	return ok && ok2 && b == pageBinding(tool, id)
}

// AwaitPage waits for the upload of the page whose state is given (see hook.Resolver).
func (r *resolver) AwaitPage(ctx context.Context, extra *mcp.RequestExtra, hk hook.PageKey, state string, progress func(received, total int64)) (string, error) {
	c := r.c
	owner, err := c.owner(extra)
	if err != nil {
		return "", errors.New("the server cannot tell who is asking")
	}
	ref, le := c.checkFileURI(state, owner)
	switch {
	case le != nil && le.problem == uriExpired:
		return "", errPageExpired
	case le != nil || !pageOf(ref.FileID, hk.Tool, hk.ID):
		return "", errors.New("the upload page named in this call's requestState is not one this server gave this caller for this tool and input request; call the tool again without it")
	}
	pageExpires := ref.Expires.Add(-c.FileTTL)
	p := c.pages.get(ref.FileID) // nil when another replica minted the page
	var finished <-chan struct{}
	var tick <-chan time.Time
	total := int64(0)
	if p != nil {
		finished, total = p.finished, p.total
		if progress != nil {
			t := time.NewTicker(progressEvery)
			defer t.Stop()
			tick = t.C
		}
	}
	uploaded := func(size int64) (string, error) {
		if progress != nil {
			progress(size, size)
		}
		return state, nil
	}
	if p == nil { // minted by another replica, or long done: the store knows
		if m, err := c.Store.Stat(ctx, ref.FileID); err == nil {
			return uploaded(m.Size)
		}
	}
	poll := time.NewTicker(pagePoll)
	defer poll.Stop()
	deadline := time.NewTimer(max(pageExpires.Sub(c.Now()), 0))
	defer deadline.Stop()
	var reported int64
	for {
		select {
		case <-finished:
			if p.err != nil {
				return "", p.err
			}
			return uploaded(p.size)
		case <-tick:
			if n := p.received.Load(); n != reported && p.uploading.Load() > 0 {
				reported = n
				progress(n, total)
			}
		case <-poll.C:
			m, err := c.Store.Stat(ctx, ref.FileID)
			if err == nil {
				return uploaded(m.Size)
			}
			if !errors.Is(err, store.ErrNotFound) {
				logInternal(c.ErrorLog, ctx, "waiting for an upload page", "store stat", err)
			}
		case <-deadline.C:
			if p != nil && p.uploading.Load() > 0 && c.Now().Before(p.uploadDeadline) {
				deadline.Reset(time.Second) // an upload that started in time may end, by its deadline
				continue
			}
			if m, err := c.Store.Stat(ctx, ref.FileID); err == nil {
				return uploaded(m.Size)
			}
			return "", errPageExpired
		case <-ctx.Done():
			return "", fmt.Errorf("the tool call ended while waiting for the upload page: %w", context.Cause(ctx))
		}
	}
}

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
	if p := c.pages.get(claims.FileID); p != nil && p.isFinished() && p.err != nil {
		c.pageProblem(w, r, refusePageClosed, "")
		return
	}
	switch _, err := c.Store.Stat(r.Context(), claims.FileID); {
	case err == nil:
		c.pageProblem(w, r, pageUsed, "")
		return
	case !errors.Is(err, store.ErrNotFound):
		c.pageProblem(w, r, c.httpInternal(r, "upload page", "store stat", err).says("The server could not show this page. Try again later."), "")
		return
	}
	accept := splitAccept(claims.MediaType)
	data := pageData{
		Message:    claims.Name,
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
	p := c.pages.get(claims.FileID) // nil when another replica minted the page
	if p != nil && p.isFinished() && p.err != nil {
		return 0, refusePageClosed
	}
	if p != nil {
		p.uploading.Add(1)
		defer p.uploading.Add(-1)
		p.received.Store(0)
	}
	name := part.FileName()
	browser, _, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
	if err != nil {
		browser = ""
	}
	if name == "" {
		return 0, refuseNoFile
	}
	switch used, ok, err := c.quota.check(ctx, claims.Owner, claims.Size, c.Now()); {
	case err != nil:
		return 0, c.pageInternal(r, "store usage", err)
	case !ok:
		return 0, refuseQuota.says(fmt.Sprintf("The server holds %s of your files; with one of up to %s that would pass your limit of %s. Try again when some of them have expired.", humanSize(used), humanSize(claims.Size), humanSize(c.quota.limit)))
	}

	// The first bytes decide the media type, before anything is stored.
	var body io.Reader = &idleReader{r: part, rc: http.NewResponseController(w), idle: c.Upload.IdleTimeout}
	body = &deadlineReader{r: body, now: c.Now, deadline: claims.Expires.Add(c.PageTTL)}
	head, err := readHead(body, content.SniffLen)
	if err != nil {
		return 0, c.pageBrokeOff(p, r, int64(len(head)))
	}
	tooLarge := refuseTooLarge.says("The file is larger than the limit of " + humanSize(claims.Size) + ". Choose a smaller file.")
	if int64(len(head)) > claims.Size {
		return 0, tooLarge
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
			Name: cutUTF8(runtime.SanitizeName(name), token.MaxNameLen), Owner: claims.Owner, Expires: expires,
		},
	}
	if p != nil {
		in.received = &p.received
	}
	n, err := in.run(ctx)
	switch {
	case errors.Is(err, errOversize):
		return 0, tooLarge
	case errors.Is(err, errRead):
		return 0, c.pageBrokeOff(p, r, n)
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
func (c *config) pageBrokeOff(p *page, r *http.Request, n int64) *refusal {
	if p != nil {
		p.finish(0, fmt.Errorf("the upload through the page broke off after %d bytes (the browser closed, or lost its connection); ask for the file again", n))
	}
	return refuseIncomplete.says("The upload broke off before the whole file arrived. Go back to the application that asked for the file.")
}

func (c *config) pageInternal(r *http.Request, step string, err error) *refusal {
	if !logInternal(c.ErrorLog, r.Context(), "upload page", step, err) {
		return refuseCanceled.says("The upload was canceled.")
	}
	return refuseInternal.says("The server failed to store the file. Try again later.")
}

// pageMediaType chooses the media type a page's upload is stored as: the
// browser's type for the file (its part's Content-Type) when accept takes
// it and the first bytes agree, else the first concrete type of accept
// that they agree with, else, when accept takes anything, the type the
// first bytes show, or application/octet-stream.
func pageMediaType(accept []string, browser string, head []byte) (string, *refusal) {
	d := descriptor.File{Accept: accept}
	fits := func(mt string) bool {
		_, ok := content.Check(mt, "", head)
		return ok
	}
	if browser != "" && browser != defaultMediaType && d.Accepts(browser) && fits(browser) {
		return browser, nil
	}
	for _, a := range d.Allowed() {
		if !strings.Contains(a, "*") && fits(a) {
			return a, nil
		}
	}
	detected, _ := content.Check(defaultMediaType, "", head)
	if detected != "" && detected != defaultMediaType && d.Accepts(detected) {
		return detected, nil
	}
	if d.Accepts(defaultMediaType) {
		return defaultMediaType, nil
	}
	what := content.Describe(detected)
	if detected == "" {
		what = "not one the server recognizes"
	}
	return "", refuseNotAccepted.says("This file's type is " + what + "; the accepted types are " + acceptText(accept) + ". Choose another file.")
}

// readHead reads the first n bytes of r, or all of a shorter r; an error
// other than r's end is returned (a multipart part cut short ends with
// io.ErrUnexpectedEOF, which is such an error).
func readHead(r io.Reader, n int) ([]byte, error) {
	head := make([]byte, n)
	got := 0
	for got < n {
		m, err := r.Read(head[got:])
		got += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return head[:got], err
		}
	}
	return head[:got], nil
}

// A deadlineReader fails reads after deadline: an upload that started
// before its page expired has until then to finish.
type deadlineReader struct {
	r        io.Reader
	now      func() time.Time
	deadline time.Time
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if !d.now().Before(d.deadline) {
		return 0, errors.New("the upload's deadline passed")
	}
	return d.r.Read(p)
}

// pageProblem answers a refused page request: a short page that says why
// (again, when not "", is the page to choose another file on), or, to the
// page's script, JSON.
func (c *config) pageProblem(w http.ResponseWriter, r *http.Request, rf *refusal, again string) {
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

// splitAccept splits a page token's accept list.
func splitAccept(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// acceptText says which files an accept list takes.
func acceptText(accept []string) string {
	var out []string
	for _, a := range accept {
		if a = strings.TrimSpace(a); a != "" && a != "*/*" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return "any type"
	}
	return strings.Join(out, ", ")
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

// cutUTF8 cuts s to at most n bytes, at a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
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

// The page's markup. Its script and style are constants, allowed by hash
// in the Content-Security-Policy; what varies (the limits) is in data-
// attributes, which html/template escapes. They hold no comments, which
// html/template drops from scripts and styles: the page would then not
// carry the text that was hashed.
type pageData struct {
	Message    string
	Action     string
	Token      string
	MaxSize    int64
	MaxText    string
	AcceptAttr string
	AcceptText string
}

const pageStyle = `body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1a1a1a;background:#fafafa}
main{max-width:36rem;margin:0 auto;background:#fff;border:1px solid #ccc;border-radius:8px;padding:1.5rem}
h1{font-size:1.4rem;margin-top:0}label{font-weight:600;display:block;margin-bottom:.25rem}
button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer}
button:disabled{opacity:.6;cursor:default}progress{width:100%;height:1.25rem}
.rules{color:#444}.error{color:#b3261e;font-weight:600}.ok{color:#146c2e;font-weight:600}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}`

const pageScript = `(function () {
  var form = document.getElementById('upload');
  var input = document.getElementById('file');
  var button = document.getElementById('send');
  var bar = document.getElementById('progress');
  var status = document.getElementById('status');
  var max = Number(form.getAttribute('data-max-size'));
  var accept = (form.getAttribute('data-accept') || '').split(',').map(function (a) { return a.trim().toLowerCase(); }).filter(Boolean);
  function size(n) {
    var u = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1).replace(/\.0$/, '') : n) + ' ' + u[i];
  }
  function say(text, kind) { status.textContent = text; status.className = kind || ''; }
  function accepted(file) {
    if (!accept.length || !file.type) { return true; }
    var name = file.name.toLowerCase(), type = file.type.toLowerCase();
    var major = type.split('/')[0] + '/';
    return accept.some(function (a) {
      if (a === '*/*') { return true; }
      if (a.charAt(0) === '.') { return name.slice(-a.length) === a; }
      return type.indexOf(a.split('/')[0] + '/') === 0 || a.indexOf(major) === 0;
    });
  }
  function over(n) {
    var a = size(n), b = size(max);
    return a === b ? n + ' bytes, larger than the limit of ' + max + ' bytes' : a + ', larger than the limit of ' + b;
  }
  input.addEventListener('change', function () { say(''); });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var file = input.files[0];
    if (!file) { say('Choose a file first.', 'error'); return; }
    if (file.size > max) { say(file.name + ' is ' + over(file.size) + '. Choose a smaller file.', 'error'); return; }
    if (!accepted(file)) { say(file.name + ' is not one of the accepted types. Choose another file.', 'error'); return; }
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = function (ev) {
      if (ev.lengthComputable) { bar.max = ev.total; bar.value = ev.loaded; }
      say('Sent ' + size(Math.min(ev.loaded, file.size)) + ' of ' + size(file.size) + '.');
    };
    xhr.onload = function () {
      var r = {};
      try { r = JSON.parse(xhr.responseText); } catch (_) {}
      if (xhr.status === 201) {
        bar.value = bar.max;
        form.setAttribute('data-state', 'done');
        input.disabled = true;
        say('Upload complete (' + size(r.size) + '). You can close this page and go back to the application.', 'ok');
        return;
      }
      button.disabled = false;
      say(r.error || ('The upload failed (HTTP ' + xhr.status + ').'), 'error');
    };
    xhr.onerror = function () { button.disabled = false; say('The connection broke off. Try again.', 'error'); };
    button.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    say('Sending ' + file.name + '…');
    xhr.send(new FormData(form));
  });
})();`

// pageCSP allows the page's own script and style, by hash, its form's
// post to the same origin, and nothing else.
var pageCSP = "default-src 'none'; script-src '" + cspHash(pageScript) + "'; style-src '" + cspHash(pageStyle) +
	"'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// pageTemplates are the page, the page of a refusal and the page of a
// completed upload, which share their head.
var pageTemplates = template.Must(template.New("").Parse(`{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}}</title>
<style>` + pageStyle + `</style>
</head>
{{end}}

{{define "page"}}{{template "head" "Upload a file"}}<body>
<main>
<h1>Upload a file</h1>
{{if .Message}}<p id="message">{{.Message}}</p>{{end}}
<form id="upload" method="post" action="{{.Action}}" enctype="multipart/form-data" data-max-size="{{.MaxSize}}" data-accept="{{.AcceptAttr}}">
<input type="hidden" name="token" value="{{.Token}}">
<p><label for="file">File</label>
<input id="file" type="file" name="file" required{{if .AcceptAttr}} accept="{{.AcceptAttr}}"{{end}} aria-describedby="rules"></p>
<p id="rules" class="rules">Accepted: {{.AcceptText}}. Up to {{.MaxText}}.</p>
<p><button id="send" type="submit">Upload</button></p>
<progress id="progress" value="0" max="100" hidden aria-label="Upload progress"></progress>
<p id="status" role="status" aria-live="polite"></p>
</form>
</main>
<script>` + pageScript + `</script>
</body>
</html>
{{end}}

{{define "problem"}}{{template "head" "Upload not accepted"}}<body>
<main>
<h1>Upload not accepted</h1>
<p id="reason" class="error">{{.Reason}}</p>
{{if .Again}}<p><a id="again" href="{{.Again}}">Choose another file</a></p>{{end}}
<p class="rules">{{.Status}}</p>
</main>
</body>
</html>
{{end}}

{{define "done"}}{{template "head" "Upload complete"}}<body>
<main>
<h1>Upload complete</h1>
<p id="status" class="ok">The file ({{.Size}}) has arrived. You can close this page and go back to the application.</p>
</main>
</body>
</html>
{{end}}`))
