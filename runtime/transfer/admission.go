package transfer

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// An admission bounds the uploads in progress, the upload endpoint's and
// the upload pages' together: at most maxPerOwner of one owner, max in
// all, and copy buffers of at most maxMemory bytes. Each upload enters
// before its quota is checked and leaves when it ends, whatever the end.
type admission struct {
	maxPerOwner int
	max         int
	maxMemory   int64
	retry       time.Duration // the Retry-After of a refusal
	obs         *observer     // counts the uploads in progress

	mu     sync.Mutex
	owners map[string]int // uploads in progress, by owner, while it has some
	n      int
	memory int64
}

func newAdmission(o *UploadOptions, obs *observer) *admission {
	return &admission{
		maxPerOwner: o.MaxUploadsPerOwner, max: o.MaxUploads, maxMemory: o.MaxUploadMemory,
		retry: o.RateWindow, obs: obs, owners: make(map[string]int),
	}
}

// admissionKey is whom an upload of owner, sent in r, counts against in
// the bound of uploads per owner: its owner (for a caller without auth
// whose address the MCP endpoint kept, that address's or IPv6 network's
// key, see quotaOwner); or, for a caller without auth and without a
// session whose address was not kept (a 2026-07-28 client of an endpoint
// not wrapped, or a stdio server's one client), the address it connects
// from (addressKey). All such callers share the owner "", so that one of them
// could otherwise hold every upload any of them may have in progress.
// Behind a proxy every caller has the proxy's address: there,
// authenticate callers, or bound them at the proxy.
func admissionKey(owner string, r *http.Request) string {
	if owner != "" {
		return owner
	}
	return addressKey(r.RemoteAddr)
}

// enter admits an upload of owner (an admissionKey) that may hold a copy buffer of memory
// bytes, or returns the refusal that says which bound it would pass: 429
// for the owner's, 503 for the server's, each with a Retry-After (set on
// w) of one rate window, by when a slow upload has been cut.
func (a *admission) enter(w http.ResponseWriter, owner string, memory int64) *refusal {
	a.mu.Lock()
	defer a.mu.Unlock()
	var rf *refusal
	switch {
	case a.owners[owner] >= a.maxPerOwner:
		who := "the owner has"
		switch {
		case isNetworkKey(owner):
			who = "callers without auth from this IPv6 network (a /48, all its /64s together) have"
		case isAddressKey(owner):
			who = "callers without auth from this address have"
		}
		rf = refuseTooMany.says(fmt.Sprintf("%s %d uploads in progress, as many as the server takes of one owner at once: retry when one has ended", who, a.maxPerOwner))
	case a.n >= a.max:
		rf = refuseBusy.says(fmt.Sprintf("the server has %d uploads in progress, as many as it takes at once: retry later", a.max))
	case a.memory+memory > a.maxMemory:
		rf = refuseBusy.says(fmt.Sprintf("the uploads in progress hold %d bytes of buffers, and this one's %d would pass the server's bound of %d: retry later", a.memory, memory, a.maxMemory))
	}
	if rf != nil {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((a.retry+time.Second-1)/time.Second), 10))
		return rf
	}
	a.owners[owner]++
	a.n++
	a.memory += memory
	a.obs.UploadsActive(context.Background(), 1)
	return nil
}

// leave ends an upload that enter admitted with the same arguments.
func (a *admission) leave(owner string, memory int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.owners[owner]--; a.owners[owner] <= 0 {
		delete(a.owners, owner)
	}
	a.n--
	a.memory -= memory
	a.obs.UploadsActive(context.Background(), -1)
}
