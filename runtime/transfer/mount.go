package transfer

import (
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// registered holds the configuration Register made for each server, by
// weak pointers at both ends: the server's middleware keeps its
// configuration alive, and a server the program drops (one per session,
// say) is dropped here too.
var registered sync.Map // weak.Pointer[mcp.Server] → weak.Pointer[config]

// remember records that Register made c for s, for [Endpoints].
func remember(s *mcp.Server, c *config) {
	k := weak.Make(s)
	if _, loaded := registered.Swap(k, weak.Make(c)); !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[mcp.Server]) { registered.Delete(k) }, k)
	}
}

// configOf returns the configuration Register made for s, nil for none.
func configOf(s *mcp.Server) *config {
	v, found := registered.Load(weak.Make(s))
	if !found {
		return nil
	}
	return v.(weak.Pointer[config]).Value()
}

// Endpoints returns a handler of the transfer endpoints (uploads,
// downloads, upload pages) of the server s, like the one [Register]
// returned for it, and the path to mount it at: the path of
// [Options.PublicURL], ending in a slash. ok is false when Register has
// not made s serve transfers. Package runtime/serve mounts it beside the
// MCP endpoint, so that a server author need not.
func Endpoints(s *mcp.Server) (path string, h http.Handler, ok bool) {
	c := configOf(s)
	if c == nil {
		return "", nil, false
	}
	u, err := url.Parse(c.PublicURL) // Register parsed it
	if err != nil {
		return "", nil, false
	}
	path = u.Path
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	return path, c.handler(), true
}
