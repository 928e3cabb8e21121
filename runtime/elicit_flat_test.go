package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckFlat(t *testing.T) {
	for _, tt := range []struct {
		schema string
		err    string // "" when flat
	}{
		{`{"type":"object","properties":{"photo":{"type":"string","format":"uri","x-mcp-file":{}},"n":{"type":"integer"},"ok":{"type":"boolean"}}}`, ""},
		{`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`, ""},
		{`{"type":"object"}`, ""},
		{`{"type":"array"}`, `a form must have type "object"`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"}}}}}`, `property "o" has nested properties`},
		{`{"type":"object","properties":{"fs":{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{}}}}}`, `property "fs" is an array of files`},
		{`{"type":"object","properties":{"ss":{"type":["null","array"],"items":{"type":"string"}}}}`, `property "ss" must have a single type`},
		{`{"type":"object","properties":{"ss":{"type":"array","items":{"type":"string"}}}}`, `arrays of enumerated strings only`},
		{`{"type":"object","properties":{"p":{"type":["null","string"],"format":"uri","x-mcp-file":{}}}}`, `property "p" must have a single type`},
		{`{"type":"object","properties":{"m":{"type":"object"}}}`, `property "m" has type "object"`},
	} {
		err := checkFlat(json.RawMessage(tt.schema))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("checkFlat(%s) = %v, want %q", tt.schema, err, tt.err)
		}
	}
}

func TestFormElicitation(t *testing.T) {
	caps := func(e *mcp.ElicitationCapabilities) *mcp.InitializeParams {
		return &mcp.InitializeParams{Capabilities: &mcp.ClientCapabilities{Elicitation: e}}
	}
	for _, tt := range []struct {
		name string
		ip   *mcp.InitializeParams
		want bool
	}{
		{"not initialized", nil, false},
		{"no capabilities", &mcp.InitializeParams{}, false},
		{"no elicitation", caps(nil), false},
		{"elicitation {} (before 2025-11-25: forms)", caps(&mcp.ElicitationCapabilities{}), true},
		{"form", caps(&mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}), true},
		{"url only", caps(&mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}), false},
		{"form and url", caps(&mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}), true},
	} {
		if got := formElicitation(tt.ip); got != tt.want {
			t.Errorf("%s: formElicitation = %v, want %v", tt.name, got, tt.want)
		}
	}
}
