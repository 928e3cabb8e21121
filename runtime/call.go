package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/observe"
	"github.com/mcpfile/mcpfile/runtime/internal/toolcall"
)

// This file is the part of a tool call that no SDK is in: AddTool calls
// it for a go-sdk server, and the mcp-go adapter (runtime/mcpgo) through
// package toolcall, so that a server on either SDK checks the same way and
// answers with the same texts.

func init() {
	toolcall.New = func(t reflect.Type, schema json.RawMessage, tool string) (*toolcall.Args, error) {
		a, err := newToolArgs(t, schema)
		if err != nil {
			return nil, err
		}
		decode := func(ctx context.Context, ft *fetch.Fetcher, args json.RawMessage, dst any) error {
			err := a.decode(ctx, ft, args, dst)
			if err != nil {
				// Recorded as runtime.AddTool records it: to the observer of
				// the server's transfer layer when it serves files, else to
				// the default one.
				recordRefusal(ctx, hook.ObserverFrom(ctx), observe.OpToolCall, tool, err)
				if r, _ := hook.ResolverFrom(ctx); r != nil {
					r.GiveBack(ctx) // no handler saw what was resolved
				}
			}
			return err
		}
		bind := func(ctx context.Context) context.Context { return context.WithValue(ctx, toolPlanKey{}, a.plan) }
		return &toolcall.Args{Decode: decode, OpenAIFields: a.plan.openAIFields(), UploadsOnly: a.plan.uploadsOnly(), Bind: bind}, nil
	}
	toolcall.NewUpload = func(t reflect.Type, schema json.RawMessage) (*toolcall.Upload, error) {
		pf, err := uploadFieldOf(t, schema)
		if err != nil {
			return nil, err
		}
		return &toolcall.Upload{
			File: pf.file,
			Accept: func(ctx context.Context, r hook.Resolver, uri string, dst any) error {
				return acceptUpload(ctx, r, nil, pf, uri, reflect.ValueOf(dst).Elem())
			},
			Arg: argOfTool,
			Link: func(tool, message, arg string, list bool, p hook.Page) string {
				return linkText(tool, message, arg, list, pf.file, p)
			},
		}, nil
	}
	toolcall.PageLinkName, toolcall.PageLinkTitle, toolcall.PageLinkDescription = pageLinkName, pageLinkTitle, pageLinkDescription
	toolcall.NewForm = func(t reflect.Type, schema json.RawMessage) (*toolcall.Form, error) {
		f := formFor(schema)
		if f.err != nil {
			return nil, f.err
		}
		plan, err := planFor(t, schema)
		if err != nil {
			return nil, fmt.Errorf("has a schema that cannot be used: %v", err)
		}
		answer := func(ctx context.Context, q toolcall.Question, try int, action string, content any, dst any) (string, string, error) {
			e := elicitation{form: f.checker, plan: plan, check: q.Check, message: q.Message, maxTries: q.MaxTries}
			done, again, err := e.answer(ctx, action, content, try, dst)
			return string(done), again, err
		}
		return &toolcall.Form{Desc: f.desc, UploadsOnly: plan.uploadsOnly(), Answer: answer}, nil
	}
}

// toolArgs checks and decodes the arguments of one generated input type.
type toolArgs struct {
	in   *argsChecker
	plan *filePlan
}

// newToolArgs prepares the arguments of type t, whose generated object
// schema is schema.
func newToolArgs(t reflect.Type, schema json.RawMessage) (*toolArgs, error) {
	in, err := newArgsChecker("arguments", schema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	plan, err := planFor(t, schema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return &toolArgs{in: in, plan: plan}, nil
}

// decode checks args against the schema, decodes them into dst, a pointer
// to a value of the type, and resolves its files: uploaded ones through
// the resolver in ctx, a host's through ft. Its error is the text the
// model reads.
func (a *toolArgs) decode(ctx context.Context, ft *fetch.Fetcher, args json.RawMessage, dst any) error {
	if err := a.in.decode(args, dst); err != nil {
		return err
	}
	return safeError(a.plan.resolve(ctx, ft, reflect.ValueOf(dst)))
}
