package call

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// An Arg is one argument of the command line, as the user wrote it:
//
//	name=@path            a local file for a file argument (repeat for an array)
//	name=@path;type=M     the same, declared as media type M
//	name=value            a value: a string, or a number or boolean where the schema says so
//	name:=json            a JSON value, as is
type Arg struct {
	Name string
	// Path is the local file of name=@path; empty otherwise.
	Path string
	// MediaType is the ;type= of name=@path;type=M.
	MediaType string
	// Value is the text after = (or := for JSON).
	Value string
	// JSON: the value was given with :=.
	JSON bool
}

// ParseArg reads one name=… argument.
func ParseArg(s string) (Arg, error) {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return Arg{}, fmt.Errorf("argument %q: want name=@path, name=value or name:=json", s)
	}
	a := Arg{Name: s[:i], Value: s[i+1:]}
	if strings.HasSuffix(a.Name, ":") {
		a.Name, a.JSON = strings.TrimSuffix(a.Name, ":"), true
		if a.Name == "" {
			return Arg{}, fmt.Errorf("argument %q: no name before :=", s)
		}
		if !json.Valid([]byte(a.Value)) {
			return Arg{}, fmt.Errorf("argument %q: the value after := is not JSON", a.Name)
		}
		return a, nil
	}
	if p, ok := strings.CutPrefix(a.Value, "@"); ok {
		if path, mt, ok := strings.Cut(p, ";type="); ok {
			p, a.MediaType = path, mt
			if a.MediaType == "" || !strings.Contains(a.MediaType, "/") {
				return Arg{}, fmt.Errorf("argument %q: ;type=%q is not a media type (want type/subtype, such as application/pdf)", a.Name, mt)
			}
		}
		if p == "" {
			return Arg{}, fmt.Errorf("argument %q: no path after @", a.Name)
		}
		a.Path, a.Value = p, ""
	}
	return a, nil
}

// A field is a file argument of a tool: its x-mcp-file (SEP-2356) and
// transferModes (SEP-2631).
type field struct {
	name      string
	array     bool
	maxItems  int // -1: none
	accept    []string
	hasAccept bool
	maxSize   int64 // -1: none
	modes     []string
}

// allows reports whether transferModes allows mode ("inline" or
// "upload"): an absent transferModes allows both.
func (f *field) allows(mode string) bool {
	if f.modes == nil {
		return true
	}
	for _, m := range f.modes {
		if m == mode {
			return true
		}
	}
	return false
}

// A schema is what call needs of a tool's input schema.
type schema struct {
	props    map[string]json.RawMessage
	types    map[string][]string // each property's "type"
	files    map[string]*field
	required []string
}

// readSchema reads a tool's input schema, as tools/list gave it.
func readSchema(raw json.RawMessage) (*schema, error) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("its input schema is not a JSON object: %v", err)
	}
	sc := &schema{props: s.Properties, types: map[string][]string{}, files: map[string]*field{}, required: s.Required}
	for name, p := range s.Properties {
		var m map[string]json.RawMessage
		if json.Unmarshal(p, &m) != nil {
			continue
		}
		sc.types[name] = typesOf(m)
		kw, ok := m["x-mcp-file"]
		f := &field{name: name, maxItems: -1, maxSize: -1}
		if !ok {
			var items map[string]json.RawMessage
			json.Unmarshal(m["items"], &items)
			if kw, ok = items["x-mcp-file"]; !ok {
				continue
			}
			f.array = true
			if v, ok := m["maxItems"]; ok {
				var x float64
				if json.Unmarshal(v, &x) == nil && x >= 0 {
					f.maxItems = int(x)
				}
			}
		}
		if err := f.read(kw); err != nil {
			return nil, fmt.Errorf("argument %q: x-mcp-file: %v", name, err)
		}
		sc.files[name] = f
	}
	return sc, nil
}

// read reads the members of an x-mcp-file keyword.
func (f *field) read(kw json.RawMessage) error {
	var k struct {
		Accept        *[]string `json:"accept"`
		MaxSize       *float64  `json:"maxSize"`
		TransferModes *[]string `json:"transferModes"`
	}
	if err := json.Unmarshal(kw, &k); err != nil {
		return fmt.Errorf("not an object of accept, maxSize and transferModes: %v", err)
	}
	if k.Accept != nil {
		f.accept, f.hasAccept = *k.Accept, true
	}
	if k.MaxSize != nil {
		if *k.MaxSize < 0 || *k.MaxSize != math.Trunc(*k.MaxSize) {
			return fmt.Errorf("maxSize %v is not a non-negative integer", *k.MaxSize)
		}
		f.maxSize = int64(*k.MaxSize)
	}
	if k.TransferModes != nil {
		f.modes = *k.TransferModes
		if len(f.modes) == 0 {
			return fmt.Errorf("transferModes is empty (want inline, upload or both)")
		}
	}
	return nil
}

func typesOf(m map[string]json.RawMessage) []string {
	var one string
	if json.Unmarshal(m["type"], &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(m["type"], &many)
	return many
}

// names lists the schema's properties, file arguments marked, for errors.
func (s *schema) names() string {
	var out []string
	for n := range s.props {
		if s.files[n] != nil {
			n += "=@path"
		}
		out = append(out, n)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "it takes none"
	}
	return "want " + strings.Join(out, ", ")
}

// value converts a name=value argument as its property's type says: a
// number, an integer or a boolean is parsed, anything else is a string.
func (s *schema) value(a Arg) (any, error) {
	if a.JSON {
		return json.RawMessage(a.Value), nil
	}
	ts := s.types[a.Name]
	has := func(t string) bool {
		for _, x := range ts {
			if x == t {
				return true
			}
		}
		return false
	}
	switch {
	case has("string") || len(ts) == 0:
		return a.Value, nil
	case has("integer"):
		n, err := strconv.ParseInt(a.Value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("argument %q is an integer: %q is not one", a.Name, a.Value)
		}
		return n, nil
	case has("number"):
		x, err := strconv.ParseFloat(a.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("argument %q is a number: %q is not one", a.Name, a.Value)
		}
		return x, nil
	case has("boolean"):
		b, err := strconv.ParseBool(a.Value)
		if err != nil {
			return nil, fmt.Errorf("argument %q is a boolean: %q is not one (want true or false)", a.Name, a.Value)
		}
		return b, nil
	}
	return nil, fmt.Errorf("argument %q is of type %s: give it as JSON, %s:=…", a.Name, strings.Join(ts, " or "), a.Name)
}
