package conform

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// A field is a tool argument whose schema carries x-mcp-file, read as
// SEP-2356 §1 describes it.
type field struct {
	tool, name string
	// array: the property is an array whose items carry the keyword.
	array              bool
	minItems, maxItems int // maxItems -1: none
	accept             []string
	hasAccept          bool
	maxSize            int64 // -1: none
	modes              []string
	required           bool
	// problems are what is wrong with the keyword's shape; a field with
	// any is not called (clients ignore a malformed keyword).
	problems []string
}

func (f field) String() string { return f.tool + "." + f.name }

// inline reports whether the field takes data: URIs: no transferModes, or
// transferModes naming "inline".
func (f field) inline() bool {
	if f.modes == nil {
		return true
	}
	for _, m := range f.modes {
		if m == "inline" {
			return true
		}
	}
	return false
}

// A tool is a tool with file arguments: its fields, and the schemas of its
// other required arguments, which each call fills.
type tool struct {
	name     string
	fields   []field
	required map[string]json.RawMessage // required non-file properties' schemas
}

// readTools finds the file fields of each tool's input schema, in tool and
// property order.
func readTools(schemas map[string]json.RawMessage) ([]tool, error) {
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	var tools []tool
	for _, n := range names {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(schemas[n], &s); err != nil {
			return nil, fmt.Errorf("tool %q: input schema: %v", n, err)
		}
		t := tool{name: n, required: map[string]json.RawMessage{}}
		req := map[string]bool{}
		for _, r := range s.Required {
			req[r] = true
		}
		props := make([]string, 0, len(s.Properties))
		for p := range s.Properties {
			props = append(props, p)
		}
		sort.Strings(props)
		for _, p := range props {
			f, ok := readField(n, p, s.Properties[p])
			if !ok {
				if req[p] {
					t.required[p] = s.Properties[p]
				}
				continue
			}
			f.required = req[p]
			t.fields = append(t.fields, f)
		}
		if len(t.fields) > 0 {
			tools = append(tools, t)
		}
	}
	return tools, nil
}

// readField reads one property: ok is false when neither it nor its items
// carry x-mcp-file.
func readField(tool, name string, raw json.RawMessage) (field, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(raw, &p) != nil {
		return field{}, false
	}
	f := field{tool: tool, name: name, maxSize: -1, maxItems: -1}
	kw, onProp := p["x-mcp-file"]
	var items map[string]json.RawMessage
	if it, ok := p["items"]; ok {
		json.Unmarshal(it, &items)
	}
	itemKW, onItems := items["x-mcp-file"]
	switch {
	case onProp && onItems:
		f.problems = append(f.problems, "x-mcp-file is on both the array and its items")
		f.array = true
		readShape(&f, items, itemKW)
	case onItems:
		f.array = true
		if !hasType(p, "array") {
			f.problems = append(f.problems, "items carry x-mcp-file but the property is not of type array")
		}
		readShape(&f, items, itemKW)
		f.minItems = intMember(p, "minItems", 0)
		f.maxItems = intMember(p, "maxItems", -1)
	case onProp && hasType(p, "array"):
		f.problems = append(f.problems, "x-mcp-file is on the array, not on its items")
	case onProp:
		readShape(&f, p, kw)
	default:
		return field{}, false
	}
	return f, true
}

// readShape checks that the schema s carrying keyword kw is
// {"type":"string","format":"uri"} and reads the keyword's members.
func readShape(f *field, s map[string]json.RawMessage, kw json.RawMessage) {
	if !hasType(s, "string") {
		f.problems = append(f.problems, `the schema carrying x-mcp-file is not of "type": "string"`)
	}
	var format string
	if json.Unmarshal(s["format"], &format) != nil || format != "uri" {
		f.problems = append(f.problems, `the schema carrying x-mcp-file has no "format": "uri"`)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(kw, &m); err != nil || m == nil {
		f.problems = append(f.problems, "x-mcp-file is not an object")
		return
	}
	for k, v := range m {
		switch k {
		case "accept":
			f.hasAccept = true
			if err := json.Unmarshal(v, &f.accept); err != nil {
				f.problems = append(f.problems, "accept is not a list of strings")
			}
			for _, a := range f.accept {
				if !strings.HasPrefix(a, ".") && !strings.Contains(a, "/") {
					f.problems = append(f.problems, fmt.Sprintf("accept entry %q is neither a media type nor an extension", a))
				}
			}
		case "maxSize":
			var x float64
			if err := json.Unmarshal(v, &x); err != nil || x < 0 || x != math.Trunc(x) {
				f.problems = append(f.problems, "maxSize is not a non-negative integer")
			} else {
				f.maxSize = int64(x)
			}
		case "transferModes": // SEP-2631
			if err := json.Unmarshal(v, &f.modes); err != nil {
				f.problems = append(f.problems, "transferModes is not a list of strings")
			}
		default:
			f.problems = append(f.problems, fmt.Sprintf("x-mcp-file has the member %q, which neither SEP defines", k))
		}
	}
	sort.Strings(f.problems)
}

// hasType reports whether s's type is t or a list holding t.
func hasType(s map[string]json.RawMessage, t string) bool {
	var one string
	if json.Unmarshal(s["type"], &one) == nil {
		return one == t
	}
	var many []string
	json.Unmarshal(s["type"], &many)
	for _, x := range many {
		if x == t {
			return true
		}
	}
	return false
}

func intMember(s map[string]json.RawMessage, k string, def int) int {
	var x float64
	if v, ok := s[k]; ok && json.Unmarshal(v, &x) == nil && x >= 0 {
		return int(x)
	}
	return def
}

// matches reports whether accept allows mediaType as SEP-2356 §3 says:
// type/subtype only, case-insensitive, "type/*" for any subtype; extension
// entries are ignored. An absent accept allows every type.
func (f field) matches(mediaType string) bool {
	if !f.hasAccept {
		return true
	}
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(mediaType, ";", 2)[0]))
	for _, a := range f.accept {
		a = strings.ToLower(a)
		switch {
		case a == "*/*" || a == mt:
			return true
		case strings.HasSuffix(a, "/*") && strings.HasPrefix(mt, strings.TrimSuffix(a, "*")):
			return true
		}
	}
	return false
}

// fill returns a plausible value for a required argument that is not a
// file, from its schema: its first enum value, else one of its type.
func fill(raw json.RawMessage) any {
	var s struct {
		Enum    []any           `json:"enum"`
		Const   any             `json:"const"`
		Type    json.RawMessage `json:"type"`
		Minimum *float64        `json:"minimum"`
		Maximum *float64        `json:"maximum"`
	}
	json.Unmarshal(raw, &s)
	if s.Const != nil {
		return s.Const
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	m := map[string]json.RawMessage{"type": s.Type}
	switch {
	case hasType(m, "string"):
		return "conform"
	case hasType(m, "integer"), hasType(m, "number"):
		// 64: large enough for a file a tool makes of that size to have
		// a middle (download.range), within the bounds the schema sets.
		v := 64.0
		if s.Maximum != nil && *s.Maximum < v {
			v = *s.Maximum
		}
		if s.Minimum != nil && *s.Minimum > v {
			v = *s.Minimum
		}
		return v
	case hasType(m, "boolean"):
		return false
	case hasType(m, "array"):
		return []any{}
	case hasType(m, "object"):
		return map[string]any{}
	}
	return nil
}
