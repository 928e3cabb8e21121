package transfer

// The record of a server's upload pages (see page.go): which wait, for
// whom, under which key a retry finds them, and the bounds on how many
// one server, one caller, and the callers without auth from one address
// may have waiting.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// A page is the record, in this process, of an upload page this server
// minted: what the waiting handler and the page's upload share.
type page struct {
	id      string                     // the file ID the upload is stored under
	key     *pageKey                   // nil for none
	hp      hook.Page                  // what NewPage returned
	total   int64                      // the most bytes the page takes
	expires time.Time                  // the page's token expires
	done    func(elicitationID string) // called once on success; nil for none
	caller  caller
	address string // the addressKey of an anonymous caller, "" for none (see pageAddress)
	network string // the networkKey of an anonymous caller on IPv6, "" for none
	// uploadDeadline is when an upload that started in time is cut: the
	// page's expiry plus another PageTTL.
	uploadDeadline time.Time
	timer          *time.Timer // ends the page at expiry; guarded by pages.mu
	endedAt        time.Time   // when its wait ended; guarded by pages.mu

	received  atomic.Int64 // bytes of the upload in progress
	uploading atomic.Int32 // uploads in progress
	finished  chan struct{}
	once      sync.Once
	err       error // why the wait ended, set before finished closes; nil: uploaded
	size      int64 // the file's size, set before finished closes
	pages     *pages
}

// finish ends the page's wait: with the file of size bytes when err is nil.
// The page stops counting as pending.
func (p *page) finish(size int64, err error) {
	p.once.Do(func() {
		p.size, p.err = size, err
		done := p.done
		close(p.finished)
		p.pages.end(p)
		if err == nil && done != nil {
			go done(p.hp.ElicitationID)
		}
	})
}

func (p *page) isFinished() bool {
	select {
	case <-p.finished:
		return true
	default:
		return false
	}
}

// A caller is who asks for pages: the principal, or, for anonymous
// callers, the session (its ID, or, for a session without one, such as
// stdio's, the session itself).
type caller struct {
	owner   string
	session any // "" , the session's ID, or a weak.Pointer to it
}

// A pageKey finds the page of a call's retry after a link result or a
// -32042 error (a client without URL-mode elicitation): the
// caller, the tool, the input request and what it asks for.
type pageKey struct {
	caller
	tool, id, form string
}

// pages is a server's record of its upload pages: the pending ones by file
// ID, at most max of them, perCaller of one caller's, perAddress of
// anonymous callers' from one address and perNetwork from one IPv6
// network; and by key, the
// pages of -32042 errors, pending or uploaded and not yet taken by the
// retry. A page whose wait ended stays known by file ID for keptFinished.
type pages struct {
	mu         sync.Mutex
	byID       map[string]*page
	byKey      map[pageKey]*page
	pending    int            // pages whose wait is not over
	byCaller   map[caller]int // of those, each caller's
	byAddress  map[string]int // and each address's, of anonymous callers
	byNetwork  map[string]int // and each IPv6 network's, of anonymous callers
	ended      []*page        // the others, oldest first, for keptFinished: at most 4×max, or 4096
	max        int
	perCaller  int
	perAddress int
	perNetwork int
	closed     error         // why pages are refused, once Shutdown ran
	down       chan struct{} // closed by Shutdown
}

func newPages(max, perCaller, perAddress, perNetwork int) *pages {
	return &pages{
		byID: map[string]*page{}, byKey: map[pageKey]*page{}, byCaller: map[caller]int{}, byAddress: map[string]int{}, byNetwork: map[string]int{},
		max: max, perCaller: perCaller, perAddress: perAddress, perNetwork: perNetwork, down: make(chan struct{}),
	}
}

// pageAddress is the key of the address whose bound a page of owner,
// asked for in the request of extra whose context is ctx, counts against:
// for a caller without auth, the address of the request (see
// KeepCallerAddress); for one without a session over HTTP whose address
// was not kept, unknownAddress; else "" (an authenticated caller, or
// stdio's one client), for none.
func pageAddress(ctx context.Context, extra *mcp.RequestExtra, owner string) string {
	if !anonymous(owner) {
		return ""
	}
	if a, ok := callerAddress(ctx); ok {
		return addressKey(a)
	}
	if owner == "" && extra != nil && extra.Header != nil { // over HTTP
		return unknownAddress
	}
	return ""
}

// pageNetwork is the key of the IPv6 network whose bound a page of owner,
// asked for in a request whose context is ctx, counts against besides its
// address's (see pageAddress): for a caller without auth on IPv6 whose
// address was kept, its /48; else "", for none.
func pageNetwork(ctx context.Context, owner string) string {
	if !anonymous(owner) {
		return ""
	}
	if a, ok := callerAddress(ctx); ok {
		return networkKey(a)
	}
	return ""
}

// forget drops the ended pages older than keptFinished, and the oldest
// beyond 4×max (or 4096). Call with ps.mu held.
func (ps *pages) forget(now time.Time) {
	n := 0
	for n < len(ps.ended) && (len(ps.ended)-n > max(4*ps.max, 4096) || now.Sub(ps.ended[n].endedAt) > keptFinished) {
		p := ps.ended[n]
		if ps.byID[p.id] == p {
			delete(ps.byID, p.id)
		}
		if p.key != nil && ps.byKey[*p.key] == p {
			delete(ps.byKey, *p.key)
		}
		ps.ended[n] = nil
		n++
	}
	ps.ended = ps.ended[n:]
}

func (ps *pages) get(id string) *page {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.byID[id]
}

// byKeyLive returns the page minted under key, unless it expired or its
// upload failed. A page whose upload is done is found for keptFinished
// after the upload: by the retry that takes its file, and by the retries
// after it (a handler that asks for two files runs from the top each
// time); a later call gets a new page.
func (ps *pages) byKeyLive(key pageKey, now time.Time) *page {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.forget(time.Now())
	p := ps.byKey[key]
	if p == nil || !now.Before(p.expires) || (p.isFinished() && p.err != nil) {
		return nil
	}
	return p
}

// end counts p as no longer pending (its wait is over), forgets it by key
// unless its file waits for a retry to take it, and forgets it by file ID
// after keptFinished, the time a retry has to see how the wait ended.
func (ps *pages) end(p *page) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.pending--
	if ps.byCaller[p.caller]--; ps.byCaller[p.caller] <= 0 {
		delete(ps.byCaller, p.caller)
	}
	if p.address != "" {
		if ps.byAddress[p.address]--; ps.byAddress[p.address] <= 0 {
			delete(ps.byAddress, p.address)
		}
	}
	if p.network != "" {
		if ps.byNetwork[p.network]--; ps.byNetwork[p.network] <= 0 {
			delete(ps.byNetwork, p.network)
		}
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	if p.key != nil && p.err != nil && ps.byKey[*p.key] == p {
		delete(ps.byKey, *p.key)
	}
	p.done = nil // what it holds need not outlive the wait
	p.endedAt = time.Now()
	ps.ended = append(ps.ended, p)
	ps.forget(p.endedAt)
}

// keptFinished is how long a page whose wait is over stays known: for a
// retry that comes after the upload ended (in failure too), and for the
// page to answer a late post with 410.
const keptFinished = 2 * time.Minute

// add records p until it expires, unless max pages, perCaller pages of
// p's caller, perAddress pages of its address, or perNetwork pages of its
// IPv6 network, are pending.
func (ps *pages) add(p *page, now time.Time) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.forget(time.Now())
	if ps.closed != nil {
		return ps.closed
	}
	if ps.pending >= ps.max {
		return fmt.Errorf("the server has %d upload pages waiting for a file, its limit; try again when some have been used or have expired", ps.max)
	}
	if ps.byCaller[p.caller] >= ps.perCaller {
		return fmt.Errorf("this caller has %d upload pages waiting for a file, the limit per caller; use or decline one first", ps.perCaller)
	}
	if p.address != "" && ps.byAddress[p.address] >= ps.perAddress {
		from := "from this address"
		if p.address == unknownAddress {
			from = "whose address the server was not told (wrap the MCP handler with transfer.KeepCallerAddress)"
		}
		return fmt.Errorf("callers without auth %s have %d upload pages waiting for a file, the limit per address; use or decline one, wait until one expires, or authenticate: an authenticated caller has a limit of its own", from, ps.perAddress)
	}
	if p.network != "" && ps.byNetwork[p.network] >= ps.perNetwork {
		return fmt.Errorf("callers without auth from this IPv6 network (a /48, all its /64s together) have %d upload pages waiting for a file, the limit per network; use or decline one, wait until one expires, or authenticate: an authenticated caller has a limit of its own", ps.perNetwork)
	}
	p.pages = ps
	ps.pending++
	ps.byCaller[p.caller]++
	if p.address != "" {
		ps.byAddress[p.address]++
	}
	if p.network != "" {
		ps.byNetwork[p.network]++
	}
	ps.byID[p.id] = p
	if p.key != nil {
		ps.byKey[*p.key] = p
	}
	// It ends when it has expired, once no upload is in flight, and an
	// upload may go on at most until its deadline.
	var drop func()
	drop = func() {
		if p.uploading.Load() > 0 && time.Now().Before(p.uploadDeadline) {
			ps.mu.Lock()
			p.timer = time.AfterFunc(time.Minute, drop)
			ps.mu.Unlock()
			return
		}
		p.finish(0, errPageExpired)
	}
	p.timer = time.AfterFunc(p.expires.Sub(now)+time.Minute, drop)
	return nil
}
