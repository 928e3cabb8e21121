package transfer

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestPageAsk: what a page's token carries of who asks is the tool and the
// message, both valid UTF-8, within maxPageMessage bytes, and comes back
// apart; sealed, the longest fits a token's name.
func TestPageAsk(t *testing.T) {
	long := strings.Repeat("é", 2000)
	for _, c := range []struct{ tool, message, wantTool string }{
		{"ask", "Please choose a file.", "ask"},
		{"", "no tool", ""},
		{"a\x00b", "a NUL in the tool is dropped", "ab"},
		{strings.Repeat("t", 300), long, strings.Repeat("t", maxPageTool)},
		{"bad\xffutf8", "bad\xfe", "bad\uFFFDutf8"},
	} {
		s := pageAsk(c.tool, c.message)
		if len(s) > maxPageMessage || !utf8.ValidString(s) {
			t.Errorf("pageAsk(%.20q, %.20q) is %d bytes (at most %d), valid UTF-8 %v", c.tool, c.message, len(s), maxPageMessage, utf8.ValidString(s))
		}
		tool, message := parsePageAsk(s)
		if tool != c.wantTool || !strings.HasPrefix(strings.ToValidUTF8(c.message, "\uFFFD"), message) || message == "" {
			t.Errorf("parsePageAsk(pageAsk(%.20q, %.20q)) = %.20q, %.20q", c.tool, c.message, tool, message)
		}
	}
	if tool, message := parsePageAsk("an older page's message"); tool != "" || message != "an older page's message" {
		t.Errorf("parsePageAsk of a text without a NUL = %q, %q", tool, message)
	}
	k, err := token.NewKey("", make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(k)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := keys.Seal(pageAsk(strings.Repeat("t", 300), long))
	if err != nil || len(sealed) > token.MaxNameLen {
		t.Errorf("the longest sealed is %d bytes (%v), want at most a token name's %d", len(sealed), err, token.MaxNameLen)
	}
}
