// Package infer computes, from go/types, the JSON Schema that the MCP Go
// SDK infers with google/jsonschema-go v0.4.3's jsonschema.For, as
// github.com/invopop/jsonschema values. It mirrors infer.go's forType case
// by case, quirks included, so that a server moving to generated schemas
// sees no change in its non-file fields.
//
// Two things differ from jsonschema.For, both opt-in through Config: a
// field's doc comment becomes its description when it has no jsonschema
// tag, and chosen fields get a given schema (the file fields).
package infer

import (
	"encoding/json"
	"fmt"
	"go/types"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/mcpfile/mcpfile/gen/internal/fields"
)

// Config adjusts the inference.
type Config struct {
	// Doc returns the doc comment of a struct field, used as its description
	// when it has no jsonschema tag. Nil: none.
	Doc func(v *types.Var) string

	// Override gives the schema of particular fields, used as is.
	Override map[*types.Var]*jsonschema.Schema

	// RejectTag, if set, makes a struct field carrying this tag key an error
	// of kind ErrTag (mcpfile tags below the top level).
	RejectTag string

	// RejectType, if set, makes a named type for which it returns true an
	// error of kind ErrRejectedType wherever it is met outside the
	// overridden fields (runtime.File where it is no file field).
	RejectType func(*types.Named) bool

	// All makes For go on after a failure in one of the top-level struct's
	// fields and return every such failure as Errors.
	All bool

	// Check makes For only check t: it returns the errors it would
	// otherwise, and no schema, without building one.
	Check bool
}

// Errors is the failures of several top-level fields (Config.All).
type Errors []*Error

func (es Errors) Error() string {
	var msgs []string
	for _, e := range es {
		msgs = append(msgs, e.Error())
	}
	return strings.Join(msgs, "\n")
}

// ErrKind classifies an Error.
type ErrKind int

const (
	ErrType         ErrKind = iota // a type jsonschema.For rejects
	ErrCycle                       // a recursive type
	ErrTagValue                    // a jsonschema tag For rejects
	ErrEmbedded                    // an embedded type with a non-object schema override
	ErrTag                         // Config.RejectTag found
	ErrRejectedType                // Config.RejectType rejected a type
)

// Error is an inference failure.
type Error struct {
	Kind ErrKind
	// Top is the index of the top-level struct's field through which the
	// failure was reached (Index[0] of the visible field), -1 when none.
	Top int
	// Path names the offending field from the top: "Inner.Items.Ch"; a
	// promoted field is named with the embedded fields it comes through.
	Path string
	// Promoted: the top-level field is promoted from an embedded struct.
	// Nested: the failure is below the top-level struct.
	Promoted, Nested bool
	Msg              string
	// TagValue is the value of the Config.RejectTag tag of an ErrTag.
	TagValue string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// For returns the schema of t, as jsonschema.ForType would.
func For(t types.Type, cfg Config) (*jsonschema.Schema, error) {
	w := &walker{cfg: cfg, top: -1}
	s, err := w.forType(t, true)
	if err == nil && len(w.errs) > 0 {
		return nil, w.errs
	}
	if cfg.Check {
		s = nil
	}
	return s, err
}

type walker struct {
	cfg      Config
	seen     []types.Type // named types on the current path
	path     []string
	top      int
	promoted bool
	errs     Errors
	scratch  jsonschema.Schema // what every schema is when only checking
}

// blank returns a schema to fill in: a new one, or, when For only checks
// (Config.Check), the walker's scratch schema, whose contents nothing reads:
// no failure depends on a schema.
func (w *walker) blank() *jsonschema.Schema {
	if w.cfg.Check {
		return &w.scratch
	}
	return &jsonschema.Schema{}
}

func (w *walker) fail(kind ErrKind, format string, args ...any) error {
	return &Error{
		Kind: kind, Top: w.top, Path: strings.Join(w.path, "."),
		Promoted: w.promoted, Nested: len(w.path) > 1,
		Msg: fmt.Sprintf(format, args...),
	}
}

// special are the types jsonschema-go's initialSchemaMap gives {"type":"string"}.
var special = map[string]bool{
	"time.Time": true, "log/slog.Level": true,
	"math/big.Int": true, "math/big.Rat": true, "math/big.Float": true,
}

// Special reports whether t is one of the standard library types
// jsonschema.For describes as a string (time.Time, slog.Level, big.Int,
// big.Rat, big.Float).
func Special(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	return special[n.Obj().Pkg().Path()+"."+n.Obj().Name()]
}

var disallowedPrefix = regexp.MustCompile("^[^ \t\n]*=")

func (w *walker) forType(t types.Type, top bool) (*jsonschema.Schema, error) {
	t = types.Unalias(t)
	allowNull := false
	for {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			break
		}
		allowNull = true
		t = types.Unalias(p.Elem())
	}

	if n, ok := t.(*types.Named); ok {
		if w.cfg.RejectType != nil && w.cfg.RejectType(n) {
			return nil, w.fail(ErrRejectedType, "type %s is rejected", typeString(t))
		}
		for _, s := range w.seen {
			if types.Identical(s, t) {
				return nil, w.fail(ErrCycle, "recursive type %s: the SDK's schema inference rejects cycles", typeString(t))
			}
		}
		w.seen = append(w.seen, t)
		defer func() { w.seen = w.seen[:len(w.seen)-1] }()
	}

	if Special(t) {
		s := w.blank()
		s.Type = "string"
		if allowNull {
			setTypes(s, "null", "string")
		}
		return s, nil
	}

	s := w.blank()
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch u.Kind() {
		case types.Bool:
			s.Type = "boolean"
		case types.Int, types.Int64:
			s.Type = "integer"
		case types.Uint, types.Uint64, types.Uintptr:
			s.Type = "integer"
			s.Minimum = num(0)
		case types.Int8:
			s.Type, s.Minimum, s.Maximum = "integer", num(math.MinInt8), num(math.MaxInt8)
		case types.Uint8:
			s.Type, s.Minimum, s.Maximum = "integer", num(0), num(math.MaxUint8)
		case types.Int16:
			s.Type, s.Minimum, s.Maximum = "integer", num(math.MinInt16), num(math.MaxInt16)
		case types.Uint16:
			s.Type, s.Minimum, s.Maximum = "integer", num(0), num(math.MaxUint16)
		case types.Int32:
			s.Type, s.Minimum, s.Maximum = "integer", num(math.MinInt32), num(math.MaxInt32)
		case types.Uint32:
			s.Type, s.Minimum, s.Maximum = "integer", num(0), num(math.MaxUint32)
		case types.Float32, types.Float64:
			s.Type = "number"
		case types.String:
			s.Type = "string"
		default:
			return nil, w.unsupported(t)
		}

	case *types.Interface:
		// Unrestricted. An empty invopop schema marshals as true, as
		// jsonschema-go's does.

	case *types.Map:
		if k, ok := u.Key().Underlying().(*types.Basic); (!ok || k.Kind() != types.String) && !isTextMarshaler(u.Key()) {
			return nil, w.fail(ErrType, "map key type %s is unsupported by the SDK's schema inference (want string keys or an encoding.TextMarshaler)", typeString(u.Key()))
		}
		s.Type = "object"
		v, err := w.forType(u.Elem(), false)
		if err != nil {
			return nil, err
		}
		s.AdditionalProperties = v

	case *types.Slice:
		setTypes(s, "null", "array")
		items, err := w.forType(u.Elem(), false)
		if err != nil {
			return nil, err
		}
		s.Items = items

	case *types.Array:
		s.Type = "array"
		items, err := w.forType(u.Elem(), false)
		if err != nil {
			return nil, err
		}
		s.Items = items
		n := uint64(u.Len())
		s.MinItems, s.MaxItems = &n, &n

	case *types.Struct:
		if err := w.object(s, u, top); err != nil {
			return nil, err
		}

	default: // chan, func, signature, tuple, type parameter
		return nil, w.unsupported(t)
	}
	if allowNull && s.Type != "" {
		setTypes(s, "null", s.Type)
	}
	return s, nil
}

func (w *walker) unsupported(t types.Type) error {
	if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.Invalid {
		// go/types could not resolve the type; its own error says why.
		return w.fail(ErrType, "the type does not type-check, so it has no schema")
	}
	return w.fail(ErrType, "type %s is unsupported by the SDK's schema inference "+
		"(channels, functions, complex numbers and unsafe pointers have no JSON Schema)", typeString(t))
}

func (w *walker) object(s *jsonschema.Schema, st *types.Struct, top bool) error {
	s.Type = "object"
	s.AdditionalProperties = jsonschema.FalseSchema

	type prop struct {
		name string
		s    *jsonschema.Schema
	}
	var (
		props    []prop
		required []string
		visible  bool
	)
	for _, f := range fields.Visible(st) {
		visible = true
		if w.throughRejected(st, f.Index) {
			// Embedding a rejected type is its embedder's error; its
			// fields are not gone through as well.
			continue
		}
		elem := f.Var.Name()
		if top {
			w.top, w.promoted = f.Index[0], len(f.Index) > 1
			elem = fields.Path(st, f.Index)
		}
		w.path = append(w.path, elem)
		err := func() error {
			if w.cfg.RejectTag != "" && !(top && len(f.Index) == 1) {
				if v, ok := f.Tag.Lookup(w.cfg.RejectTag); ok && w.cfg.Override[f.Var] == nil {
					e := w.fail(ErrTag, "has an %s tag", w.cfg.RejectTag).(*Error)
					e.TagValue = v
					return e
				}
			}
			if f.Var.Embedded() {
				// jsonschema-go: an embedded type with a schema override
				// must be an object; the standard library ones are strings.
				if Special(f.Var.Type()) {
					return w.fail(ErrEmbedded, "embedded %s: the SDK's schema inference rejects it "+
						"(custom schema for embedded struct must have type \"object\")", typeString(f.Var.Type()))
				}
				return nil
			}
			name, omit, optional := fields.SchemaInfo(f.Var, f.Tag)
			if omit {
				return nil
			}
			fs := w.cfg.Override[f.Var]
			if fs == nil {
				var err error
				fs, err = w.forType(f.Var.Type(), false)
				if err != nil {
					return err
				}
				if d, ok := f.Tag.Lookup("jsonschema"); ok {
					if msg := CheckDescription(d); msg != "" {
						return w.fail(ErrTagValue, "%s", msg)
					}
					fs.Description = d
				} else if w.cfg.Doc != nil {
					fs.Description = w.cfg.Doc(f.Var)
				}
			}
			if w.cfg.Check {
				return nil
			}
			props = append(props, prop{name, fs})
			if !optional {
				required = append(required, name)
			}
			return nil
		}()
		w.path = w.path[:len(w.path)-1]
		if top {
			w.top, w.promoted = -1, false
		}
		if err != nil {
			if e, ok := err.(*Error); ok && top && w.cfg.All {
				w.errs = append(w.errs, e)
				continue
			}
			return err
		}
	}
	if w.cfg.Check {
		return nil
	}
	if visible {
		// jsonschema-go assigns into a map and keeps each name's last
		// occurrence in the property order: the last field of a name wins.
		s.Properties = jsonschema.NewProperties()
		last := map[string]int{}
		for i, p := range props {
			last[p.name] = i
		}
		for i, p := range props {
			if last[p.name] == i {
				s.Properties.Set(p.name, p.s)
			}
		}
	}
	s.Required = required
	return nil
}

// throughRejected reports whether the field at index in st is promoted
// through an embedded field of a type Config.RejectType rejects.
func (w *walker) throughRejected(st *types.Struct, index []int) bool {
	if w.cfg.RejectType == nil {
		return false
	}
	for _, i := range index[:len(index)-1] {
		t := fields.Deref(st.Field(i).Type())
		if n, ok := types.Unalias(t).(*types.Named); ok && w.cfg.RejectType(n) {
			return true
		}
		st = fields.Struct(t)
	}
	return false
}

// CheckDescription returns why jsonschema.For rejects the jsonschema tag
// value d, or "" when it accepts it.
func CheckDescription(d string) string {
	switch {
	case d == "":
		return "empty jsonschema tag: the SDK's schema inference rejects it"
	case disallowedPrefix.MatchString(d):
		return fmt.Sprintf("jsonschema tag %q begins with WORD=, which the SDK's schema inference rejects", d)
	}
	return ""
}

// setTypes makes s's "type" a list, which invopop's single-string Type cannot hold.
func setTypes(s *jsonschema.Schema, types ...string) {
	s.Type = ""
	if s.Extras == nil {
		s.Extras = map[string]any{}
	}
	s.Extras["type"] = types
}

// Types returns s's "type" as a list: one entry, the list set by setTypes, or none.
func Types(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	if ts, ok := s.Extras["type"].([]string); ok {
		return ts
	}
	return nil
}

func num(f float64) json.Number { return json.Number(strconv.FormatFloat(f, 'f', -1, 64)) }

var textMarshaler = types.NewInterfaceType([]*types.Func{
	types.NewFunc(0, nil, "MarshalText", types.NewSignatureType(nil, nil, nil, nil,
		types.NewTuple(
			types.NewParam(0, nil, "", types.NewSlice(types.Typ[types.Byte])),
			types.NewParam(0, nil, "", types.Universe.Lookup("error").Type()),
		), false)),
}, nil).Complete()

// isTextMarshaler reports whether reflect's t.Implements(encoding.TextMarshaler) holds.
func isTextMarshaler(t types.Type) bool { return types.Implements(t, textMarshaler) }

func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}
