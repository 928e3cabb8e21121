// Package toolcall is where an SDK adapter outside package runtime (the
// mcp-go adapter, runtime/mcpgo, a module of its own) does with a call's
// arguments what runtime.AddTool does for a go-sdk server, with the same
// code: the check against the generated schema, the generated decoder, the
// resolution of the files a host names by URL, and the texts the model
// reads. None of it depends on an SDK; runtime keeps it unexported, so that
// a server author's API stays runtime.AddTool, and sets [New] when it is
// initialised. The adapter imports runtime (for File and Generated), so it
// always has.
package toolcall

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/mcpfile/mcpfile/runtime/fetch"
)

// Args is what a tool call does with the arguments of one generated input
// type.
type Args struct {
	// Decode checks args, the call's arguments, against the input schema,
	// decodes them into dst (a pointer to a value of the type) with its
	// generated decoder, and fetches with ft the files a host named by URL
	// (nil ft: the server fetches nothing, and says so). Its error is the
	// text the model reads, as runtime.AddTool answers it: never file
	// bytes.
	Decode func(ctx context.Context, ft *fetch.Fetcher, args json.RawMessage, dst any) error

	// OpenAIFields are the top-level arguments that take ChatGPT file
	// objects (mcpfile tag form=openai), for the tool's
	// _meta["openai/fileParams"]; nil for none.
	OpenAIFields []string

	// UploadsOnly are the arguments that take uploaded files only
	// (mcpfile tag transfer=upload); nil for none.
	UploadsOnly []string
}

// New returns the Args of the type t, whose generated object schema is
// schema. It is an error when the schema cannot be used. Package runtime
// sets it.
var New func(t reflect.Type, schema json.RawMessage) (*Args, error)
