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
	// store for what another replica did: took the upload, marked the page
	// ended or the upload's progress (pagemarks.go).
	pagePoll = 2 * time.Second
	// progressEvery is the least time between two progress notifications.
	progressEvery = 250 * time.Millisecond
)

// ClosePage ends the wait for the page whose state is given: the person
// declined (see hook.Resolver).
func (r *resolver) ClosePage(ctx context.Context, extra *mcp.RequestExtra, state string) {
	c := r.c
	owner, err := c.ownerOf(r.from)
	if err != nil {
		return
	}
	ref, le := c.checkFileURI(state, owner)
	if le != nil || isLinkPage(ref.FileID) { // a link's page ends by expiring: whoever saw the link may not end it
		return
	}
	p := c.pages.get(ref.FileID)
	if p != nil {
		p.finish(0, errPageClosed)
		if p.err != errPageClosed && p.err != errShuttingDown {
			return // it had ended before: uploaded, or marked by the replica that took its upload
		}
	} else if _, err := c.Store.Stat(ctx, ref.FileID); err == nil {
		return // uploaded
	}
	c.markEnded(ctx, ref.FileID, ref.Expires.Add(-c.FileTTL), errPageClosed) // for the other replicas
}

var errPageClosed = errors.New("the person declined to upload a file through the page")

var errPageExpired = errors.New("no file was uploaded through the upload page before it expired; ask for the file again")

// NewPage mints an upload page for the file d describes (see hook.Resolver).
func (r *resolver) NewPage(ctx context.Context, extra *mcp.RequestExtra, hk hook.PageKey, d descriptor.File, message string, done func(elicitationID string)) (hook.Page, error) {
	c := r.c
	now := c.Now()
	owner, err := c.ownerOf(r.from)
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
	} else if owner == "" && hk.Caller != nil { // another SDK's (runtime/mcpgo)
		who.session = hk.Caller
	}
	var key *pageKey
	if hk.Reuse {
		key = &pageKey{caller: who, tool: hk.Tool, id: hk.ID, form: hk.Form}
		if p := c.pages.byKeyLive(*key, now); p != nil {
			hp := p.hp
			hp.Done = p.isFinished()
			hp.Uploading = !hp.Done && p.uploading.Load() > 0
			hp.Again = true
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
	id := pageFileID(hk.Tool, hk.ID, hk.Reuse)
	// The page's URL is shown to people and kept in browsers' histories:
	// the principal and the message travel in it sealed, unreadable.
	sealedOwner, err := c.Keys.Seal(c.quotaOwner(ctx, owner)) // whom its file counts against, and is stored for
	if err != nil {
		return hook.Page{}, fmt.Errorf("sealing the upload page's owner: %w", err)
	}
	sealedMessage, err := c.Keys.Seal(pageAsk(hk.Tool, message))
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
		id: id, key: key, caller: who, address: pageAddress(ctx, extra, owner), network: pageNetwork(ctx, owner), total: total, expires: expires, uploadDeadline: expires.Add(c.PageTTL),
		done: done, finished: make(chan struct{}),
		hp: hook.Page{URL: c.pageURL + tok, ElicitationID: id, State: uri},
	}
	if err := c.pages.add(p, now); err != nil {
		return hook.Page{}, err
	}
	return p.hp, nil
}

// maxPageMessage is the longest message a page shows, with the tool's
// name, in bytes: sealed, the two must fit a token's name.
const maxPageMessage = 640

// maxPageTool is the longest tool name a page shows, in bytes (MCP's
// limit of a tool's name is 128 characters).
const maxPageTool = 128

// pageAsk is what a page's token carries, sealed, of who asks: the tool,
// a NUL, then the message, both valid UTF-8, together at most
// maxPageMessage bytes. parsePageAsk reverses it.
func pageAsk(tool, message string) string {
	tool = text.Cut(strings.ReplaceAll(strings.ToValidUTF8(tool, "\uFFFD"), "\x00", ""), maxPageTool)
	return tool + "\x00" + text.Cut(strings.ToValidUTF8(message, "\uFFFD"), maxPageMessage-len(tool)-1)
}

// parsePageAsk returns the tool and the message of pageAsk's text. A text
// without a NUL (a page minted before pages named their tool) is all
// message.
func parsePageAsk(s string) (tool, message string) {
	if t, m, ok := strings.Cut(s, "\x00"); ok {
		return t, m
	}
	return "", s
}

// pageFileID returns a new file ID for an upload page of the input
// request id of tool: "page_", a digest of the tool, one of the two, "_",
// for a page handed over as a link (link: one found again by its key)
// "link_", and a random part. The file URI of a page is the state its
// retry brings back: the prefix keeps AwaitPage from taking an uploaded
// file's URI for one, the digests from taking the page of another tool or
// input request, and Resolve from giving a page's file to another tool's
// argument; "link_" keeps the file URI of a link, which the model sees and
// may send back in an argument that takes the file once, from serving as
// the requestState of a URL-mode input request, which takes it as often
// as it is sent.
func pageFileID(tool, id string, link bool) string {
	if link {
		return pagePrefix + pageBinding(tool, id) + "_" + linkPart + rand.Text()
	}
	return pagePrefix + pageBinding(tool, id) + "_" + rand.Text()
}

const (
	pagePrefix = "page_"
	linkPart   = "link_"
)

// isLinkPage reports whether the file ID of a page is of one handed over
// as a link (see pageFileID).
func isLinkPage(fileID string) bool {
	rest, _ := strings.CutPrefix(fileID, pagePrefix)
	_, rnd, _ := strings.Cut(rest, "_")
	return strings.HasPrefix(rnd, linkPart)
}

func pageBinding(tool, id string) string {
	sum := sha256.Sum256([]byte(strconv.Quote(tool) + strconv.Quote(id)))
	return toolBinding(tool) + hex.EncodeToString(sum[:8]) // no "_", which ends it in the ID
}

func toolBinding(tool string) string {
	sum := sha256.Sum256([]byte(strconv.Quote(tool)))
	return hex.EncodeToString(sum[:4])
}

// pageOfTool reports whether the file ID fileID is of a page of tool, for
// any input request.
func pageOfTool(fileID, tool string) bool {
	rest, ok := strings.CutPrefix(fileID, pagePrefix)
	return ok && strings.HasPrefix(rest, toolBinding(tool))
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
	owner, err := c.ownerOf(r.from)
	if err != nil {
		return "", errors.New("the server cannot tell who is asking")
	}
	ref, le := c.checkFileURI(state, owner)
	switch {
	case le != nil && le.problem == uriExpired:
		return "", errPageExpired
	case le != nil || !pageOf(ref.FileID, hk.Tool, hk.ID) || isLinkPage(ref.FileID) != hk.Reuse:
		return "", errors.New("the upload page named in this call's requestState is not one this server gave this caller for this tool and input request; call the tool again without it")
	}
	uri, err := c.awaitPage(ctx, ref, state, progress)
	if err == nil {
		r.awaited = uri // the call's own page: Resolve neither waits for it again nor takes it
	}
	return uri, err
}

// awaitPage waits for the upload of the page whose file URI, state, holds
// ref, checked for the caller, and returns state once the file is stored.
func (c *config) awaitPage(ctx context.Context, ref token.FileRef, state string, progress func(received, total int64)) (string, error) {
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
		if err := c.endedMark(ctx, ref.FileID); err != nil {
			return "", err
		}
	}
	poll := time.NewTicker(pagePoll)
	defer poll.Stop()
	deadline := time.NewTimer(max(pageExpires.Sub(c.Now()), 0))
	defer deadline.Stop()
	var reported int64
	marks := 0 // the progress markers read
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
			// What the replica that takes the upload marked (pagemarks.go).
			if err := c.endedMark(ctx, ref.FileID); err != nil {
				if p != nil {
					p.finish(0, err)
				}
				return "", err
			}
			if progress != nil && (p == nil || p.uploading.Load() == 0) {
				var n, limit int64
				var ok bool
				if n, limit, marks, ok = c.progressMarks(ctx, ref.FileID, marks); ok {
					progress(n, limit)
				}
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
		case <-c.pages.down:
			return "", errShuttingDown
		case <-ctx.Done():
			return "", fmt.Errorf("the tool call ended while waiting for the upload page: %w", context.Cause(ctx))
		}
	}
}
