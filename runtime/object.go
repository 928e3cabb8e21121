package runtime

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
)

// This file is what a generated UnmarshalJSON method runs: it is one line
// that hands the JSON object, the struct and its file fields to
// [Object.Unmarshal]. Keeping the decoding here, once, rather than in every
// generated method keeps generated files short to read, to format and to
// compile.

// Object describes a struct type to its generated UnmarshalJSON method: the
// JSON member names encoding/json decodes into the struct, which of them are
// file fields, and the struct's schema, whose x-mcp-file entries are the
// constraints each file is checked against. Generated code builds one per
// type, with [NewObject], in a package-level variable. Once built, an Object
// is immutable and safe for concurrent use.
type Object struct {
	schema  string
	names   []string // the file fields' member names, in the order of the targets
	keys    *keyIndex
	noSniff []string
	files   func() ([]fileField, error) // read from schema on first use
}

// fileField is one file field of a struct type: its member name and the
// constraints its schema property declares.
type fileField struct {
	// key is the member name, as encoding/json matches it to the field; it
	// names the argument in errors ("docs", and "docs[2]" for an item).
	key string

	// fileProp is the property: a single file or an array of files, the
	// x-mcp-file constraints each file is checked against, and the limits
	// on the number of files.
	fileProp
}

// NewObject returns the Object of a struct type. schema is the type's JSON
// Schema, as generated; keys is every JSON member name encoding/json decodes
// into the struct, in encoding/json's field order (promoted fields
// included); files are the member names of its file fields, in the order in
// which [Object.Unmarshal] takes their targets. A file key missing from keys
// is treated as if it came last.
//
// The file fields' constraints are read from the schema, once, when the
// Object is first used: each file field's property must carry x-mcp-file
// (an array of files, in its items, with maxItems as the most files), and
// every property that does must be one of files. Anything else is an
// internal error of each [Object.Unmarshal]: the generated code was edited
// or is out of date.
func NewObject(schema string, keys []string, files ...string) *Object {
	o := &Object{schema: schema, names: files, keys: newKeyIndex(keys, files...)}
	o.files = sync.OnceValues(o.readSchema)
	return o
}

// NoSniff turns the content check off for the named file fields (mcpfile
// tag sniff=false), which a schema does not record, and returns o. It
// modifies o: call it only where o is built, before o is used.
func (o *Object) NoSniff(files ...string) *Object {
	o.noSniff = append(o.noSniff, files...)
	return o
}

// readSchema returns the file fields of o with their constraints.
func (o *Object) readSchema() ([]fileField, error) {
	props, err := fileProperties([]byte(o.schema))
	if err != nil {
		return nil, fmt.Errorf("mcpfile: internal error: %v: run go generate", err)
	}
	files := make([]fileField, len(o.names))
	for i, name := range o.names {
		p, ok := props[name]
		if !ok {
			return nil, fmt.Errorf("mcpfile: internal error: file field %q has no x-mcp-file in the schema: run go generate", name)
		}
		delete(props, name)
		files[i] = fileField{key: name, fileProp: p}
	}
	if len(props) > 0 {
		extra := slices.Sorted(maps.Keys(props))
		return nil, fmt.Errorf("mcpfile: internal error: schema property %q has x-mcp-file but is not a file field: run go generate", extra[0])
	}
	for _, name := range o.noSniff {
		i := slices.Index(o.names, name)
		if i < 0 {
			return nil, fmt.Errorf("mcpfile: internal error: NoSniff names %q, which is not a file field: run go generate", name)
		}
		files[i].d.NoSniff = true
	}
	return files, nil
}

// FileKind is the set of Go types a file field can have: a decoded [File],
// or the data: URI as a string, validated but not decoded; each alone,
// optional (a pointer) or several (a slice).
type FileKind interface {
	File | *File | []File | string | *string | []string
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
// through [SanitizeName] into the Name of the file it goes with, the i-th
// name going with the i-th file of a slice. A single file takes a string
// name and a slice of files a slice of names.
func IntoNamed[F File | *File | []File, N string | []string](field *F, names *N) Target {
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
	files, err := o.files()
	if err != nil {
		return err
	}
	if len(targets) != len(files) {
		return fmt.Errorf("mcpfile: internal error: %d targets for %d file fields: run go generate", len(targets), len(files))
	}
	rest, err := scanObject(b, o.keys, func(i int, val []byte) error {
		return files[i].decode(targets[i].field, val)
	})
	if err != nil {
		return err
	}
	if rest != nil {
		if err := json.Unmarshal(rest, plain); err != nil {
			return err
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
	case *[]File, *[]string:
		if f.kind != fileArray {
			return fmt.Errorf("mcpfile: internal error: field %q: target %T is a slice, but the schema's property is a single file: run go generate", f.key, field)
		}
	default:
		if f.kind == fileArray {
			return fmt.Errorf("mcpfile: internal error: field %q: target %T is not a slice, but the schema's property is an array of files: run go generate", f.key, field)
		}
	}
	switch p := field.(type) {
	case *File:
		return decodeOne(f, val, p, DecodeJSON)
	case *string:
		return decodeOne(f, val, p, ValidateJSON)
	case **File:
		return decodePointer(f, val, p, DecodeJSON)
	case **string:
		return decodePointer(f, val, p, ValidateJSON)
	case *[]File:
		return decodeItems(f, val, p, DecodeJSON)
	case *[]string:
		return decodeItems(f, val, p, ValidateJSON)
	}
	return fmt.Errorf("mcpfile: internal error: field %q: target %T is not a pointer to a file field", f.key, field)
}

// decodeOne decodes val into *field with one (DecodeJSON or ValidateJSON);
// null leaves *field as it is.
func decodeOne[T File | string](f *fileField, val []byte, field *T, one func(string, []byte, Descriptor) (T, error)) error {
	if isNull(val) {
		return nil
	}
	x, err := one(f.key, val, f.d)
	if err != nil {
		return err
	}
	*field = x
	return nil
}

// decodePointer is decodeOne for an optional field: null sets it to nil.
func decodePointer[T File | string](f *fileField, val []byte, field **T, one func(string, []byte, Descriptor) (T, error)) error {
	if isNull(val) {
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
func decodeItems[T File | string](f *fileField, val []byte, field *[]T, one func(string, []byte, Descriptor) (T, error)) error {
	if isNull(val) {
		*field = nil
		return nil
	}
	xs := []T{}
	if _, err := scanArray(f.key, val, f.fileProp, func(i int, item []byte) error {
		x, err := one(f.key+"["+strconv.Itoa(i)+"]", item, f.d)
		if err != nil {
			return err
		}
		xs = append(xs, x)
		return nil
	}); err != nil {
		return err
	}
	*field = xs
	return nil
}

// name copies t's filename into its file's Name, sanitized, when both are
// there; a file that is absent (a File without a media type, a nil pointer)
// gets no name.
func (t Target) name() error {
	switch n := t.names.(type) {
	case *string:
		if *n == "" {
			return nil
		}
		switch p := t.field.(type) {
		case *File:
			if p.MediaType != "" {
				p.Name = SanitizeName(*n)
			}
			return nil
		case **File:
			if *p != nil {
				(*p).Name = SanitizeName(*n)
			}
			return nil
		}
	case *[]string:
		if p, ok := t.field.(*[]File); ok {
			for i := range *p {
				if i < len(*n) && (*n)[i] != "" {
					(*p)[i].Name = SanitizeName((*n)[i])
				}
			}
			return nil
		}
	}
	return fmt.Errorf("no filename copy from %T to %T", t.names, t.field)
}
