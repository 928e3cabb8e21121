package call

import (
	"encoding/json"
	"fmt"
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

// propTypes returns the "type" of each property of the object schema
// raw, for converting name=value arguments.
func propTypes(raw json.RawMessage) map[string][]string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(raw, &s)
	types := map[string][]string{}
	for name, p := range s.Properties {
		var m map[string]json.RawMessage
		if json.Unmarshal(p, &m) == nil {
			types[name] = typesOf(m)
		}
	}
	return types
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

// value converts a name=value argument as its property's type (of
// types, by property) says: a number, an integer or a boolean is parsed,
// anything else is a string.
func value(types map[string][]string, a Arg) (any, error) {
	if a.JSON {
		return json.RawMessage(a.Value), nil
	}
	ts := types[a.Name]
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
