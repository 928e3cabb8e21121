package runtime_test

// The types the tests register and elicit. All but one are declared in
// runtime/internal/testtypes with the code mcpfilegen generates for them.

import (
	"encoding/json"

	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/mcpfileimpl"
)

type (
	imageArgs  = testtypes.ImageArgs
	docsArgs   = testtypes.DocsArgs
	bigArgs    = testtypes.BigArgs
	photoForm  = testtypes.PhotoForm
	nestedForm = testtypes.NestedForm
)

var (
	imageSchema = imageArgs{}.MCPSchema()
	docsSchema  = docsArgs{}.MCPSchema()
	bigSchema   = bigArgs{}.MCPSchema()
	photoSchema = photoForm{}.MCPSchema()
)

// defaultsArgs is written by hand: its schema has a default, which
// mcpfilegen never emits (nor does the SDK's inference), but a server may
// write MCPSchema itself, and runtime.AddTool must then apply defaults as
// mcp.AddTool does.
type defaultsArgs struct {
	Note  *string `json:"note,omitempty"`
	Level int     `json:"level,omitempty"`
}

var defaultsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"note":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain"]}},` +
	`"level":{"type":"integer","default":3}},"additionalProperties":false}`)

func (defaultsArgs) MCPSchema() json.RawMessage { return defaultsSchema }

var defaultsObject = mcpfileimpl.NewObject(string(defaultsSchema), []string{"note", "level"}, []string{"note"})

type plainDefaultsArgs defaultsArgs

func (t *defaultsArgs) UnmarshalJSON(b []byte) error {
	return defaultsObject.Unmarshal(b, (*plainDefaultsArgs)(t), mcpfileimpl.Into(&t.Note))
}
