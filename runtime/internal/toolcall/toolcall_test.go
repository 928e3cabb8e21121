package toolcall_test

import (
	"testing"

	"github.com/mcpfile/mcpfile/runtime/internal/toolcall"
)

func TestElicitState(t *testing.T) {
	for _, tt := range []struct {
		state string
		want  int
	}{
		{"", 1},
		{toolcall.ElicitState("photo", 1), 1},
		{toolcall.ElicitState("photo", 2), 2},
		{toolcall.ElicitState("photo", 9), 3}, // never beyond MaxTries
		{toolcall.ElicitState("other", 2), 1},
		{"mcpfile.elicit/x/photo", 1},
		{"mcpfile.elicit/-4/photo", 1},
		{"something else", 1},
	} {
		if got := toolcall.ParseElicitState(tt.state, "photo", 3); got != tt.want {
			t.Errorf("ParseElicitState(%q) = %d, want %d", tt.state, got, tt.want)
		}
	}
}
