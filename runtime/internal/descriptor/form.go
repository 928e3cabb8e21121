package descriptor

import (
	"math"
	"strconv"

	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// Members returns the raw values of the members of the JSON object t (t[0]
// is '{') named in names (the last of a repeated name), in the order of
// names; nil for an absent member. Keys are compared unescaped, as a JSON
// Schema validator compares them ("\u0062ase64" is base64). ok is false
// when t is not one well-formed object.
func Members(t []byte, names ...string) (vals [][]byte, ok bool) {
	longest := 0
	for _, n := range names {
		longest = max(longest, len(n))
	}
	vals = make([][]byte, len(names))
	ok = jsonwalk.WalkObject(t, 0, func(key, val jsonwalk.Span) bool {
		k := t[key.Start+1 : key.End-1]
		if !jsonwalk.Plain(k) {
			if len(k) > 6*longest { // \uXXXX for each byte
				return true
			}
			k = jsonwalk.Unquote(k)
		}
		for i, n := range names {
			if string(k) == n {
				vals[i] = t[val.Start:val.End]
			}
		}
		return true
	})
	return vals, ok
}

// CheckFormObject checks the members of obj, a JSON object sent for a file
// of form form, against FormMembers: the required ones are there, and
// each has its JSON type. It returns "" or what is wrong, for a RuleForm
// error after "<what>: ", naming the member and never quoting its value.
func CheckFormObject(form string, obj []byte) string {
	spec := FormMembers[form]
	names := make([]string, len(spec))
	for i, m := range spec {
		names[i] = m[0]
	}
	vals, ok := Members(obj, names...)
	if !ok {
		return "it is not well-formed JSON"
	}
	for i, m := range spec {
		v := vals[i]
		if v == nil || jsonwalk.IsNull(v) {
			if i < FormRequired[form] {
				return "the member " + strconv.Quote(m[0]) + " is missing"
			}
			continue
		}
		switch m[1] {
		case "string":
			if v[0] != '"' {
				return "the member " + strconv.Quote(m[0]) + " is " + jsonwalk.Kind(v) + ", not a string"
			}
		case "size":
			if _, ok := Size(v); !ok {
				return "the member " + strconv.Quote(m[0]) + " is " + jsonwalk.Kind(v) + ", not a whole number of bytes (0 or more)"
			}
		}
	}
	return ""
}

// Size reads a JSON number that is a whole number of bytes, 0 or more, as
// a JSON Schema validator reads an integer (84.0 and 8.4e1 are 84).
func Size(v []byte) (int64, bool) {
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, n >= 0
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f < 0 || f > math.MaxInt64/2 || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}
