package runtime

import (
	"reflect"
	"strings"
	"testing"
)

func TestFileProperties(t *testing.T) {
	got, err := fileProperties([]byte(`{"type":"object","properties":{` +
		`"a":{"type":"string","format":"uri","x-mcp-file":{}},` +
		`"b":{"type":["null","array"],"items":{"type":"string","format":"uri","x-mcp-file":{"maxSize":3}}},` +
		`"c":{"type":"array","items":{"type":"string"}},"d":{"type":"string"},` +
		`"e":{"type":"array","maxItems":4,"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/*",".png"],"maxSize":5242880}}},` +
		`"f":{"type":"string","x-mcp-file":null}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fileProp{
		"a": {kind: fileScalar},
		"b": {kind: fileArray, d: Descriptor{MaxSize: 3}},
		"e": {kind: fileArray, d: Descriptor{Accept: []string{"image/*", ".png"}, MaxSize: 5242880}, maxItems: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fileProperties = %+v, want %+v", got, want)
	}
}

func TestFilePropertiesErrors(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"properties":{"a":{"x-mcp-file":true}}}`, "reading the schema's x-mcp-file entries: json: cannot unmarshal bool"},
		{`{"properties":{"a":{"x-mcp-file":{"maxSize":"5MiB"}}}}`, "reading the schema's x-mcp-file entries: json: cannot unmarshal string"},
		{`{"properties":{"a":{"type":"array","maxItems":0,"items":{"x-mcp-file":{}}}}}`, `property "a" is an array of files with maxItems 0: want at least 1`},
		{`{"properties":`, "reading the schema's x-mcp-file entries: unexpected end of JSON input"},
	} {
		_, err := fileProperties([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("fileProperties(%s): error %v, want one with %q", tc.schema, err, tc.want)
		}
	}
}
