package transfer

// Upload pages handed over as links (runtime.ElicitUpload's answer to a
// client without URL-mode elicitation): the person opens the page the
// model passed on, and the model calls the tool again. The retry finds
// the page by its key (the same session, or the same principal), or, for
// an anonymous caller whose every request stands alone (2026-07-28 over
// HTTP), through the page's file URI, which the result told the model to
// send back as the value of an upload-capable argument of the tool. That
// URI is the page's state: sealed for its owner and unguessable, as every
// file URI is; resolving it as an argument waits, with progress, for an
// upload still running, and takes the file once: a second call with the
// same URI is refused, on every replica (the store's create-if-absent
// decides), as is a call of another tool (the page named the tool that
// asks, so its file goes to no other). A call refused for its arguments
// before its handler ran gives the file back (GiveBack).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/text"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// isPageFile reports whether the file ID is of an upload page's file.
func isPageFile(id string) bool { return strings.HasPrefix(id, pagePrefix) }

// takenSuffix ends the ID of the marker object that says a page's file
// was taken by a call that named it in an argument.
const takenSuffix = "_taken"

// awaitPageArg waits for the file of the page whose file URI, uri (of
// ref), the argument arg names, when it is not stored yet: at once an
// error when the page is this process's and no upload through it runs,
// else until the upload ends, with progress. The error is written for the
// model.
func (r *resolver) awaitPageArg(ctx context.Context, arg, uri string, ref token.FileRef) error {
	c := r.c
	if p := c.pages.get(ref.FileID); p != nil && !p.isFinished() && p.uploading.Load() == 0 {
		return fmt.Errorf("Argument '%s' names an upload page through which no file has been uploaded yet: ask the person to upload the file through the page's link, then call the tool again with the same value.", arg)
	}
	if _, err := c.awaitPage(ctx, ref, uri, r.progress()); err != nil {
		return fmt.Errorf("Argument '%s' names an upload page whose file did not arrive: %v", arg, err)
	}
	return nil
}

// takePage records, in the store, that a call took the file of the page
// ref names, the stored file m: only the first call does; the others get
// an error written for the model.
func (c *config) takePage(ctx context.Context, arg string, ref token.FileRef, m store.Meta) error {
	w, err := c.Store.Create(ctx, ref.FileID+takenSuffix, store.Meta{
		Size: 0, MediaType: defaultMediaType, Owner: m.Owner, Expires: m.Expires,
	})
	if err == nil {
		defer w.Abort()
		err = w.Commit(ctx)
	}
	switch {
	case errors.Is(err, store.ErrExists):
		return fmt.Errorf("Argument '%s' names an upload page whose file an earlier call took already: a page's file is taken once; ask for the file again (call the tool without it).", arg)
	case err != nil:
		logInternal(c.obs, ctx, "taking an upload page's file", "store create", err)
		return fmt.Errorf("Argument '%s' could not be read: the server's store failed; try again later.", arg)
	}
	return nil
}

// GiveBack deletes the markers of the pages this call took (see
// hook.Resolver): its arguments were refused, and no handler has the
// files.
func (r *resolver) GiveBack(ctx context.Context) {
	for id := range r.took {
		if err := r.c.Store.Delete(context.WithoutCancel(ctx), id+takenSuffix); err != nil && !errors.Is(err, store.ErrNotFound) {
			logInternal(r.c.obs, ctx, "giving back an upload page's file", "store delete", err)
		}
	}
	r.took = nil
}

// progress returns what reports the progress of an upload the call waits
// for, as notifications/progress; nil when the call gave no progress
// token. Progress only grows, as MCP requires.
func (r *resolver) progress() func(received, total int64) {
	notify := r.notify
	if notify == nil && r.progressToken != nil && r.session != nil {
		notify = func(received, total int64) {
			r.session.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{
				ProgressToken: r.progressToken,
				Progress:      float64(received),
				Total:         float64(total),
				Message:       progressMessage,
			})
		}
	}
	if notify == nil {
		return nil
	}
	var last int64 = -1
	return func(received, total int64) {
		if received <= last {
			if received != total {
				return
			}
			received = last + 1 // always one at the end
		}
		last = received
		notify(received, max(total, received))
	}
}

// progressMessage is the message of the notifications/progress of an
// upload a call waits for.
const progressMessage = "file upload: bytes received"

// implName is the name of the server a config serves, learned once.
type implName struct {
	once sync.Once
	name string
}

// serverName returns the name the upload page shows as the server asking:
// the Title of the server's Implementation, or else its Name; "" when it
// cannot be learned. The go-sdk does not export a server's Implementation,
// so it is learned as any client learns it, by initializing a session, in
// memory, once.
func (c *config) serverName(ctx context.Context) string {
	c.name.once.Do(func() {
		if c.server == nil { // a server of another SDK: the adapter tells
			if c.nameOf != nil {
				c.name.name = text.Cut(strings.ToValidUTF8(c.nameOf(), "\uFFFD"), maxPageTool)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := c.server.Connect(ctx, st, nil)
		if err != nil {
			return
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpfile-upload-page", Version: "v1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			return
		}
		defer cs.Close()
		ir := cs.InitializeResult()
		if ir == nil || ir.ServerInfo == nil {
			return
		}
		name := ir.ServerInfo.Title
		if name == "" {
			name = ir.ServerInfo.Name
		}
		c.name.name = text.Cut(strings.ToValidUTF8(name, "\uFFFD"), maxPageTool)
	})
	return c.name.name
}

// Progress returns what reports the progress of an upload the call waits
// for (nil when the call gave no progress token): for an adapter of
// another SDK (runtime/mcpgo), whose upload pages wait through
// hook.Resolver.AwaitPage.
func (r *resolver) Progress() func(received, total int64) { return r.progress() }
