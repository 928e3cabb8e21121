package transfer

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Shutdown ends, for good, the upload pages of the server s that
// [Register] set up: every call waiting for a person's upload
// ([runtime.ElicitUpload]) stops waiting and ends with an error that says
// the server is shutting down and to call the tool again, and a page asked
// for after it is refused with the same words. Uploads already in
// progress, through the upload endpoint or a page, go on until they end
// or the HTTP server closes their connections. It does nothing for a
// server that does not serve transfers.
//
// A call waiting for a page never ends by itself before the page expires
// (an hour by default, [Options.PageTTL]), and http.Server.Shutdown waits
// for its request, as the go-sdk's ServerSession.Close waits for a
// session's calls: call Shutdown first. Package runtime/serve does when
// its context ends; with an http.Server of your own,
//
//	srv.RegisterOnShutdown(func() { transfer.Shutdown(server) })
func Shutdown(s *mcp.Server) {
	if c := configOf(s); c != nil {
		c.pages.shutdown(errShuttingDown, errNoPagesShuttingDown)
	}
}

var (
	errShuttingDown        = errors.New("the server is shutting down, so it stopped waiting for the file of the upload page; call the tool again in a moment")
	errNoPagesShuttingDown = errors.New("the server is shutting down, so it makes no upload page; call the tool again in a moment")
)

// shutdown ends the wait of every pending page with err, and refuses the
// pages added after it with refuse.
func (ps *pages) shutdown(err, refuse error) {
	ps.mu.Lock()
	if ps.closed != nil {
		ps.mu.Unlock()
		return
	}
	ps.closed = refuse
	close(ps.down)
	var pending []*page
	for _, p := range ps.byID {
		if !p.isFinished() {
			pending = append(pending, p)
		}
	}
	ps.mu.Unlock()
	for _, p := range pending {
		p.finish(0, err)
	}
}
