package mcpfileimpl

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// TestSpecVectors decodes every data: URI in the spec vectors, under the
// x-mcp-file descriptor of the tool or form it belongs to, checks that every
// other URI is refused, and that the SEP's error example is our text. The
// vectors are the SEPs' example JSON, byte for byte, in testdata/spec/vectors
// at the module root.
func TestSpecVectors(t *testing.T) {
	vectorsDir := filepath.Join("..", "..", "testdata", "spec", "vectors")
	// The descriptors the vectors declare, by property name.
	descs := map[string]descriptor.File{}
	var uris []struct{ file, prop, uri string }
	err := filepath.WalkDir(vectorsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		walkJSON(v, "", func(prop string, v any) {
			switch v := v.(type) {
			case map[string]any:
				if x, ok := v["x-mcp-file"]; ok && v["format"] == "uri" {
					raw, _ := json.Marshal(x)
					var d descriptor.File
					if err := json.Unmarshal(raw, &d); err != nil {
						t.Errorf("%s: x-mcp-file of %s: %v", path, prop, err)
					}
					descs[prop] = d
				}
			case string:
				if strings.Contains(v, "://") && !strings.HasPrefix(v, "mcp-file:") || !strings.Contains(v, ":") {
					return
				}
				if strings.HasPrefix(v, "data:") || strings.HasPrefix(v, "mcp-file:") {
					uris = append(uris, struct{ file, prop, uri string }{path, prop, v})
				}
			}
		})
		if strings.HasSuffix(path, "CallToolResult.file-input-too-large.json") {
			var res struct {
				Content []struct{ Text string }
				IsError bool
			}
			json.Unmarshal(b, &res)
			got := (&runtime.Error{Arg: "image", Rule: runtime.RuleMaxSize, Received: 15728640, Limit: 5242880}).Error()
			if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != got {
				t.Errorf("%s: SEP text %q, ours %q", path, res.Content, got)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(uris) < 6 || len(descs) < 3 {
		t.Fatalf("found %d URIs and %d descriptors in the vectors; the walk is broken", len(uris), len(descs))
	}
	for _, u := range uris {
		d := descs[u.prop] // the zero descriptor.File for a bare value
		f, err := decodeURI(u.prop, u.uri, d)
		if strings.HasPrefix(u.uri, "data:") {
			if err != nil {
				t.Errorf("%s: decodeURI(%s, %.40s…, %+v) = %v", u.file, u.prop, u.uri, d, err)
				continue
			}
			tok, _ := json.Marshal(u.uri)
			g, err := decodeJSON(u.prop, tok, d)
			if err != nil || string(g.Bytes()) != string(f.Bytes()) || g.MediaType != f.MediaType {
				t.Errorf("%s: DecodeJSON differs from Decode: %v", u.file, err)
			}
			if err := validateURI(u.prop, u.uri, d); err != nil {
				t.Errorf("%s: Validate = %v", u.file, err)
			}
			switch f.MediaType {
			case "image/png":
				if f.Size() != 70 {
					t.Errorf("%s: PNG of %d bytes, want 70", u.file, f.Size())
				}
			case "text/plain":
				if string(f.Bytes()) != "Hello world!" {
					t.Errorf("%s: text %q", u.file, f.Bytes())
				}
			}
			continue
		}
		if !strings.HasPrefix(u.uri, "mcp-file:") {
			wantRule(t, u.file+": decodeURI("+u.uri+")", err, runtime.RuleScheme)
			continue
		}
		// A file URI: a reference for the transfer layer to resolve, where
		// the field takes uploads.
		if err != nil || !d.AllowsUpload() {
			t.Errorf("%s: decodeURI(%s) = %v, want an unresolved reference (transferModes %v)", u.file, u.uri, err, d.TransferModes)
		} else if _, oerr := f.Open(); oerr == nil {
			t.Errorf("%s: decodeURI(%s) opens before it is resolved", u.file, u.uri)
		}
	}
	if d := descs["document"]; d.MaxSize != 10485760 || len(d.Accept) != 1 {
		t.Errorf("descriptor of document = %+v", d)
	}
	if d := descs["image"]; d.MaxSize != 5242880 || len(d.Accept) != 2 {
		t.Errorf("descriptor of image = %+v", d)
	}
}

// walkJSON calls f for every value in v with the name of the property that
// holds it (array items inherit their array's name).
func walkJSON(v any, prop string, f func(prop string, v any)) {
	f(prop, v)
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "items" {
				k = prop
			}
			walkJSON(e, k, f)
		}
	case []any:
		for _, e := range v {
			walkJSON(e, prop, f)
		}
	}
}
