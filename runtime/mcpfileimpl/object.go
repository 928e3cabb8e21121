package mcpfileimpl

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// Object describes a struct type to its generated UnmarshalJSON method: the
// JSON member names encoding/json decodes into the struct, which of them are
// file fields, and the struct's schema, whose x-mcp-file entries are the
// constraints each file is checked against. Generated code builds one per
// type, with [NewObject], in a package-level variable. Once built, an Object
// is immutable and safe for concurrent use.
type Object struct {
	keys  *jsonwalk.KeyIndex
	files []fileField
	err   error // an internal error, reported by every Unmarshal
}

// fileField is one file field of a struct type: its member name and the
// constraints its schema property declares.
type fileField struct {
	// key is the member name, as encoding/json matches it to the field; it
	// names the argument in errors ("docs", and "docs[2]" for an item).
	key string

	// Prop is the property: a single file or an array of files, the
	// x-mcp-file constraints each file is checked against, and the limits
	// on the number of files.
	*descriptor.Prop
}

// NewObject returns the Object of a struct type. schema is the type's JSON
// Schema, as generated; keys is every JSON member name encoding/json decodes
// into the struct, in encoding/json's field order (promoted fields
// included); files are the member names of its file fields, in the order in
// which [Object.Unmarshal] takes their targets, and noSniff those without a
// content check (mcpfile tag sniff=false), which a schema does not record.
// A file key missing from keys is treated as if it came last.
//
// The schema is read here, once, when the generated code's package is
// initialised, and registered as the one description of its files that
// every other path (the runtime's AddTool, Elicit, RequestBytes) reads:
// each file field's property must carry x-mcp-file (an array of files, in
// its items), and every property that does must be one of files. Anything
// else is an internal error of each [Object.Unmarshal]: the generated code
// was edited or is out of date.
func NewObject(schema string, keys []string, files []string, noSniff ...string) *Object {
	o := &Object{keys: jsonwalk.NewKeyIndex(keys, files...)}
	o.files, o.err = readSchema(schema, files, noSniff)
	if o.err != nil {
		o.err = fmt.Errorf("mcpfile: internal error: %v: run go generate", o.err)
	}
	return o
}

// readSchema registers schema and returns the file fields named by files
// with their constraints.
func readSchema(schema string, names, noSniff []string) ([]fileField, error) {
	s, err := descriptor.Register(schema, noSniff)
	if err != nil {
		return nil, err
	}
	props := maps.Clone(s.Props)
	files := make([]fileField, len(names))
	for i, name := range names {
		p, ok := props[name]
		if !ok {
			return nil, fmt.Errorf("file field %q has no x-mcp-file in the schema", name)
		}
		delete(props, name)
		files[i] = fileField{key: name, Prop: p}
	}
	if len(props) > 0 {
		extra := slices.Sorted(maps.Keys(props))
		return nil, fmt.Errorf("schema property %q has x-mcp-file but is not a file field", extra[0])
	}
	return files, nil
}

// FileKind is the set of Go types a file field can have: a decoded runtime.File,
// or the data: URI as a string, validated but not decoded; each alone,
// optional (a pointer) or several (a slice).
type FileKind interface {
	runtime.File | *runtime.File | []runtime.File | string | *string | []string
}

// A Target is a file field of the struct being decoded, where
// [Object.Unmarshal] stores what it decodes. [Into] and [IntoNamed] make one.
type Target struct {
	field any // *F for an F in FileKind
	names any // nil, *string or *[]string
}

// Into returns the Target of the file field that field points to.
func Into[F FileKind](field *F) Target { return Target{field: field} }

// IntoNamed returns the Target of a file field whose mcpfile tag names a
// filename field: once the object is decoded, a non-empty name is passed
// through runtime.SanitizeName into the Name of the file it goes with, the i-th
// name going with the i-th file of a slice. A single file takes a string
// name and a slice of files a slice of names.
func IntoNamed[F runtime.File | *runtime.File | []runtime.File, N string | []string](field *F, names *N) Target {
	return Target{field: field, names: names}
}

// Unmarshal decodes the JSON object b into a struct, as encoding/json would,
// except that it decodes each file member into its target and checks it
// against the x-mcp-file constraints of its schema property. plain points
// to the struct as a type without its UnmarshalJSON method, into which
// encoding/json decodes every other member; targets are the struct's file
// fields, in the order of the files given to [NewObject].
//
// The object is walked once, and a file member's value is read in place
// (see [DecodeJSON]). As with encoding/json, a member that is absent leaves
// its field as it is, null leaves a File or string as it is and sets a
// pointer or slice to nil, a repeated key's last value wins, and keys match
// fields case-insensitively when no field has the exact name. A slice is
// replaced only once every item in it passed. Errors are the first file's
// [*Error], in the order of b, or encoding/json's error for the rest of
// the object.
func (o *Object) Unmarshal(b []byte, plain any, targets ...Target) error {
	if o.err != nil {
		return o.err
	}
	files := o.files
	if len(targets) != len(files) {
		return fmt.Errorf("mcpfile: internal error: %d targets for %d file fields: run go generate", len(targets), len(files))
	}
	rest, err := jsonwalk.ScanObject(b, o.keys, func(i int, val []byte) error {
		return files[i].decode(targets[i].field, val)
	})
	if err != nil {
		return err
	}
	if rest != nil {
		if err := json.Unmarshal(rest, plain); err != nil {
			return datauri.RedactError(err) // a field type's decoder (time.Time's) may quote the value
		}
	}
	for i, t := range targets {
		if t.names != nil {
			if err := t.name(); err != nil {
				return fmt.Errorf("mcpfile: internal error: field %q: %v", files[i].key, err)
			}
		}
	}
	return nil
}

// decode decodes val, the raw JSON value of f's member, into field.
func (f *fileField) decode(field any, val []byte) error {
	switch field.(type) {
	case *[]runtime.File, *[]string:
		if f.Kind != descriptor.Array {
			return fmt.Errorf("mcpfile: internal error: field %q: target %T is a slice, but the schema's property is a single file: run go generate", f.key, field)
		}
	default:
		if f.Kind == descriptor.Array {
			return fmt.Errorf("mcpfile: internal error: field %q: target %T is not a slice, but the schema's property is an array of files: run go generate", f.key, field)
		}
	}
	if f.File.Form != "" {
		switch p := field.(type) {
		case *runtime.File:
			return decodeOne(f, val, p, decodeForm)
		case **runtime.File:
			return decodePointer(f, val, p, decodeForm)
		case *[]runtime.File:
			return decodeItems(f, val, p, decodeForm)
		}
		return fmt.Errorf("mcpfile: internal error: field %q: target %T of a %s file is not a runtime.File: run go generate", f.key, field, f.File.Form)
	}
	switch p := field.(type) {
	case *runtime.File:
		return decodeOne(f, val, p, decodeJSON)
	case *string:
		return decodeOne(f, val, p, validateJSON)
	case **runtime.File:
		return decodePointer(f, val, p, decodeJSON)
	case **string:
		return decodePointer(f, val, p, validateJSON)
	case *[]runtime.File:
		return decodeItems(f, val, p, decodeJSON)
	case *[]string:
		return decodeItems(f, val, p, validateJSON)
	}
	return fmt.Errorf("mcpfile: internal error: field %q: target %T is not a pointer to a file field", f.key, field)
}

// decodeOne decodes val into *field with one (DecodeJSON or validateJSON);
// null leaves *field as it is.
func decodeOne[T runtime.File | string](f *fileField, val []byte, field *T, one func(string, []byte, descriptor.File) (T, error)) error {
	if jsonwalk.IsNull(val) {
		return nil
	}
	x, err := one(f.key, val, f.File)
	if err != nil {
		return err
	}
	*field = x
	return nil
}

// decodePointer is decodeOne for an optional field: null sets it to nil.
func decodePointer[T runtime.File | string](f *fileField, val []byte, field **T, one func(string, []byte, descriptor.File) (T, error)) error {
	if jsonwalk.IsNull(val) {
		*field = nil
		return nil
	}
	x := new(T)
	if err := decodeOne(f, val, x, one); err != nil {
		return err
	}
	*field = x
	return nil
}

// decodeItems decodes val, the raw JSON value of the slice field f, into a
// new slice that replaces *field once every item passed; items are named
// "key[i]" in errors.
func decodeItems[T runtime.File | string](f *fileField, val []byte, field *[]T, one func(string, []byte, descriptor.File) (T, error)) error {
	if jsonwalk.IsNull(val) {
		*field = nil
		return nil
	}
	var xs []T
	n, err := scanArray(f.key, val, f.Prop, func(i int, item []byte) error {
		if xs == nil {
			xs = make([]T, 0, count(val)) // counted by scanArray, which calls here once it has
		}
		x, err := one(f.key, item, f.File)
		if err != nil {
			if e, ok := err.(*runtime.Error); ok {
				// Named here, not before every item: most items pass.
				e.Arg = f.key + "[" + strconv.Itoa(i) + "]"
			}
			return err
		}
		xs = append(xs, x)
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		xs = []T{}
	}
	*field = xs
	return nil
}

// name copies t's filename into its file's Name, sanitized, when both are
// there; a file that is absent (a File without a media type that refers to
// no uploaded file, a nil pointer) gets no name.
func (t Target) name() error {
	switch n := t.names.(type) {
	case *string:
		if *n == "" {
			return nil
		}
		switch p := t.field.(type) {
		case *runtime.File:
			if p.MediaType != "" || hook.IsRef(*p) {
				p.Name = runtime.SanitizeName(*n)
			}
			return nil
		case **runtime.File:
			if *p != nil {
				(*p).Name = runtime.SanitizeName(*n)
			}
			return nil
		}
	case *[]string:
		if p, ok := t.field.(*[]runtime.File); ok {
			for i := range *p {
				if i < len(*n) && (*n)[i] != "" {
					(*p)[i].Name = runtime.SanitizeName((*n)[i])
				}
			}
			return nil
		}
	}
	return fmt.Errorf("no filename copy from %T to %T", t.names, t.field)
}

// scanArray walks tok, the raw JSON value of the file-array argument arg,
// for a generated UnmarshalJSON method. It first checks tok and counts its
// elements, failing with a RuleMaxFiles [*Error] when there are more than
// lim allows and RuleMinFiles when fewer; then it calls item for each
// element, in order, with its index and raw token (not copied, no
// surrounding whitespace), and stops at the first error item returns. n is
// the number of elements.
//
// A tok that is not an array (null included: check isNull first) gives a
// runtime.RuleType error; a malformed one gives the error encoding/json gives
// for it.
func scanArray(arg string, tok []byte, lim *descriptor.Prop, item func(i int, tok []byte) error) (n int, err error) {
	t := jsonwalk.TrimWS(tok)
	if len(t) == 0 || t[0] != '[' {
		if len(t) > 0 {
			if end, ok := jsonwalk.ScanValue(t, 0, 0); !ok || end != len(t) {
				return 0, jsonwalk.DecodeError(tok, new([]json.RawMessage))
			}
		}
		return 0, typeError(arg, t, lim.File, descriptor.Array)
	}
	n, ok := jsonwalk.WalkArray(t, nil)
	if !ok {
		return 0, jsonwalk.DecodeError(tok, new([]json.RawMessage))
	}
	if err := checkCount(arg, lim, n); err != nil {
		return n, err
	}
	if item == nil {
		return n, nil
	}
	k := 0
	jsonwalk.WalkArray(t, func(elem []byte) bool {
		err = item(k, elem)
		k++
		return err == nil
	})
	return n, err
}

// checkCount checks the number of files n of the array argument arg
// against p's limits, the largest first.
func checkCount(arg string, p *descriptor.Prop, n int) *runtime.Error {
	if rule, limit := p.CheckCount(n, runtime.DefaultMaxFiles); rule != "" {
		return &runtime.Error{Arg: arg, Rule: runtime.Rule(rule), Received: int64(n), Limit: int64(limit)}
	}
	return nil
}

// typeError is the RuleType error for a file argument whose JSON value t
// is not what its schema wants, a URI string of kind k that d describes:
// one string, or an array of them.
func typeError(arg string, t []byte, d descriptor.File, k descriptor.Kind) *runtime.Error {
	return &runtime.Error{Arg: arg, Rule: runtime.RuleType, Reason: "received " + jsonwalk.Kind(t) + ", want " + d.Want(k)}
}

// count returns the number of items of the well-formed JSON array arr.
func count(arr []byte) int {
	n, _ := jsonwalk.WalkArray(jsonwalk.TrimWS(arr), nil)
	return n
}
