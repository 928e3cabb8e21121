package fields_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/types"
	"maps"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"golang.org/x/tools/go/packages"

	"github.com/mcpfile/mcpfile/gen/internal/fields"
	"github.com/mcpfile/mcpfile/gen/internal/fields/internal/fx"
)

// structs loads package fx with go/types and returns its struct types by name.
func structs(t *testing.T) map[string]*types.Struct {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Context: context.Background(), Mode: packages.NeedName | packages.NeedTypes, Dir: "internal/fx"}, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading fx: %v %v", err, pkgs)
	}
	out := map[string]*types.Struct{}
	for name := range fx.All() {
		obj := pkgs[0].Types.Scope().Lookup(name)
		if obj == nil {
			t.Fatalf("fx has no type %s", name)
		}
		out[name] = fields.Struct(obj.Type())
	}
	return out
}

// TestVisible compares Visible with reflect.VisibleFields, which it ports.
func TestVisible(t *testing.T) {
	sts := structs(t)
	for _, name := range slices.Sorted(maps.Keys(fx.All())) {
		var want []string
		for _, f := range reflect.VisibleFields(reflect.TypeOf(fx.All()[name])) {
			want = append(want, fmt.Sprint(f.Name, f.Index))
		}
		var got []string
		for _, f := range fields.Visible(sts[name]) {
			got = append(got, fmt.Sprint(f.Name, f.Index))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: Visible = %v, want (reflect.VisibleFields) %v", name, got, want)
		}
	}
}

// TestJSON compares JSON with the members encoding/json writes for a value
// whose every field is set, in their order: its typeFields, which JSON
// ports, gives both the members it writes and those it decodes.
func TestJSON(t *testing.T) {
	sts := structs(t)
	for _, name := range slices.Sorted(maps.Keys(fx.All())) {
		v := reflect.New(reflect.TypeOf(fx.All()[name])).Elem()
		fill(v, 0)
		b, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		want := members(t, b)
		var got []string
		for _, f := range fields.JSON(sts[name]) {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: JSON = %q, want (encoding/json, %s) %q", name, got, b, want)
		}
	}
}

// fill sets every field of v, unexported embedded structs' included, to a
// value that is not zero, allocating what pointers point to (to a depth, for
// types that embed themselves).
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			fill(f, depth)
		}
	case reflect.Pointer:
		if depth < 3 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), depth+1)
		}
	case reflect.String:
		v.SetString("s")
	case reflect.Int:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// members returns the member names of the JSON object b, in order.
func members(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var names []string
	dec.Token() // {
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{
		"id": true, "ünï": true, "a-b.c": true, "with space": true, "x$%&": true,
		"": false, `q"uote`: false, `back\slash`: false, "comma,": false, "\x00": false,
	} {
		if got := fields.ValidName(s); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", s, got, want)
		}
	}
}
