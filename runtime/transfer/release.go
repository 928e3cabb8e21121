package transfer

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// The end of a stored file's life that a handler decides: the release of
// an uploaded file it has read (runtime.File.Release, through
// hook.Resolved.Release) or of a file it saved ([Release]).

// Release deletes the stored file uri, of the caller of the request ctx
// belongs to, from the server's store: a file a handler saved with [Save]
// and no longer means to offer, or an uploaded file it has consumed by its
// URI. Its bytes stop counting against the caller's quota at once, and the
// URI then resolves as one no upload has completed under. Call it from a
// handler of a server set up with [Register] (or runtime/mcpgo's ServeFiles). Releasing a file that is
// gone already (released before, or expired) is not an error; a URI that
// is not one this server issued to the caller is, and nothing is deleted:
// a caller can release its own files only. (An uploaded file a handler
// holds as a runtime.File is released with its Release method.)
func Release(ctx context.Context, uri string) error {
	r, _ := hook.ResolverFrom(ctx)
	res, ok := r.(*resolver)
	if !ok {
		return errors.New("transfer.Release: the request's server does not serve files: call transfer.Register (mcpgo.ServeFiles on mcp-go) for it")
	}
	c := res.c
	owner, err := c.ownerOf(res.from)
	if err != nil {
		return fmt.Errorf("transfer.Release: %w", err)
	}
	ref, _, le := c.lookup(ctx, uri, owner)
	switch {
	case le == nil:
	case le.problem == uriMissing, le.problem == uriExpired:
		return nil // gone already
	case le.problem == uriStoreFailed:
		return fmt.Errorf("transfer.Release: the store: %w", le.err)
	default:
		return fmt.Errorf("transfer.Release: the uri is not a file URI this server issued to this caller (%s)", le.reason())
	}
	if err := c.release(ctx, ref.FileID); err != nil {
		return fmt.Errorf("transfer.Release: %w", err)
	}
	return nil
}

// release deletes the stored file id: its bytes stop counting against its
// owner's quota at once. A file gone already is not an error.
func (c *config) release(ctx context.Context, id string) error {
	c.reads.forget(id)
	return c.Store.Delete(ctx, id)
}
