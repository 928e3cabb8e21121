package runtime

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// checkFlat reports why the object schema b cannot be an elicitation form:
// MCP forms are flat objects of primitive properties (string, number,
// integer, boolean, and arrays of enumerated strings), the rule the go-sdk
// client and server check in validateElicitSchema. Each file is one string
// property; arrays of files are not possible in a form.
func checkFlat(b json.RawMessage) error {
	type items struct {
		Type  string            `json:"type"`
		Enum  []json.RawMessage `json:"enum"`
		AnyOf []json.RawMessage `json:"anyOf"`
	}
	type prop struct {
		Type       json.RawMessage            `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      *items                     `json:"items"`
	}
	var s struct {
		Type       json.RawMessage `json:"type"`
		Properties map[string]prop `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	files, err := descriptor.For(b)
	if err != nil {
		return err
	}
	if string(s.Type) != `"object"` {
		return fmt.Errorf("a form must have type \"object\", not %s", s.Type)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := s.Properties[name]
		if len(p.Properties) > 0 {
			return fmt.Errorf("property %q has nested properties; a form is flat", name)
		}
		var typ string
		if json.Unmarshal(p.Type, &typ) != nil {
			return fmt.Errorf("property %q must have a single type (a form has no null or union types), not %s", name, p.Type)
		}
		switch typ {
		case "string", "number", "integer", "boolean":
		case "array":
			if f := files.Props[name]; f != nil && f.Kind == descriptor.Array {
				return fmt.Errorf("property %q is an array of files; a form takes one file per field", name)
			}
			if p.Items == nil || (p.Items.Type == "string" && p.Items.Enum == nil) || (p.Items.Type == "" && p.Items.AnyOf == nil) ||
				(p.Items.Type != "string" && p.Items.Type != "") {
				return fmt.Errorf("property %q is an array; a form allows arrays of enumerated strings only", name)
			}
		default:
			return fmt.Errorf("property %q has type %q; a form allows string, number, integer, boolean", name, typ)
		}
	}
	return nil
}
