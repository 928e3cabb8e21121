package conform

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadField: the keyword's shape as SEP-2356 §1 gives it, and what is
// malformed about the shapes it does not allow.
func TestReadField(t *testing.T) {
	for _, tt := range []struct {
		schema   string
		ok       bool
		array    bool
		problems []string
	}{
		{`{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png"],"maxSize":5}}`, true, false, nil},
		{`{"type":"string","format":"uri","x-mcp-file":{}}`, true, false, nil},
		{`{"type":"array","maxItems":3,"items":{"type":"string","format":"uri","x-mcp-file":{}}}`, true, true, nil},
		{`{"type":"string"}`, false, false, nil},
		{`{"type":"string","x-mcp-file":{}}`, true, false, []string{`no "format": "uri"`}},
		{`{"type":"object","format":"uri","x-mcp-file":{}}`, true, false, []string{`not of "type": "string"`}},
		{`{"type":"array","x-mcp-file":{},"items":{"type":"string","format":"uri"}}`, true, false, []string{"on the array, not on its items"}},
		{`{"type":"string","format":"uri","x-mcp-file":{"maxSize":-1}}`, true, false, []string{"maxSize is not a non-negative integer"}},
		{`{"type":"string","format":"uri","x-mcp-file":{"maxSize":1.5}}`, true, false, []string{"maxSize is not a non-negative integer"}},
		{`{"type":"string","format":"uri","x-mcp-file":{"accept":"image/png"}}`, true, false, []string{"accept is not a list of strings"}},
		{`{"type":"string","format":"uri","x-mcp-file":{"accept":["png"]}}`, true, false, []string{`accept entry "png" is neither`}},
		{`{"type":"string","format":"uri","x-mcp-file":{"name":"x"}}`, true, false, []string{`the member "name"`}},
		{`{"type":"string","format":"uri","x-mcp-file":true}`, true, false, []string{"not an object"}},
	} {
		f, ok := readField("t", "f", json.RawMessage(tt.schema))
		if ok != tt.ok || f.array != tt.array || len(f.problems) != len(tt.problems) {
			t.Errorf("readField(%s) = ok %v, array %v, problems %q; want %v, %v, %q", tt.schema, ok, f.array, f.problems, tt.ok, tt.array, tt.problems)
			continue
		}
		for i, p := range tt.problems {
			if !strings.Contains(f.problems[i], p) {
				t.Errorf("readField(%s) problem %q, want %q", tt.schema, f.problems[i], p)
			}
		}
	}
}

// TestMatches: accept matching compares type/subtype only,
// case-insensitively, with type/* wildcards, ignoring extensions.
func TestMatches(t *testing.T) {
	f := field{hasAccept: true, accept: []string{"image/PNG", "text/*", ".pdf"}}
	for mt, want := range map[string]bool{
		"image/png": true, "IMAGE/png;x=1": true, "text/markdown": true,
		"application/pdf": false, "image/jpeg": false, "textual/plain": false,
	} {
		if got := f.matches(mt); got != want {
			t.Errorf("matches(%q) = %v, want %v", mt, got, want)
		}
	}
	if !(field{}).matches("application/x-anything") {
		t.Error("no accept must allow every type")
	}
}

// TestCheckIDsUnique: ids are stable keys; none is listed twice.
func TestCheckIDsUnique(t *testing.T) {
	var ids []string
	for _, c := range checks {
		if slices.Contains(ids, c.id) {
			t.Errorf("check %q listed twice", c.id)
		}
		if c.level != "MUST" && c.level != "SHOULD" {
			t.Errorf("check %q has level %q", c.id, c.level)
		}
		ids = append(ids, c.id)
	}
}

// TestRequirementsNameEveryCheck: REQUIREMENTS.md ties every check to the
// requirement it covers.
func TestRequirementsNameEveryCheck(t *testing.T) {
	b, err := os.ReadFile("REQUIREMENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !strings.Contains(string(b), "`"+c.id+"`") {
			t.Errorf("REQUIREMENTS.md does not name %s", c.id)
		}
	}
}
