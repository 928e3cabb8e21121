package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/observe"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// resolver resolves the file URIs of one request of a server for the
// runtime (see hook.Resolver).
type resolver struct {
	c       *config
	from    sender             // who sent the request
	session *mcp.ServerSession // the request's, on a go-sdk server (for upload pages); nil when unknown
	reads   *callReads         // the files a tools/call resolved; nil for other requests
	// progressToken is the tools/call's progress token; nil for none.
	progressToken any
	// notify sends a notifications/progress of the call, on a server of
	// another SDK (session nil); nil when the call gave no progress token.
	notify func(received, total int64)
	// tool is the tool called; "" for other requests.
	tool string
	// took holds the file IDs of the pages whose files this call took
	// (named in its arguments or a form's answer): a page named twice is
	// taken once, and GiveBack gives them back.
	took map[string]bool
	// awaited is the file URI of the page AwaitPage last waited for: the
	// call's own page (runtime.ElicitUpload), not one named in an argument.
	awaited string
}

var _ hook.Resolver = (*resolver)(nil)

// Observer is the observer of the resolver's server, for the records of
// package runtime (see hook.ObserverFrom).
func (r *resolver) Observer() *observe.Observer { return r.c.obs.Observer }

// Declare records that the server takes the files of schema.
func (r *resolver) Declare(schema *descriptor.Schema) { r.c.declare(schema) }

// callReads makes r the resolver of a tools/call, which keeps the files it
// reads from expiring (Options.ReadFileTTL) until the function it returns
// is called, at the end of the call.
func (r *resolver) callReads() (end func()) {
	r.reads = new(callReads)
	return func() {
		for _, id := range r.reads.take() {
			r.c.reads.end(r.c, id, r.c.ReadFileTTL)
		}
	}
}

// resolveWording is what the resolution of a file URI in an argument says
// of one that names no file the caller may have, after "Argument … is not
// a valid file URI: ".
var resolveWording = uriWording{
	uriMalformed:  "it is not a file URI this server issued; send the uri that files/authorizeUpload returned, unchanged, or upload the file again",
	uriExpired:    "it has expired; upload the file again (files/authorizeUpload)",
	uriForged:     "this server did not issue it to this caller, or it was altered",
	uriForeign:    "it was issued by another server",
	uriMissing:    "no upload has completed under it (the upload is missing, was refused, or has expired)",
	uriOtherOwner: "this server did not issue it to this caller",
	uriReplaced:   "the file stored under it is not the one it was issued for (its size or SHA-256 differs: it was replaced in the store); upload the file again",
}

// Resolve checks uri for the caller, finds its file in the store and
// checks the file against d: media type and size from the store's record,
// then the first bytes.
func (r *resolver) Resolve(ctx context.Context, extra *mcp.RequestExtra, arg, uri string, d descriptor.File) (hook.Resolved, error) {
	c := r.c
	// fail refuses the URI for reason (the text the model reads), with
	// code, the machine-readable reason of a -32602 refusal.
	fail := func(reason, code string) (hook.Resolved, error) {
		return hook.Resolved{}, &runtime.Error{Arg: arg, Rule: runtime.RuleFileURI, Reason: reason, Code: code}
	}
	internal := func(step string, err error) (hook.Resolved, error) {
		logInternal(c.obs, ctx, "resolving a file URI", step, err)
		return hook.Resolved{}, fmt.Errorf("Argument '%s' could not be read: the server's store failed; try again later.", arg)
	}
	owner, err := c.ownerOf(r.from)
	if err != nil {
		return hook.Resolved{}, fmt.Errorf("Argument '%s' could not be read: the server cannot tell who is asking.", arg)
	}
	ref, m, le := c.lookup(ctx, uri, owner)
	pageArg := le == nil || le.problem == uriMissing
	pageArg = pageArg && isPageFile(ref.FileID) && uri != r.awaited // an argument names a page
	if pageArg && !pageOfTool(ref.FileID, r.tool) {
		// The page told the person which tool asks: its file goes to no other.
		return fail("it names an upload page that another tool of this server asked for; a page's file goes only to the tool that asked for it", ReasonUnauthorized)
	}
	if pageArg && le != nil {
		if err := r.awaitPageArg(ctx, arg, uri, ref); err != nil {
			return hook.Resolved{}, err
		}
		ref, m, le = c.lookup(ctx, uri, owner)
	}
	switch {
	case le != nil && le.problem == uriStoreFailed:
		return internal("store stat", le.err)
	case le != nil:
		return fail(le.text(&resolveWording), le.reason())
	}

	mt, params, ok := parseMediaType(m.MediaType)
	if !ok { // a store written by another path (a presigned upload) may hold anything
		mt, params = strings.ToLower(strings.TrimSpace(strings.Split(m.MediaType, ";")[0])), nil
		if !strings.Contains(mt, "/") || strings.Contains(mt, "*") {
			mt = defaultMediaType
		}
	}
	charset := strings.ToLower(params["charset"])
	// Media type and size first, from the store's record: nothing is read
	// of a file the argument refuses anyway.
	nosniff := d
	nosniff.NoSniff = true
	if err := hook.CheckFile(arg, nosniff, mt, charset, m.Size, nil); err != nil {
		return hook.Resolved{}, err
	}
	if !d.NoSniff && m.Size > 0 {
		head := make([]byte, min(m.Size, content.SniffLen))
		rd, err := c.Store.Open(ctx, ref.FileID)
		if err == nil {
			_, err = io.ReadFull(rd, head)
			rd.Close()
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			return fail(resolveWording[uriMissing], reasons[uriMissing])
		case err != nil:
			return internal("store read", err)
		}
		if err := hook.CheckFile(arg, d, mt, charset, m.Size, head); err != nil {
			return hook.Resolved{}, err
		}
	}
	if len(params) == 0 {
		params = nil
	}
	if pageArg && !r.took[ref.FileID] {
		if err := c.takePage(ctx, arg, ref, m); err != nil {
			return hook.Resolved{}, err
		}
		if r.took == nil {
			r.took = map[string]bool{}
		}
		r.took[ref.FileID] = true
	}
	st, id, size := c.Store, ref.FileID, m.Size
	if r.reads != nil && c.ReadFileTTL > 0 {
		c.reads.begin(id)
		r.reads.add(id)
	}
	return hook.Resolved{
		MediaType: mt,
		Params:    params,
		Name:      runtime.SanitizeName(m.Name),
		Size:      m.Size,
		Open: func() (hook.Reader, error) {
			rd, err := st.Open(context.Background(), id)
			if err == nil && rd.Size() != size {
				// Replaced since it was checked: not the file the handler was given.
				got := rd.Size()
				rd.Close()
				return nil, fmt.Errorf("argument '%s': the stored file changed after it was checked (%d bytes, want %d)", arg, got, size)
			}
			return rd, err
		},
		Release: func(ctx context.Context) error { return c.release(ctx, id) },
	}, nil
}
