package descriptor

import (
	"math"
	"slices"
	"strconv"
	"strings"

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
// of form form, against FormMembers: each member is given once, the
// required ones are there, and each has its JSON type; a FileData object
// has no other member (a ChatGPT file object may: its host adds members
// as it pleases, and they are ignored). Keys are compared unescaped, as
// Members compares them, so "b\u0061se64" and "base64" are one member
// given twice. It returns "" or what is wrong, for a RuleForm error after
// "<what>: ", naming the member and never quoting its value.
func CheckFormObject(form string, obj []byte) string {
	spec := FormMembers[form]
	vals := make([][]byte, len(spec))
	var why string
	ok := jsonwalk.WalkObject(obj, 0, func(key, val jsonwalk.Span) bool {
		k := obj[key.Start+1 : key.End-1]
		if len(k) <= 6*maxQuotedKey && !jsonwalk.Plain(k) { // \uXXXX for each byte at most
			k = jsonwalk.Unquote(k)
		}
		i := slices.IndexFunc(spec, func(m [2]string) bool { return m[0] == string(k) })
		switch {
		case i < 0 && form == FileData:
			why = unknownMember(form, k)
		case i < 0:
			return true
		case vals[i] != nil:
			why = "the member " + strconv.Quote(spec[i][0]) + " is given twice (give each member once)"
		default:
			vals[i] = obj[val.Start:val.End]
			return true
		}
		return false
	})
	if why != "" {
		return why
	}
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

// maxQuotedKey is the longest key an error quotes; a longer one is
// measured.
const maxQuotedKey = 64

// unknownMember is CheckFormObject's reason for the member key, not one of
// form's, with the members the form has.
func unknownMember(form string, key []byte) string {
	spec := FormMembers[form]
	names := make([]string, len(spec))
	for i, m := range spec {
		names[i] = m[0]
	}
	what := "a member named " + strconv.Quote(string(key))
	if len(key) > maxQuotedKey {
		what = "a member with a name of " + strconv.Itoa(len(key)) + " bytes"
	}
	return "it has " + what + ", which a " + FormWhat[form] + " does not have (its members are " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + ")"
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
