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

func TestForms(t *testing.T) {
	s, err := Parse([]byte(`{"type":"object","properties":{
		"a":{"type":"object","format":"file","x-mcpfile-form":{"form":"filedata","accept":["image/png"],"maxSize":100}},
		"b":{"type":"array","items":{"type":"object","format":"file","x-mcpfile-form":{"form":"filedata"}},"maxItems":2},
		"c":{"type":"object","x-mcpfile-form":{"form":"openai","maxSize":5}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := s.Props["a"], s.Props["b"], s.Props["c"]
	if a == nil || a.Kind != Single || a.File.Form != FileData || a.File.MaxSize != 100 || !a.File.Accepts("image/png") || a.File.Accepts("image/gif") {
		t.Errorf("a = %+v", a)
	}
	if b == nil || b.Kind != Array || b.File.Form != FileData || b.MaxItems != 2 {
		t.Errorf("b = %+v", b)
	}
	if c == nil || c.File.Form != OpenAI || c.Want() != "a file object {download_url, file_id}" || b.Want() != "an array of FileData objects {fileName, mimeType, base64}" {
		t.Errorf("c = %+v, wants %q %q", c, c.Want(), b.Want())
	}
	for _, bad := range []string{
		`{"properties":{"a":{"x-mcpfile-form":{"form":"FileData"}}}}`,
		`{"properties":{"a":{"x-mcp-file":{},"x-mcpfile-form":{"form":"filedata"}}}}`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) succeeded", bad)
		}
	}
}
