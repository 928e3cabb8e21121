package schema

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/gen/model"
	"github.com/mcpfile/mcpfile/gen/schema/internal/fixture"
)

// sameAsInvopop fails t when marshal does not give the bytes of invopop's
// MarshalJSON for s.
func sameAsInvopop(t *testing.T, name string, s *jsonschema.Schema) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("%s: invopop: %v", name, err)
	}
	got, err := marshal(s)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	if string(got) != string(want) {
		t.Errorf("%s: marshal gives\n%s\ninvopop\n%s", name, got, want)
	}
}

// TestMarshal compares marshal with invopop on the schema of every type of
// the test packages, and on schemas with every keyword marshal writes.
func TestMarshal(t *testing.T) {
	for dir, names := range map[string][]string{
		"internal/fixture":   slices.Sorted(maps.Keys(fixture.Named())),
		"testdata/mod/files": nil, // the types with mcpfile tags
	} {
		pkgs, err := load.Packages(context.Background(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := model.Build(pkgs[0], names)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Types) < 3 {
			t.Fatalf("%s: %d types", dir, len(p.Types))
		}
		for _, ty := range p.Types {
			s, err := Build(p, ty)
			if err != nil {
				t.Fatal(err)
			}
			sameAsInvopop(t, dir+"."+ty.Name, s)
		}
	}

	one, two := uint64(1), uint64(2)
	props := jsonschema.NewProperties()
	props.Set("a", &jsonschema.Schema{Type: "string"})
	props.Set("<b>", jsonschema.TrueSchema)
	props.Set("ü\u2028", &jsonschema.Schema{})
	for name, s := range map[string]*jsonschema.Schema{
		"empty":          {},
		"empty extras":   {Extras: map[string]any{}},
		"empty required": {Required: []string{}},
		"empty props":    {Properties: jsonschema.NewProperties()},
		"true":           jsonschema.TrueSchema,
		"false":          jsonschema.FalseSchema,
		"extras alone":   {Extras: map[string]any{"type": []string{"null", "array"}, "x-mcp-file": descriptor{}}},
		"every keyword": {
			Items: &jsonschema.Schema{Type: "integer", Minimum: "0", Maximum: "255"}, Properties: props,
			AdditionalProperties: jsonschema.FalseSchema, Type: "object", MaxItems: &two, MinItems: &one,
			Required: []string{"a", "<b>"}, Format: "uri", Description: "a \"quoted\" <b>&</b> line\nbreak\t\x01 \u2028 é \xff",
			Extras: map[string]any{"x-mcp-file": descriptor{Accept: []string{"image/*", ".png"}, MaxSize: 5, TransferModes: []string{"inline", "upload"}}, "x-other": map[string]int{"n": 1}, "a": 1.5},
		},
		"transfer modes alone": {Extras: map[string]any{"x-mcp-file": descriptor{TransferModes: []string{"upload"}}}},
		"form alone":           {Extras: map[string]any{"x-mcpfile-form": formDescriptor{Form: "openai"}}},
		"form and constraints": {Type: "object", Format: "file", Extras: map[string]any{
			"x-mcpfile-form": formDescriptor{Form: "filedata", Accept: []string{"image/*", ".png", "<b>&"}, MaxSize: 1 << 53},
			"x-mcp-file":     descriptor{MaxSize: 7},
		}},
		"form maxSize alone": {Extras: map[string]any{"x-mcpfile-form": formDescriptor{Form: "filedata", MaxSize: 5}}},
	} {
		sameAsInvopop(t, name, s)
	}
}

func TestMarshalUnsupported(t *testing.T) {
	for _, s := range []*jsonschema.Schema{
		{Ref: "#/$defs/x"},
		{Type: "string", Enum: []any{"a"}},
		{Items: &jsonschema.Schema{Title: "t"}},
	} {
		if _, err := marshal(s); err == nil || !strings.Contains(err.Error(), "cannot marshal keyword") {
			t.Errorf("marshal(%+v): error %v, want one naming the keyword", s, err)
		}
	}
}

// FuzzMarshal compares marshal with invopop on the strings a schema carries.
func FuzzMarshal(f *testing.F) {
	f.Add("description", "name", "uri", "image/png")
	f.Add("<script>&amp;\u2028\u2029", "\x00\xff", "", "\"\\")
	f.Fuzz(func(t *testing.T, desc, key, format, accept string) {
		props := jsonschema.NewProperties()
		props.Set(key, &jsonschema.Schema{Type: "string", Format: format, Description: desc,
			Extras: map[string]any{"x-mcp-file": descriptor{Accept: []string{accept}}}})
		sameAsInvopop(t, "fuzz", &jsonschema.Schema{Type: "object", Properties: props, Required: []string{key}, Description: desc})
	})
}
