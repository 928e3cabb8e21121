package mcpfileimpl

import (
	"strings"
	"sync"
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
)

// The decoding itself is tested through generated types (internal/testtypes,
// gen/internal/fixture); these are the paths only broken generated code
// takes, and what an Object reads from its schema.

// fileSchema returns an object schema whose properties are the given
// members, each a JSON schema.
func fileSchema(props ...string) string {
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg=="
	anyFile   = `{"type":"string","format":"uri","x-mcp-file":{}}`
	anyFiles  = `{"type":"array","items":` + anyFile + `}`
)

func TestObjectTargets(t *testing.T) {
	o := NewObject(fileSchema(`"a":`+anyFile, `"b":`+anyFile, `"c":`+anyFiles), []string{"a", "b", "c"}, []string{"a", "b", "c"})
	var (
		a  runtime.File
		as []runtime.File
		n  int
	)
	for _, tc := range []struct {
		name    string
		targets []Target
		want    string
	}{
		{"too few", []Target{Into(&a)}, "1 targets for 3 file fields"},
		{"not a file field", []Target{Into(&a), {field: &n}, Into(&as)}, `field "b": target *int is not a pointer to a file field`},
		{"bad filename pairing", []Target{Into(&a), {field: &a, names: new([]string)}, Into(&as)}, `field "b": no filename copy from *[]string to *runtime.File`},
		{"slice for a single file", []Target{Into(&as), Into(&a), Into(&as)}, `field "a": target *[]runtime.File is a slice, but the schema's property is a single file`},
		{"single file for an array", []Target{Into(&a), Into(&a), Into(&a)}, `field "c": target *runtime.File is not a slice, but the schema's property is an array of files`},
	} {
		err := o.Unmarshal([]byte(`{"a":"data:,x","b":"data:,y","c":["data:,z"]}`), new(struct{}), tc.targets...)
		if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want an internal error with %q", tc.name, err, tc.want)
		}
	}
}

// TestObjectSchema checks that the constraints come from the schema, and
// that a schema that does not match the file fields stops every decode.
func TestObjectSchema(t *testing.T) {
	schema := fileSchema(
		`"doc":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain"],"maxSize":80}}`,
		`"pics":{"type":"array","maxItems":2,"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png"]}}}`,
		`"raw":`+anyFile,
		`"note":{"type":"string"}`)
	o := NewObject(schema, []string{"doc", "pics", "raw", "note"}, []string{"doc", "pics", "raw"}, "raw")
	decode := func(in string) error {
		var (
			doc  runtime.File
			pics []runtime.File
			raw  string
		)
		return o.Unmarshal([]byte(in), new(struct{}), Into(&doc), Into(&pics), Into(&raw))
	}
	for _, tc := range []struct{ in, want string }{
		{`{"doc":"data:text/plain,` + strings.Repeat("a", 80) + `"}`, ""},
		{`{"doc":"data:text/plain,` + strings.Repeat("a", 81) + `"}`, "Argument 'doc' exceeds maxSize"},
		{`{"doc":"data:text/html,ab"}`, "Argument 'doc' has a media type that accept does not allow"},
		{`{"pics":["data:,a","data:,b","data:,c"]}`, "Argument 'pics' exceeds maxFiles: received 3 files, limit is 2."},
		{`{"pics":["data:text/plain,a"]}`, "Argument 'pics[0]' has a media type that accept does not allow"},
		// NoSniff: PNG bytes declared as text pass; without it they fail.
		{`{"raw":"data:text/plain;base64,` + pngBase64 + `"}`, ""},
		{`{"doc":"data:text/plain;base64,` + pngBase64 + `"}`, "Argument 'doc' fails the content check"},
	} {
		err := decode(tc.in)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}

	for _, tc := range []struct {
		name string
		o    *Object
		want string
	}{
		{"not JSON", NewObject(`{"properties":`, []string{"a"}, []string{"a"}), "unexpected end of JSON input"},
		{"file without x-mcp-file", NewObject(fileSchema(`"a":{"type":"string"}`), []string{"a"}, []string{"a"}), `file field "a" has no x-mcp-file in the schema`},
		{"x-mcp-file not a file field", NewObject(fileSchema(`"a":`+anyFile, `"c":`+anyFile, `"b":`+anyFile), []string{"a", "b", "c"}, []string{"a"}), `schema property "b" has x-mcp-file but is not a file field`}, // the first by name,
		{"NoSniff of no file", NewObject(fileSchema(`"a":`+anyFile+`,"z":{"type":"string"}`), []string{"a"}, []string{"a"}, "b"), `NoSniff names "b", which is not a file property`},
	} {
		var a runtime.File
		for range 2 { // the error stays
			err := tc.o.Unmarshal([]byte(`{"a":"data:,x"}`), new(struct{}), Into(&a))
			if err == nil || !strings.Contains(err.Error(), "mcpfile: internal error") || !strings.Contains(err.Error(), tc.want) ||
				!strings.HasSuffix(err.Error(), ": run go generate") {
				t.Errorf("%s: error %v, want an internal error with %q", tc.name, err, tc.want)
			}
		}
	}
}

// TestObjectConcurrentFirstUse has the first decodes of an Object race to
// read its schema (run with -race).
func TestObjectConcurrentFirstUse(t *testing.T) {
	o := NewObject(fileSchema(`"a":{"type":"string","format":"uri","x-mcp-file":{"maxSize":1}}`), []string{"a"}, []string{"a"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var a runtime.File
			if err := o.Unmarshal([]byte(`{"a":"data:,xy"}`), new(struct{}), Into(&a)); err == nil || !strings.Contains(err.Error(), "exceeds maxSize") {
				t.Errorf("error %v, want maxSize exceeded", err)
			}
		})
	}
	wg.Wait()
}

func TestObjectNames(t *testing.T) {
	o := NewObject(fileSchema(`"one":`+anyFile, `"opt":`+anyFile, `"many":`+anyFiles, `"absent":`+anyFile),
		[]string{"one", "opt", "many", "absent"}, []string{"one", "opt", "many", "absent"})
	var (
		one, absent         runtime.File
		opt                 *runtime.File
		many                []runtime.File
		oneName, absentName = "../one.txt", "absent.txt"
		optName             = ""
		manyNames           = []string{"a.txt", "", "c\x00.txt"}
	)
	err := o.Unmarshal([]byte(`{"one":"data:,1","opt":"data:,2","many":["data:,a","data:,b","data:,c","data:,d"]}`), new(struct{}),
		IntoNamed(&one, &oneName), IntoNamed(&opt, &optName), IntoNamed(&many, &manyNames), IntoNamed(&absent, &absentName))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{one.Name, opt.Name, many[0].Name, many[1].Name, many[2].Name, many[3].Name, absent.Name}
	want := []string{"one.txt", "", "a.txt", "", runtime.SanitizeName("c\x00.txt"), "", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("names %q, want %q", got, want)
	}
}
