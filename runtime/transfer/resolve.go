package transfer

import (
	"context"
	"errors"
	"io"
	"mime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/mcpfileimpl"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// resolver resolves the file URIs of one server's requests for the
// runtime (see hook.Resolver).
type resolver struct{ c *config }

var _ hook.Resolver = (*resolver)(nil)

// Declare records that the server takes the files of schema.
func (r *resolver) Declare(schema *descriptor.Schema) { hook.AddSchema(r.c.server, schema) }

// Resolve checks uri for the caller, finds its file in the store and
// checks the file against d: media type, size, first bytes.
func (r *resolver) Resolve(ctx context.Context, extra *mcp.RequestExtra, arg, uri string, d descriptor.File) (hook.Resolved, error) {
	c := r.c
	fail := func(reason string) (hook.Resolved, error) {
		return hook.Resolved{}, &runtime.Error{Arg: arg, Rule: runtime.RuleFileURI, Reason: reason}
	}
	ref, err := c.Keys.ParseFileURI(uri, c.owner(extra), c.Now())
	switch {
	case errors.Is(err, token.ErrMalformed):
		var te *token.Error
		errors.As(err, &te)
		return fail("it is malformed (" + te.Reason + "); send the uri that files/authorizeUpload returned, unchanged")
	case errors.Is(err, token.ErrExpired):
		return fail("it has expired; upload the file again (files/authorizeUpload)")
	case err != nil: // unknown key, bad signature: altered, another server's, or another caller's
		return fail("this server did not issue it to this caller, or it was altered")
	case ref.Host != c.Host:
		return fail("it was issued by another server (host " + quoteShort(ref.Host) + ")")
	}
	m, err := c.Store.Stat(ctx, ref.FileID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fail("no upload has completed under it (the upload is missing, was refused, or has expired)")
	case err != nil:
		c.ErrorLog.Printf("transfer: resolving a file URI: store stat: %v", err)
		return hook.Resolved{}, errors.New("the server could not read its store; try again later")
	case m.Owner != ref.Owner:
		return fail("this server did not issue it to this caller")
	}

	mt, params, err := mime.ParseMediaType(m.MediaType)
	if err != nil {
		mt, _, _ = strings.Cut(m.MediaType, ";")
		mt, params = strings.ToLower(strings.TrimSpace(mt)), nil
	}
	var head []byte
	if !d.NoSniff && m.Size > 0 {
		head = make([]byte, min(m.Size, content.SniffLen))
		rd, err := c.Store.Open(ctx, ref.FileID)
		if err == nil {
			_, err = io.ReadFull(rd, head)
			rd.Close()
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			return fail("no upload has completed under it (the upload is missing, was refused, or has expired)")
		case err != nil:
			c.ErrorLog.Printf("transfer: resolving a file URI: store read: %v", err)
			return hook.Resolved{}, errors.New("the server could not read its store; try again later")
		}
	}
	if err := mcpfileimpl.CheckStored(arg, d, mt, strings.ToLower(params["charset"]), m.Size, head); err != nil {
		return hook.Resolved{}, err
	}
	if len(params) == 0 {
		params = nil
	}
	st, id := c.Store, ref.FileID
	return hook.Resolved{
		MediaType: mt,
		Params:    params,
		Name:      runtime.SanitizeName(m.Name),
		Size:      m.Size,
		Open: func() (hook.Reader, error) {
			return st.Open(context.Background(), id)
		},
	}, nil
}
