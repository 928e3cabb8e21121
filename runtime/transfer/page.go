package transfer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/text"
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

// ClosePage ends the wait for the page whose state is given: the person
// declined (see hook.Resolver).
func (r *resolver) ClosePage(ctx context.Context, extra *mcp.RequestExtra, state string) {
	c := r.c
	owner, err := c.owner(extra, r.session)
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

var errPageClosed = errors.New("the person declined to upload a file through the page")

var errPageExpired = errors.New("no file was uploaded through the upload page before it expired; ask for the file again")

// NewPage mints an upload page for the file d describes (see hook.Resolver).
func (r *resolver) NewPage(ctx context.Context, extra *mcp.RequestExtra, hk hook.PageKey, d descriptor.File, message string, done func(elicitationID string)) (hook.Page, error) {
	c := r.c
	now := c.Now()
	owner, err := c.owner(extra, r.session)
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
	if len(accept) > token.MaxMediaTypeLen || !text.PrintableASCII(accept) {
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
	sealedMessage, err := c.Keys.Seal(text.Cut(strings.ToValidUTF8(message, "\uFFFD"), maxPageMessage))
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
	owner, err := c.owner(extra, r.session)
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
				logInternal(c.obs, ctx, "waiting for an upload page", "store stat", err)
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
