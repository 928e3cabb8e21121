// Package schema builds each selected type's input schema: the object
// schema the MCP Go SDK would infer for it (google/jsonschema-go's
// jsonschema.For), with the file fields described by the x-mcp-file keyword
// (or, for a field with a form, by the host's object and x-mcpfile-form)
// and doc comments as descriptions.
//
// The schema is built as github.com/invopop/jsonschema values and marshalled
// compactly. Two representation choices follow from invopop's model:
// a nullable type ("type": ["null", "T"]) is carried in Schema.Extras, since
// Schema.Type is a single string, and so it is marshalled after the other
// keywords; an empty schema (for an interface type) marshals as true, which
// is also what jsonschema-go writes for it.
package schema

import (
	"fmt"

	"github.com/invopop/jsonschema"

	"github.com/mcpfile/mcpfile/gen/internal/infer"
	"github.com/mcpfile/mcpfile/gen/internal/par"
	"github.com/mcpfile/mcpfile/gen/model"
	"github.com/mcpfile/mcpfile/gen/tag"
)

// Keyword is the JSON Schema keyword that marks a file argument.
const Keyword = "x-mcp-file"

// descriptor is the value of the keyword, in the SEP's member order
// (SEP-2631's FileInputDescriptor: accept, maxSize, transferModes).
type descriptor struct {
	Accept        []string `json:"accept,omitempty"`
	MaxSize       int64    `json:"maxSize,omitempty"`
	TransferModes []string `json:"transferModes,omitempty"`
}

// FormKeyword is the vendor keyword that carries the form and constraints
// of a file field with a form (tag form=): its property is the host's
// object, not a URI string, and SEP-2356 allows x-mcp-file only on those.
const FormKeyword = "x-mcpfile-form"

// formDescriptor is the value of FormKeyword: the form, then the
// constraints in x-mcp-file's order.
type formDescriptor struct {
	Form    string   `json:"form"`
	Accept  []string `json:"accept,omitempty"`
	MaxSize int64    `json:"maxSize,omitempty"`
}

// Apply fills Schema and Flat of every type of p. Build has validated the
// types; an error here is a bug in the generator.
// The types are done in parallel, each schema written as soon as it is
// built, so that only those being built are held at once.
func Apply(p *model.Package) error {
	return par.Each(len(p.Types), func(i int) error {
		t := p.Types[i]
		s, err := Build(p, t)
		if err != nil {
			return fmt.Errorf("internal error: building the schema of %s: %v", t.Name, err)
		}
		b, err := marshal(s)
		if err != nil {
			return fmt.Errorf("internal error: marshalling the schema of %s: %v", t.Name, err)
		}
		t.Schema = b
		t.Flat = flat(t, s)
		return nil
	})
}

// Build returns the schema of t, a type of p: the schema the SDK's
// inference gives it (model.Package.InferSchema), with each file field's
// property its File schema and the type's doc comment as its description.
func Build(p *model.Package, t *model.Type) (*jsonschema.Schema, error) {
	var bad *model.Field
	s, err := p.InferSchema(t, func(f *model.Field) *jsonschema.Schema {
		if f.File == nil {
			bad = f
			return &jsonschema.Schema{}
		}
		return File(f)
	})
	switch {
	case bad != nil:
		return nil, fmt.Errorf("field %s of %s has an mcpfile tag or holds files but is no file field", bad.GoName, t.Name)
	case err != nil:
		return nil, err
	}
	s.Description = t.Doc
	return s, nil
}

// File returns the schema of a file field: the SEP's
// {"type":"string","format":"uri","x-mcp-file":{…}}, or for a slice an array
// whose items are that, x-mcp-file and all. It is never nullable: a pointer
// or omitempty file field is simply not required.
//
// A field with a form is described by the form's object instead
// (formObject), in the same places.
func File(f *model.Field) *jsonschema.Schema {
	var item *jsonschema.Schema
	if f.File.Form != "" {
		item = formObject(f.File)
	} else {
		item = &jsonschema.Schema{
			Type:   "string",
			Format: "uri",
			Extras: map[string]any{Keyword: descriptor{Accept: f.File.Accept, MaxSize: f.File.MaxSize, TransferModes: f.File.TransferModes}},
		}
	}
	if !f.File.Kind.Slice() {
		item.Description = f.Description
		return item
	}
	arr := &jsonschema.Schema{Type: "array", Items: item, Description: f.Description}
	if f.File.MaxFiles > 0 {
		n := uint64(f.File.MaxFiles)
		arr.MaxItems = &n
	}
	if f.File.MinFiles > 0 {
		n := uint64(f.File.MinFiles)
		arr.MinItems = &n
	}
	return arr
}

// formObject returns the schema of the object a host sends a file of form
// f.Form as, with the form and f's constraints in FormKeyword:
//
//   - filedata, Odeus's FileData, for a property with "format": "file":
//     {fileName, mimeType, base64, size?, lastModified?}
//   - openai, what ChatGPT sends for a field of _meta["openai/fileParams"]:
//     {download_url, file_id, mime_type?, file_name?}
//
// The required members are those the host always sends. A FileData object
// has no other member (the runtime refuses one, as it refuses a member
// given twice); a ChatGPT file object may have others: its host adds some.
func formObject(f *model.File) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:       "object",
		Properties: jsonschema.NewProperties(),
		Extras:     map[string]any{FormKeyword: formDescriptor{Form: f.Form, Accept: f.Accept, MaxSize: f.MaxSize}},
	}
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	switch f.Form {
	case tag.FormFileData:
		s.Format = "file"
		s.Properties.Set("fileName", str())
		s.Properties.Set("mimeType", str())
		s.Properties.Set("base64", str())
		s.Properties.Set("size", &jsonschema.Schema{Type: "integer", Minimum: "0"})
		s.Properties.Set("lastModified", str())
		s.Required = []string{"fileName", "mimeType", "base64"}
		s.AdditionalProperties = jsonschema.FalseSchema
	case tag.FormOpenAI:
		s.Properties.Set("download_url", str())
		s.Properties.Set("file_id", str())
		s.Properties.Set("mime_type", str())
		s.Properties.Set("file_name", str())
		s.Required = []string{"download_url", "file_id"}
	}
	return s
}

// flat reports whether every property of s is one elicitation's
// requestedSchema allows: a primitive (string, number, integer, boolean) or
// a single file as a URI string (not as a form's object).
func flat(t *model.Type, s *jsonschema.Schema) bool {
	files := map[string]bool{}
	for _, f := range t.Fields {
		// A form's object is no primitive: elicitation has no place for it.
		if f.File != nil && !f.File.Kind.Slice() && f.File.Form == "" {
			files[f.JSONName] = true
		}
	}
	if s.Properties == nil {
		return true
	}
	for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
		if files[pair.Key] {
			continue
		}
		p := pair.Value
		ts := infer.Types(p)
		if len(ts) != 1 || p.Properties != nil || p.Items != nil || p.Format != "" {
			return false
		}
		switch ts[0] {
		case "string", "number", "integer", "boolean":
		default:
			return false
		}
	}
	return true
}
