package mcpfileimpl

import (
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// TestParamInvisibleRefused checks that parameter values holding format
// characters or line separators make the URI malformed, while a name
// parameter holding them is sanitized.
func TestParamInvisibleRefused(t *testing.T) {
	for _, v := range []string{"%E2%80%AE", "%E2%80%8B", "%EF%BB%BF", "%E2%81%A0", "%E2%80%A8", "%E2%80%A9", "%C2%AD", "%E2%81%A6"} {
		uri := "data:text/plain;charset=utf" + v + "-8,hello"
		_, err := decodeURI("f", uri, descriptor.File{})
		e := wantRule(t, "decodeURI("+uri+")", err, runtime.RuleURIForm)
		if e.Reason != "a media type parameter has an invalid value" {
			t.Errorf("decodeURI(%q) reason %q", uri, e.Reason)
		}
		if verr := validateURI("f", uri, descriptor.File{}); verr == nil || verr.Error() != err.Error() {
			t.Errorf("validateURI(%q) = %v, want %v", uri, verr, err)
		}
		f, err := decodeURI("f", "data:text/plain;name=a"+v+"b.txt,hello", descriptor.File{})
		if err != nil || f.Name != "ab.txt" {
			t.Errorf("decodeURI(name=a%sb.txt) = %q, %v; want name ab.txt", v, f.Name, err)
		}
	}
	// Printable non-ASCII values stay allowed.
	f, err := decodeURI("f", "data:text/plain;title=caf%C3%A9,hello", descriptor.File{})
	if err != nil || f.Params["title"] != "café" {
		t.Errorf("decodeURI(title=café) = %v, %v", f.Params, err)
	}
}
