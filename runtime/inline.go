package runtime

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
)

// This file is the runtime's side of the fast path of inline files
// (package inline, used by runtime/serve): AddTool records which
// arguments of a tool take a File, so that the serving code may decode
// their data: URIs from the message and pass the SDK references instead;
// the decoder turns a reference into a File that stands for it, and
// resolveInline, before the handler runs, into the file decoded for it.

// inlineRef is a reference to a file the fast path decoded, and the
// refusal its string gets as a value: what the call gets when it does not
// resolve.
type inlineRef struct {
	ref     string
	refusal error
}

// addInlineTool records the File arguments of the tool name of s, whose
// input schema is schema and plan the plan of its file fields, for the
// fast path. A schema that cannot be read leaves the tool to the SDK.
func addInlineTool(s *mcp.Server, name string, schema json.RawMessage, plan *filePlan) {
	inline.AddTool(s, name, inlineFiles(schema, plan))
}

// inlineFiles returns the fields of the object schema schema, whose plan
// of file fields is plan, that take inline files as File values: those
// the fast path decodes. A schema that cannot be read has none.
func inlineFiles(schema json.RawMessage, plan *filePlan) map[string]*descriptor.Prop {
	d, err := descriptor.For(schema)
	files := map[string]*descriptor.Prop{}
	if err == nil {
		for _, f := range plan.fields {
			if p := d.Props[f.arg]; p != nil && f.file.AllowsInline() {
				files[f.arg] = p
			}
		}
	}
	return files
}

// formFiles caches inlineFiles of each form Elicit was given.
var formFiles sync.Map // schema text → map[string]*descriptor.Prop

// inlineFormFiles is inlineFiles of a form's schema, read once.
func inlineFormFiles(schema json.RawMessage, plan *filePlan) map[string]*descriptor.Prop {
	if v, ok := formFiles.Load(string(schema)); ok {
		return v.(map[string]*descriptor.Prop)
	}
	v, _ := formFiles.LoadOrStore(string(schema), inlineFiles(schema, plan))
	return v.(map[string]*descriptor.Prop)
}

// resolveInline resolves *f, a File that stands for a reference the fast
// path made, sent for argument arg of the call whose context is ctx.
func resolveInline(ctx context.Context, arg string, f *File) error {
	r := f.content.inline
	v, ok := inline.Take(ctx, r.ref, arg)
	if !ok {
		if r.refusal == nil { // a data: URI it is not: never nil
			return &Error{Arg: arg, Rule: RuleScheme, Scheme: inline.Scheme, Reason: "only data: URIs are accepted"}
		}
		return r.refusal
	}
	name := f.Name // a companion filename argument, when there is one, wins
	*f = v.(File)
	if name != "" {
		f.Name = name
	}
	return nil
}
