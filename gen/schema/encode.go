package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/invopop/jsonschema"
)

// marshal returns s as compact JSON, the bytes invopop's MarshalJSON gives
// (TestMarshal), for the keywords schema inference and File set. Anything
// else is an error, never left out.
//
// invopop's MarshalJSON is what a run of mcpfilegen spent most on after
// formatting: for every nested schema it compares the whole struct with an
// empty one by reflection, marshals its sixty fields with encoding/json, and
// has encoding/json compact the result again at each level up. This writes
// each keyword once, in invopop's order: its struct's field order, then
// Extras by key.
func marshal(s *jsonschema.Schema) ([]byte, error) {
	return appendSchema(make([]byte, 0, 1024), s)
}

func appendSchema(b []byte, s *jsonschema.Schema) ([]byte, error) {
	switch s {
	case jsonschema.TrueSchema:
		return append(b, "true"...), nil
	case jsonschema.FalseSchema:
		return append(b, "false"...), nil
	}
	if u := unsupported(s); u != "" {
		return nil, fmt.Errorf("cannot marshal keyword %s", u)
	}
	if s.Items == nil && s.Properties == nil && s.AdditionalProperties == nil && s.Type == "" &&
		s.Maximum == "" && s.Minimum == "" && s.MaxItems == nil && s.MinItems == nil && s.Required == nil &&
		s.Format == "" && s.Description == "" && s.Extras == nil {
		return append(b, "true"...), nil // an empty schema, as invopop writes it
	}
	b = append(b, '{')
	var err error
	if s.Items != nil {
		b = append(b, `"items":`...)
		if b, err = appendSchema(b, s.Items); err != nil {
			return nil, err
		}
		b = append(b, ',')
	}
	if s.Properties != nil {
		b = append(b, `"properties":{`...)
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			b = append(appendString(b, p.Key), ':')
			if b, err = appendSchema(b, p.Value); err != nil {
				return nil, err
			}
			b = append(b, ',')
		}
		b = closeObject(b)
		b = append(b, ',')
	}
	if s.AdditionalProperties != nil {
		b = append(b, `"additionalProperties":`...)
		if b, err = appendSchema(b, s.AdditionalProperties); err != nil {
			return nil, err
		}
		b = append(b, ',')
	}
	if s.Type != "" {
		b = append(appendString(append(b, `"type":`...), s.Type), ',')
	}
	if s.Maximum != "" {
		b = append(append(append(b, `"maximum":`...), s.Maximum...), ',')
	}
	if s.Minimum != "" {
		b = append(append(append(b, `"minimum":`...), s.Minimum...), ',')
	}
	if s.MaxItems != nil {
		b = append(strconv.AppendUint(append(b, `"maxItems":`...), *s.MaxItems, 10), ',')
	}
	if s.MinItems != nil {
		b = append(strconv.AppendUint(append(b, `"minItems":`...), *s.MinItems, 10), ',')
	}
	if len(s.Required) > 0 {
		b = append(appendStrings(append(b, `"required":`...), s.Required), ',')
	}
	if s.Format != "" {
		b = append(appendString(append(b, `"format":`...), s.Format), ',')
	}
	if s.Description != "" {
		b = append(appendString(append(b, `"description":`...), s.Description), ',')
	}
	keys := make([]string, 0, len(s.Extras))
	for k := range s.Extras {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(appendString(b, k), ':')
		if b, err = appendExtra(b, s.Extras[k]); err != nil {
			return nil, fmt.Errorf("keyword %s: %v", k, err)
		}
		b = append(b, ',')
	}
	return closeObject(b), nil
}

// closeObject replaces the comma after an object's last member by the
// closing brace, or closes an empty object.
func closeObject(b []byte) []byte {
	if b[len(b)-1] == ',' {
		b[len(b)-1] = '}'
		return b
	}
	return append(b, '}')
}

// appendExtra appends the value of an Extras keyword: a list of types, a
// file's descriptor or form descriptor (their members in the struct's
// order, as encoding/json writes them), or any other value as encoding/json
// writes it.
func appendExtra(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case []string:
		return appendStrings(b, v), nil
	case descriptor:
		b = append(b, '{')
		if len(v.Accept) > 0 {
			b = append(appendStrings(append(b, `"accept":`...), v.Accept), ',')
		}
		if v.MaxSize != 0 {
			b = append(strconv.AppendInt(append(b, `"maxSize":`...), v.MaxSize, 10), ',')
		}
		if len(v.TransferModes) > 0 {
			b = append(appendStrings(append(b, `"transferModes":`...), v.TransferModes), ',')
		}
		return closeObject(b), nil
	case formDescriptor:
		b = appendString(append(b, `{"form":`...), v.Form)
		if len(v.Accept) > 0 {
			b = appendStrings(append(b, `,"accept":`...), v.Accept)
		}
		if v.MaxSize != 0 {
			b = strconv.AppendInt(append(b, `,"maxSize":`...), v.MaxSize, 10)
		}
		return append(b, '}'), nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString appends s as encoding/json quotes it, HTML characters
// escaped: as is when it has nothing to escape, else by encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s) // a string always marshals
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// unsupported names a keyword of s that marshal does not write, or is "".
// Schema inference and File set none of them; this keeps a change there
// from being dropped silently.
func unsupported(s *jsonschema.Schema) string {
	switch {
	case s.Version != "", s.ID != "", s.Anchor != "", s.Ref != "", s.DynamicRef != "", s.Definitions != nil, s.Comments != "":
		return "$schema, $id, $anchor, $ref, $dynamicRef, $defs or $comment"
	case s.AllOf != nil, s.AnyOf != nil, s.OneOf != nil, s.Not != nil:
		return "allOf, anyOf, oneOf or not"
	case s.If != nil, s.Then != nil, s.Else != nil, s.DependentSchemas != nil:
		return "if, then, else or dependentSchemas"
	case s.PrefixItems != nil, s.Contains != nil, s.PatternProperties != nil, s.PropertyNames != nil:
		return "prefixItems, contains, patternProperties or propertyNames"
	case s.Enum != nil, s.Const != nil, s.MultipleOf != "", s.ExclusiveMaximum != "", s.ExclusiveMinimum != "":
		return "enum, const, multipleOf, exclusiveMaximum or exclusiveMinimum"
	case s.MaxLength != nil, s.MinLength != nil, s.Pattern != "", s.UniqueItems, s.MaxContains != nil, s.MinContains != nil:
		return "maxLength, minLength, pattern, uniqueItems, maxContains or minContains"
	case s.MaxProperties != nil, s.MinProperties != nil, s.DependentRequired != nil:
		return "maxProperties, minProperties or dependentRequired"
	case s.ContentEncoding != "", s.ContentMediaType != "", s.ContentSchema != nil:
		return "contentEncoding, contentMediaType or contentSchema"
	case s.Title != "", s.Default != nil, s.Deprecated, s.ReadOnly, s.WriteOnly, s.Examples != nil:
		return "title, default, deprecated, readOnly, writeOnly or examples"
	}
	return ""
}
