package transfer

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"testing"
)

// fuzzDecode decodes b into generic values, numbers kept as written.
func fuzzDecode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// fuzzMembers returns v's members when v is a JSON object.
func fuzzMembers(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// fuzzWithout returns a copy of m without key.
func fuzzWithout(m map[string]any, key string) map[string]any {
	c := maps.Clone(m)
	delete(c, key)
	return c
}

// FuzzKeepFiles: keepFiles never panics, and when it rewrites a message
// the result is a valid initialize request whose
// capabilities.experimental.files is the input's capabilities.files, with
// every other member, at every level, as it was.
func FuzzKeepFiles(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"files":{"upload":true,"download":true,"transports":["https"]}},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":{"x":{"y":1e400}}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":{"files":{"download":false}}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":[]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"files":{"upload":true}}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"capabilities":{"files":{}}}}`,
		`{"method":"initialize","params":null}`,
		`[{"method":"initialize","params":{"capabilities":{"files":{}}}}]`,
		`{"method":"initialize","params":{"capabilities":{"files":"<&>\u2028"}},"id":1.0}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":nulL}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":null}}}`,
		`not json`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		out, ok := keepFiles(msg)
		if !ok {
			return
		}
		in, err := fuzzDecode(msg)
		if err != nil {
			t.Fatalf("keepFiles(%q) rewrote input that is not JSON", msg)
		}
		got, err := fuzzDecode(out)
		if err != nil {
			t.Fatalf("keepFiles(%q) = %q, not JSON: %v", msg, out, err)
		}
		inTop, _ := fuzzMembers(in)
		outTop, ok := fuzzMembers(got)
		if !ok || outTop["method"] != "initialize" {
			t.Fatalf("keepFiles(%q) = %q, not an initialize request", msg, out)
		}
		if !reflect.DeepEqual(fuzzWithout(inTop, "params"), fuzzWithout(outTop, "params")) {
			t.Fatalf("keepFiles(%q) = %q: top-level members changed", msg, out)
		}
		inParams, _ := fuzzMembers(inTop["params"])
		outParams, ok := fuzzMembers(outTop["params"])
		if !ok || !reflect.DeepEqual(fuzzWithout(inParams, "capabilities"), fuzzWithout(outParams, "capabilities")) {
			t.Fatalf("keepFiles(%q) = %q: params changed", msg, out)
		}
		inCaps, _ := fuzzMembers(inParams["capabilities"])
		outCaps, ok := fuzzMembers(outParams["capabilities"])
		if !ok || !reflect.DeepEqual(fuzzWithout(inCaps, "experimental"), fuzzWithout(outCaps, "experimental")) {
			t.Fatalf("keepFiles(%q) = %q: capabilities changed", msg, out)
		}
		inExp, _ := fuzzMembers(inCaps["experimental"])
		outExp, ok := fuzzMembers(outCaps["experimental"])
		if !ok {
			t.Fatalf("keepFiles(%q) = %q: capabilities.experimental is not an object", msg, out)
		}
		if _, had := inExp["files"]; had {
			t.Fatalf("keepFiles(%q) = %q: overwrote experimental.files", msg, out)
		}
		if !reflect.DeepEqual(inExp, fuzzWithout(outExp, "files")) && !(inExp == nil && len(outExp) == 1) {
			t.Fatalf("keepFiles(%q) = %q: other experimental members changed", msg, out)
		}
		if !reflect.DeepEqual(outExp["files"], inCaps["files"]) {
			t.Fatalf("keepFiles(%q) = %q: experimental.files %v, want capabilities.files %v", msg, out, outExp["files"], inCaps["files"])
		}
	})
}
