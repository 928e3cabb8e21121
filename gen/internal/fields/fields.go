// Package fields computes, for a go/types struct, the two field lists the
// generator must agree with: the members encoding/json decodes (its
// typeFields, with the dominance rules for embedded structs) and the fields
// google/jsonschema-go's inference walks (reflect.VisibleFields). Both are
// ports of the standard library's algorithms from reflect.Type to types.Type.
package fields

import (
	"cmp"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/tools/go/types/typeutil"
)

// Field is one field of a struct or of a struct embedded in it.
type Field struct {
	Var   *types.Var
	Tag   reflect.StructTag
	Index []int // as reflect.StructField.Index: Index[0] is the outermost struct's field

	// Name is the JSON member name for JSON, the Go name for Visible.
	Name   string
	Tagged bool // JSON: the name came from a json tag
}

// Struct returns the struct underlying t, or nil.
func Struct(t types.Type) *types.Struct {
	st, _ := types.Unalias(t).Underlying().(*types.Struct)
	return st
}

// Deref follows one pointer: the type of an embedded *T is T.
func Deref(t types.Type) types.Type {
	if p, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// Visible mirrors reflect.VisibleFields: every field of st and of the
// structs embedded in it that Go's selector rules do not hide, in order,
// each embedded field followed by its promoted fields.
func Visible(st *types.Struct) []Field {
	if out, ok := visibleDirect(st); ok {
		return out
	}
	w := &visibleWalker{byName: map[string]int{}, visiting: map[*types.Struct]bool{}}
	w.walk(st)
	var out []Field
	for _, f := range w.fields {
		if f.Name != "" {
			out = append(out, f)
		}
	}
	return out
}

// visibleDirect returns Visible(st) for a struct without embedded fields or
// blank ones, whose visible fields are its own, all of them: the common
// case, done without the walk's maps.
func visibleDirect(st *types.Struct) ([]Field, bool) {
	for i := range st.NumFields() {
		if v := st.Field(i); v.Embedded() || v.Name() == "_" {
			return nil, false
		}
	}
	out := make([]Field, st.NumFields())
	index := make([]int, st.NumFields())
	for i := range out {
		v := st.Field(i)
		index[i] = i
		out[i] = Field{Var: v, Tag: reflect.StructTag(st.Tag(i)), Index: index[i : i+1 : i+1], Name: v.Name()}
	}
	return out, true
}

type visibleWalker struct {
	byName   map[string]int
	visiting map[*types.Struct]bool
	fields   []Field
	index    []int
}

func (w *visibleWalker) walk(st *types.Struct) {
	if w.visiting[st] {
		return
	}
	w.visiting[st] = true
	for i := range st.NumFields() {
		v := st.Field(i)
		f := Field{Var: v, Tag: reflect.StructTag(st.Tag(i)), Name: v.Name()}
		w.index = append(w.index, i)
		add := true
		if old, ok := w.byName[f.Name]; ok {
			o := &w.fields[old]
			switch {
			case len(w.index) == len(o.Index):
				o.Name = ""
				add = false
			case len(w.index) < len(o.Index):
				o.Name = ""
			default:
				add = false
			}
		}
		if add {
			f.Index = slices.Clone(w.index)
			w.byName[f.Name] = len(w.fields)
			w.fields = append(w.fields, f)
		}
		if v.Embedded() {
			if est := Struct(Deref(v.Type())); est != nil {
				w.walk(est)
			}
		}
		w.index = w.index[:len(w.index)-1]
	}
	delete(w.visiting, st)
}

// JSON mirrors encoding/json's typeFields: the members it decodes into a
// value of struct type st, in its order (by index sequence), after the
// dominance rules for embedded structs.
func JSON(st *types.Struct) []Field {
	type queued struct {
		st    *types.Struct
		key   types.Type
		index []int
	}
	var current []queued
	next := []queued{{st: st, key: st}}
	var count, nextCount typeutil.Map
	var visited typeutil.Map
	var fields []Field

	for len(next) > 0 {
		current, next = next, nil
		count, nextCount = nextCount, typeutil.Map{}
		for _, q := range current {
			if visited.At(q.key) != nil {
				continue
			}
			visited.Set(q.key, true)
			for i := range q.st.NumFields() {
				v := q.st.Field(i)
				tag := reflect.StructTag(q.st.Tag(i))
				if v.Embedded() {
					if !v.Exported() && Struct(Deref(v.Type())) == nil {
						continue
					}
				} else if !v.Exported() {
					continue
				}
				jt := tag.Get("json")
				if jt == "-" {
					continue
				}
				name, _, _ := strings.Cut(jt, ",")
				if !ValidName(name) {
					name = ""
				}
				index := append(slices.Clone(q.index), i)
				ft := v.Type()
				if _, named := types.Unalias(ft).(*types.Named); !named {
					ft = Deref(ft)
				}
				fst := Struct(ft)
				if name != "" || !v.Embedded() || fst == nil {
					f := Field{Var: v, Tag: tag, Index: index, Name: name, Tagged: name != ""}
					if f.Name == "" {
						f.Name = v.Name()
					}
					fields = append(fields, f)
					if n, _ := count.At(q.key).(int); n > 1 {
						fields = append(fields, f)
					}
					continue
				}
				n, _ := nextCount.At(ft).(int)
				nextCount.Set(ft, n+1)
				if n == 0 {
					next = append(next, queued{st: fst, key: ft, index: index})
				}
			}
		}
	}

	slices.SortStableFunc(fields, func(a, b Field) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.Index), len(b.Index)); c != 0 {
			return c
		}
		if a.Tagged != b.Tagged {
			if a.Tagged {
				return -1
			}
			return +1
		}
		return slices.Compare(a.Index, b.Index)
	})
	var out []Field
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].Name == fields[i].Name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) > 1 && len(group[0].Index) == len(group[1].Index) && group[0].Tagged == group[1].Tagged {
			continue // annihilated
		}
		out = append(out, group[0])
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.Index, b.Index) })
	return out
}

// ValidName reports whether encoding/json accepts s as a name in a json tag.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// SchemaInfo mirrors jsonschema-go's fieldJSONInfo: the property name the
// SDK's inference gives a field, whether it leaves the field out, and
// whether the tag's options make the property optional (omitempty or
// omitzero; the SDK requires every other property).
func SchemaInfo(v *types.Var, tag reflect.StructTag) (name string, omit, optional bool) {
	if !v.Exported() {
		return "", true, false
	}
	name = v.Name()
	if jt, ok := tag.Lookup("json"); ok {
		n, rest, found := strings.Cut(jt, ",")
		if n == "-" && !found {
			return "", true, false
		}
		if n != "" {
			name = n
		}
		for o := range strings.SplitSeq(rest, ",") {
			optional = optional || o == "omitempty" || o == "omitzero"
		}
	}
	return name, false, optional
}

// Path names the field at index in st by the embedded fields it is
// promoted through: "Base.ID".
func Path(st *types.Struct, index []int) string {
	var names []string
	for _, i := range index {
		v := st.Field(i)
		names = append(names, v.Name())
		st = Struct(Deref(v.Type()))
	}
	return strings.Join(names, ".")
}
