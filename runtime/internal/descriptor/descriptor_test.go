package descriptor

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	got, err := Parse([]byte(`{"type":"object","properties":{` +
		`"a":{"type":"string","format":"uri","x-mcp-file":{}},` +
		`"b":{"type":["null","array"],"items":{"type":"string","format":"uri","x-mcp-file":{"maxSize":3}}},` +
		`"c":{"type":"array","items":{"type":"string"}},"d":{"type":"string"},` +
		`"e":{"type":"array","maxItems":4,"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/*",".png"],"maxSize":5242880}}},` +
		`"f":{"type":"string","x-mcp-file":null},"g":true,"h":{"type":["null","array"],"items":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &Schema{Props: map[string]*Prop{
		"a": {Name: "a", Kind: Single},
		"b": {Name: "b", Kind: Array, File: File{MaxSize: 3}},
		"e": {Name: "e", Kind: Array, File: File{Accept: []string{"image/*", ".png"}, MaxSize: 5242880}, MaxItems: 4},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fileProperties = %+v, want %+v", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"properties":{"a":{"x-mcp-file":true}}}`, "reading the schema's x-mcp-file entries: json: cannot unmarshal bool"},
		{`{"properties":{"a":{"x-mcp-file":{"maxSize":"5MiB"}}}}`, "reading the schema's x-mcp-file entries: json: cannot unmarshal string"},
		{`{"properties":{"a":{"type":"array","maxItems":0,"items":{"x-mcp-file":{}}}}}`, `property "a" is an array of files with maxItems 0: want at least 1`},
		{`{"properties":`, "reading the schema's x-mcp-file entries: unexpected end of JSON input"},
	} {
		_, err := Parse([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s): error %v, want one with %q", tc.schema, err, tc.want)
		}
	}
}
