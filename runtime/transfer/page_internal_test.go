package transfer

import (
	"net/url"
	"testing"
)

// TestPageFileID: a page's file ID names the tool and input request it was
// minted for, and no other, whatever characters its parts hold; and the
// tool alone (pageOfTool, for a page's file URI in an argument).
func TestPageFileID(t *testing.T) {
	for i := range 2000 {
		tool, id := "ask", "file"
		if i%2 == 1 {
			tool, id = "import_archive", "a_b-c"
		}
		link := i%4 < 2
		fid := pageFileID(tool, id, link)
		if isLinkPage(fid) != link {
			t.Fatalf("isLinkPage(%q) = %v, want %v", fid, !link, link)
		}
		if !pageOf(fid, tool, id) {
			t.Fatalf("pageOf(%q, %q, %q) = false for its own page", fid, tool, id)
		}
		if pageOf(fid, tool+"x", id) || pageOf(fid, tool, id+"x") || pageOf("file_"+fid[len(pagePrefix):], tool, id) {
			t.Fatalf("pageOf(%q) took another tool's or input request's page, or an uploaded file", fid)
		}
		if !pageOfTool(fid, tool) || pageOfTool(fid, tool+"x") || pageOfTool(fid, "") || pageOfTool("file_"+fid[len(pagePrefix):], tool) {
			t.Fatalf("pageOfTool(%q, %q) is wrong for its own tool, another tool, or an uploaded file", fid, tool)
		}
	}
}

// TestOrigin: the origin the page compares a post's Origin with is the one
// browsers send: no default port, the host lower-cased.
func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Files.Example.com:443/mcp/": "https://files.example.com",
		"http://example.com:80/":             "http://example.com",
		"http://127.0.0.1:8080/files/":       "http://127.0.0.1:8080",
		"https://[::1]:8443/":                "https://[::1]:8443",
	} {
		u, _ := url.Parse(in)
		if got := origin(u); got != want {
			t.Errorf("origin(%q) = %q, want %q", in, got, want)
		}
	}
}
