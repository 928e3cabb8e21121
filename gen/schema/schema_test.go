package schema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/gen/model"
	"github.com/mcpfile/mcpfile/gen/schema"
	"github.com/mcpfile/mcpfile/gen/schema/internal/fixture"
	"github.com/mcpfile/mcpfile/internal/testmod"
)

// TestMain: testdata holds modules of their own (see testmod.Main).
func TestMain(m *testing.M) { testmod.Main(m) }

// build loads the package in dir and runs the model and schema phases on
// the named types.
func build(t *testing.T, dir string, names []string) map[string]*model.Type {
	t.Helper()
	pkgs, err := load.Packages(context.Background(), dir, nil)
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	p, err := model.Build(pkgs[0], names)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if err := schema.Apply(p); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	types := map[string]*model.Type{}
	for _, ty := range p.Types {
		types[ty.Name] = ty
	}
	return types
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return m
}

// propertyOrder returns the keys of the top-level "properties" object of
// the schema b, in their order in b.
func propertyOrder(t *testing.T, b []byte) []string {
	t.Helper()
	var s struct{ Properties json.RawMessage }
	if err := json.Unmarshal(b, &s); err != nil || s.Properties == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	var keys []string
	dec.Token() // {
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fileShapes are the wanted schemas of fixture.Files' file fields.
var fileShapes = map[string]string{
	"uri":   `{"type":"string","format":"uri","description":"The image.","x-mcp-file":{"accept":["image/png","image/jpeg"],"maxSize":5242880}}`,
	"puri":  `{"type":"string","format":"uri","x-mcp-file":{"accept":[".pdf"]}}`,
	"uris":  `{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/*"],"maxSize":1000}},"maxItems":3,"minItems":1}`,
	"photo": `{"type":"string","format":"uri","x-mcp-file":{"accept":["image/*"]}}`,
	"doc":   `{"type":"string","format":"uri","x-mcp-file":{}}`,
	"Files": `{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{}},"minItems":1}`,
}

// TestParity checks that, field by field, the generated schema of every
// fixture type is what the SDK infers for it with jsonschema.For, except
// for the file fields and the type's doc comment.
func TestParity(t *testing.T) {
	named := fixture.Named()
	types := build(t, "internal/fixture", slices.Sorted(maps.Keys(named)))
	for _, name := range slices.Sorted(maps.Keys(named)) {
		t.Run(name, func(t *testing.T) {
			ty := types[name]
			if ty == nil {
				t.Fatalf("type %s not built", name)
			}
			sdk, err := jsonschema.ForType(reflect.TypeOf(named[name]), nil)
			if err != nil {
				t.Fatalf("jsonschema.For: %v", err)
			}
			sdkJSON, err := json.Marshal(sdk)
			if err != nil {
				t.Fatal(err)
			}
			want, got := decode(t, sdkJSON), decode(t, ty.Schema)

			if d, _ := got["description"].(string); d != ty.Doc {
				t.Errorf("description = %q, want the doc comment %q", d, ty.Doc)
			}
			delete(got, "description")

			if w, g := propertyOrder(t, sdkJSON), propertyOrder(t, ty.Schema); !slices.Equal(w, g) {
				t.Errorf("property order = %q, want %q", g, w)
			}
			wp, _ := want["properties"].(map[string]any)
			gp, _ := got["properties"].(map[string]any)
			for _, f := range ty.Files() {
				shape, ok := fileShapes[f.JSONName]
				if !ok {
					t.Errorf("file field %s has no wanted shape", f.JSONName)
					continue
				}
				if g := mustJSON(gp[f.JSONName]); g != mustJSON(decode(t, []byte(shape))) {
					t.Errorf("file field %s = %s, want %s", f.JSONName, g, shape)
				}
				delete(wp, f.JSONName)
				delete(gp, f.JSONName)
			}
			for _, k := range slices.Sorted(maps.Keys(wp)) {
				if !reflect.DeepEqual(gp[k], wp[k]) {
					t.Errorf("property %q = %s, want %s", k, mustJSON(gp[k]), mustJSON(wp[k]))
				}
			}
			for k := range gp {
				if _, ok := wp[k]; !ok {
					t.Errorf("extra property %q = %s", k, mustJSON(gp[k]))
				}
			}
			delete(want, "properties")
			delete(got, "properties")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("schema without properties = %s, want %s", mustJSON(got), mustJSON(want))
			}
		})
	}
}

func TestFlat(t *testing.T) {
	named := fixture.Named()
	types := build(t, "internal/fixture", slices.Sorted(maps.Keys(named)))
	for name, want := range map[string]bool{
		"Flat": true, "Empty": true, "Scalars": true, "Base": true,
		"NotFlatPointer": false, "NotFlatSlice": false, "NotFlatAny": false, "PromotedFlat": true,
		"Nested": false, "Files": false, "OnlyUnexported": true,
	} {
		if got := types[name].Flat; got != want {
			t.Errorf("%s.Flat = %v, want %v (schema %s)", name, got, want, types[name].Schema)
		}
	}
}

// specVectors is the SEPs' example JSON, in testdata/spec/vectors at the
// module root.
var specVectors = filepath.Join("..", "..", "testdata", "spec", "vectors")

// TestDescribeImage checks the SEP's describe_image tool: its inputSchema,
// plus additionalProperties false.
func TestDescribeImage(t *testing.T) {
	vec, err := os.ReadFile(filepath.Join(specVectors, "sep2356-final", "tool-describe-image.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tool struct{ InputSchema map[string]any }
	if err := json.Unmarshal(vec, &tool); err != nil {
		t.Fatal(err)
	}
	tool.InputSchema["additionalProperties"] = false

	ty := build(t, "testdata/mod/files", []string{"DescribeImage"})["DescribeImage"]
	if got := decode(t, ty.Schema); !reflect.DeepEqual(got, tool.InputSchema) {
		t.Errorf("schema = %s, want %s", ty.Schema, mustJSON(tool.InputSchema))
	}
	if !ty.Flat {
		t.Errorf("DescribeImage is not Flat")
	}
}

// TestTransferModes checks SEP-2631's tools whose file inputs declare
// transferModes, one on a property and one on an array's items: their
// inputSchemas, plus additionalProperties false, and without the type's
// doc comment.
func TestTransferModes(t *testing.T) {
	types := build(t, "testdata/mod/files", []string{"AnalyzeDocument", "CompareDocuments"})
	for name, vector := range map[string]string{
		"AnalyzeDocument":  "tool-analyze-document-transfer-modes.json",
		"CompareDocuments": "tool-compare-documents-array-items.json",
	} {
		vec, err := os.ReadFile(filepath.Join(specVectors, "sep2631-final", vector))
		if err != nil {
			t.Fatal(err)
		}
		var tool struct{ InputSchema map[string]any }
		if err := json.Unmarshal(vec, &tool); err != nil {
			t.Fatal(err)
		}
		tool.InputSchema["additionalProperties"] = false

		got := decode(t, types[name].Schema)
		delete(got, "description")
		if !reflect.DeepEqual(got, tool.InputSchema) {
			t.Errorf("%s schema = %s, want %s (%s)", name, types[name].Schema, mustJSON(tool.InputSchema), vector)
		}
	}
}

// TestFormsValidate checks that the arguments the hosts send for files
// with a form validate against the generated schema, as a host validates
// them, and that a data: URI and objects without a member the host always
// sends do not.
func TestFormsValidate(t *testing.T) {
	types := build(t, "testdata/mod/files", []string{"FileDataInput", "OpenAIInput"})
	fileData := `{"fileName":"report.pdf","mimeType":"application/pdf","base64":"JVBERi0=","size":248123,"lastModified":"2026-04-20T18:30:00Z"}`
	chatGPT := `{"download_url":"https://files.example.com/f","file_id":"file_1","mime_type":"image/png","file_name":"a.png"}`
	for _, tt := range []struct {
		typ, args string
		ok        bool
	}{
		{"FileDataInput", `{"report":` + fileData + `}`, true},
		{"FileDataInput", `{"report":{"fileName":"a","mimeType":"text/plain","base64":""},"pages":[` + fileData + `,` + fileData + `]}`, true},
		{"FileDataInput", `{"report":{"fileName":"a","mimeType":"text/plain","base64":"","extra":1}}`, false}, // a FileData object has no other member
		{"OpenAIInput", `{"image":{"download_url":"https://x","file_id":"f","added":1},"note":""}`, true},     // a ChatGPT file object may
		{"FileDataInput", `{"report":"data:text/plain;base64,aGk="}`, false},
		{"FileDataInput", `{"report":{"fileName":"a","mimeType":"text/plain"}}`, false},
		{"FileDataInput", `{"report":{"fileName":"a","mimeType":"text/plain","base64":"","size":-1}}`, false},
		{"FileDataInput", `{"report":` + fileData + `,"pages":[` + fileData + `]}`, false},
		{"OpenAIInput", `{"image":` + chatGPT + `,"note":""}`, true},
		{"OpenAIInput", `{"image":{"download_url":"https://x","file_id":"f"},"mask":{"download_url":"https://x","file_id":"g"},"note":""}`, true},
		{"OpenAIInput", `{"image":"chat_upload","note":""}`, false},
		{"OpenAIInput", `{"image":{"download_url":"https://x"},"note":""}`, false},
	} {
		var s jsonschema.Schema
		if err := json.Unmarshal(types[tt.typ].Schema, &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: Resolve: %v", tt.typ, err)
		}
		var args any
		if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(args); (err == nil) != tt.ok {
			t.Errorf("%s: Validate(%s) = %v, want valid %v", tt.typ, tt.args, err, tt.ok)
		}
	}
}

// TestSchemaBytes pins the exact output for the runtime.File kinds and for
// doc comments as descriptions.
func TestSchemaBytes(t *testing.T) {
	types := build(t, "testdata/mod/files", []string{"AnalyzeDocument", "CompareDocuments", "CompareInput", "DescribeImage", "Documented", "FileDataInput", "OpenAIInput"})
	tests := []struct {
		name string
		want string
		flat bool
	}{
		{"DescribeImage",
			`{"properties":{"image":{"type":"string","format":"uri","description":"The image to describe.","x-mcp-file":{"accept":["image/png","image/jpeg"],"maxSize":5242880}}},"additionalProperties":false,"type":"object","required":["image"]}`,
			true},
		{"AnalyzeDocument",
			`{"properties":{"document":{"type":"string","format":"uri","description":"The document to analyze.","x-mcp-file":{"accept":["application/pdf"],"maxSize":10485760,"transferModes":["inline","upload"]}}},"additionalProperties":false,"type":"object","required":["document"],"description":"AnalyzeDocument is SEP-2631's analyze_document tool."}`,
			true},
		{"CompareDocuments",
			`{"properties":{"documents":{"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["application/pdf","text/plain"],"maxSize":10485760,"transferModes":["upload"]}},"type":"array","minItems":2}},"additionalProperties":false,"type":"object","required":["documents"],"description":"CompareDocuments is SEP-2631's compare_documents tool, with the transfer modes on the array's items."}`,
			false},
		{"CompareInput",
			`{"properties":{` +
				`"documents":{"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["application/pdf","text/plain"],"maxSize":10485760}},"type":"array","maxItems":5,"minItems":1,"description":"Documents to compare, two to five PDFs or text files."},` +
				`"first_name":{"type":"string","description":"Original file name of the first document, as the user picked it."},` +
				`"cover":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/*"],"maxSize":524288}},` +
				`"cover_name":{"type":"string"},` +
				`"detail":{"type":"string","description":"how much detail to give"},` +
				`"any":{"items":{"type":"string","format":"uri","x-mcp-file":{}},"type":"array","minItems":1}},` +
				`"additionalProperties":false,"type":"object","required":["documents","any"],"description":"CompareInput is the input of the compare_documents tool."}`,
			false},
		{"Documented",
			`{"properties":{` +
				`"photo":{"type":"string","format":"uri","description":"The photo.","x-mcp-file":{}},` +
				`"count":{"type":"integer","description":"how many"},` +
				`"when":{"type":"string","description":"When it was taken."},` +
				`"where":{"properties":{"lat":{"type":"number","description":"Latitude in degrees."},"lon":{"type":"number","description":"longitude"}},"additionalProperties":false,"type":"object","required":["lat","lon"],"description":"Where it was taken."},` +
				`"author":{"type":"string","description":"Who took it."},` +
				`"notes":{"type":"string","description":"Notes on it, \u003cb\u003ebold\u003c/b\u003e \u0026 plain, escaped for HTML as encoding/json does."}},` +
				`"additionalProperties":false,"type":"object","required":["count","when","where"],` +
				`"description":"Documented shows doc comments becoming descriptions, down nested and embedded structs of this package."}`,
			false},
		{"FileDataInput",
			`{"properties":{` +
				`"report":{"properties":{"fileName":{"type":"string"},"mimeType":{"type":"string"},"base64":{"type":"string"},"size":{"type":"integer","minimum":0},"lastModified":{"type":"string"}},"additionalProperties":false,"type":"object","required":["fileName","mimeType","base64"],"format":"file","description":"The report to read.","x-mcpfile-form":{"form":"filedata","accept":["application/pdf","text/plain"],"maxSize":10485760}},` +
				`"pages":{"items":{"properties":{"fileName":{"type":"string"},"mimeType":{"type":"string"},"base64":{"type":"string"},"size":{"type":"integer","minimum":0},"lastModified":{"type":"string"}},"additionalProperties":false,"type":"object","required":["fileName","mimeType","base64"],"format":"file","x-mcpfile-form":{"form":"filedata","accept":["image/*"]}},"type":"array","maxItems":5,"minItems":2,"description":"Pages to read them from, two to five."},` +
				`"any":{"properties":{"fileName":{"type":"string"},"mimeType":{"type":"string"},"base64":{"type":"string"},"size":{"type":"integer","minimum":0},"lastModified":{"type":"string"}},"additionalProperties":false,"type":"object","required":["fileName","mimeType","base64"],"format":"file","x-mcpfile-form":{"form":"filedata"}}},` +
				`"additionalProperties":false,"type":"object","required":["report"],"description":"FileDataInput takes its files as Odeus FileData objects."}`,
			false},
		{"OpenAIInput",
			`{"properties":{` +
				`"image":{"properties":{"download_url":{"type":"string"},"file_id":{"type":"string"},"mime_type":{"type":"string"},"file_name":{"type":"string"}},"type":"object","required":["download_url","file_id"],"description":"The image to describe.","x-mcpfile-form":{"form":"openai","accept":["image/png","image/jpeg"],"maxSize":5242880}},` +
				`"mask":{"properties":{"download_url":{"type":"string"},"file_id":{"type":"string"},"mime_type":{"type":"string"},"file_name":{"type":"string"}},"type":"object","required":["download_url","file_id"],"x-mcpfile-form":{"form":"openai"}},` +
				`"note":{"type":"string"}},` +
				`"additionalProperties":false,"type":"object","required":["image","note"],"description":"OpenAIInput takes its files as ChatGPT file objects (openai/fileParams)."}`,
			false},
	}
	for _, tt := range tests {
		ty := types[tt.name]
		if got := string(ty.Schema); got != tt.want {
			t.Errorf("%s schema =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
		if ty.Flat != tt.flat {
			t.Errorf("%s.Flat = %v, want %v", tt.name, ty.Flat, tt.flat)
		}
	}
}

// TestKeys checks Type.Keys against the member order encoding/json writes
// for a value without omitted fields.
func TestKeys(t *testing.T) {
	named := fixture.Named()
	types := build(t, "internal/fixture", slices.Sorted(maps.Keys(named)))
	for name, v := range map[string]any{
		"Dominance": fixture.Dominance{A2: &fixture.A2{}},
		"Scalars":   fixture.Scalars{},
		"Dup":       fixture.Dup{Base: fixture.Base{Note: "n"}},
		"Layers":    fixture.Layers{Deeper: fixture.Deeper{Base: fixture.Base{Note: "n"}}, Top: true},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token()
		for dec.More() {
			k, _ := dec.Token()
			want = append(want, k.(string))
			var raw json.RawMessage
			dec.Decode(&raw)
		}
		if got := types[name].Keys; !slices.Equal(got, want) {
			t.Errorf("%s.Keys = %q, want %q", name, got, want)
		}
	}
}
