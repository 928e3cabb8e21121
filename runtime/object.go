package runtime

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// This file is what a generated UnmarshalJSON method runs: it is one line
// that hands the JSON object, the struct and its file fields to
// [Object.Unmarshal]. Keeping the decoding here, once, rather than in every
// generated method keeps generated files short to read, to format and to
// compile.

// Object describes a struct type to its generated UnmarshalJSON method: the
// JSON member names encoding/json decodes into the struct and its file
// fields with their constraints. Generated code builds one per type, with
// [NewObject], in a package-level variable. An Object is immutable and safe
// for concurrent use.
type Object struct {
	keys  *keyIndex
	files []FileField
}

// FileField is one file field of a struct type: its JSON member name and
// what its mcpfile tag declares.
type FileField struct {
	// Key is the member name, as encoding/json matches it to the field; it
	// names the argument in errors ("docs", and "docs[2]" for an item).
	Key string

	// MaxFiles is the largest number of items of a slice field; zero means
	// no limit. It does not apply to a single file.
	MaxFiles int

	// Descriptor holds the x-mcp-file constraints each file is checked against.
	Descriptor Descriptor
}

// NewObject returns the Object of a struct type. keys is every JSON member
// name encoding/json decodes into the struct, in encoding/json's field order
// (promoted fields included); files are its file fields, in the order in
// which [Object.Unmarshal] takes their targets. A file key missing from keys
// is treated as if it came last.
func NewObject(keys []string, files ...FileField) *Object {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Key
	}
	return &Object{keys: newKeyIndex(keys, names...), files: files}
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
// against its FileField's constraints. plain points to the struct as a
// type without its UnmarshalJSON method, into which encoding/json decodes
// every other member; targets are the struct's file fields, in the order
// of the Object's files.
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
	if len(targets) != len(o.files) {
		return fmt.Errorf("mcpfile: internal error: %d targets for %d file fields: run go generate", len(targets), len(o.files))
	}
	rest, err := scanObject(b, o.keys, func(i int, val []byte) error {
		return o.files[i].decode(targets[i].field, val)
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
				return fmt.Errorf("mcpfile: internal error: field %q: %v", o.files[i].Key, err)
			}
		}
	}
	return nil
}

// decode decodes val, the raw JSON value of f's member, into field.
func (f *FileField) decode(field any, val []byte) error {
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
	return fmt.Errorf("mcpfile: internal error: field %q: target %T is not a pointer to a file field", f.Key, field)
}

// decodeOne decodes val into *field with one (DecodeJSON or ValidateJSON);
// null leaves *field as it is.
func decodeOne[T File | string](f *FileField, val []byte, field *T, one func(string, []byte, Descriptor) (T, error)) error {
	if isNull(val) {
		return nil
	}
	x, err := one(f.Key, val, f.Descriptor)
	if err != nil {
		return err
	}
	*field = x
	return nil
}

// decodePointer is decodeOne for an optional field: null sets it to nil.
func decodePointer[T File | string](f *FileField, val []byte, field **T, one func(string, []byte, Descriptor) (T, error)) error {
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
func decodeItems[T File | string](f *FileField, val []byte, field *[]T, one func(string, []byte, Descriptor) (T, error)) error {
	if isNull(val) {
		*field = nil
		return nil
	}
	xs := []T{}
	if _, err := scanArray(f.Key, val, f.MaxFiles, func(i int, item []byte) error {
		x, err := one(f.Key+"["+strconv.Itoa(i)+"]", item, f.Descriptor)
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
