package diskstore

import (
	"container/heap"
	"sync"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// index is a Store's in-memory account of what each owner holds: the
// committed objects it knows of, by ID, and the reservations of its open
// writers, by temporary file name. It answers [Store.Usage] without
// touching the disk.
//
// An owner's unexpired bytes at any now are its total less the objects
// expired at now. Each owner keeps the objects that can expire in a
// min-heap by expiry, so the expired ones are found by walking the heap
// from the root and stopping at the first unexpired node of each branch:
// the walk costs the number of expired, not yet swept objects, whatever
// now is, and changes nothing.
type index struct {
	mu      sync.RWMutex
	objects map[string]*entry      // committed objects, by ID
	writers map[string]reservation // open writers, by temporary file name
	owners  map[string]*account    // by owner, while it has objects or writers
	epoch   uint64                 // of the latest Sweep
	total   int64                  // the bytes of every account
	all     expiries               // every object that has an Expires (slot inAll)
}

// An account is what one owner holds.
type account struct {
	bytes    int64    // of its objects, expired or not, and its writers
	expiring expiries // its objects that have an Expires (slot inOwner, the zero value)
	refs     int      // its objects and writers: at 0 the account goes
}

// An entry is a committed object.
type entry struct {
	owner   string
	size    int64
	expires time.Time // zero: never
	at      [2]int    // position in each heap (inOwner, inAll), -1 if none
	seen    uint64    // epoch of the last Sweep that found it, or of its commit
}

func (e *entry) expired(now time.Time) bool {
	return !e.expires.IsZero() && !now.Before(e.expires)
}

// A reservation is what an open writer counts: its declared size, or its
// maximum size when its size is unknown.
type reservation struct {
	owner string
	size  int64
}

func newIndex() *index {
	return &index{
		objects: make(map[string]*entry),
		writers: make(map[string]reservation),
		owners:  make(map[string]*account),
		all:     expiries{slot: inAll},
	}
}

// usage returns the bytes of owner's objects unexpired at now and of its
// open writers.
func (x *index) usage(owner string, now time.Time) int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	a := x.owners[owner]
	if a == nil {
		return 0
	}
	return a.bytes - a.expiring.expiredBytes(0, now)
}

// totalUsage returns the bytes of every owner's objects unexpired at now
// and of every open writer.
func (x *index) totalUsage(now time.Time) int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.total - x.all.expiredBytes(0, now)
}

// reserve counts size bytes, the most the writer of temporary file name
// takes, until it ends.
func (x *index) reserve(name, owner string, size int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.releaseLocked(name)
	x.writers[name] = reservation{owner, size}
	x.charge(owner, size)
}

// release stops counting the writer of temporary file name, if it is
// counted: it was aborted, failed, or its file was swept.
func (x *index) release(name string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.releaseLocked(name)
}

func (x *index) releaseLocked(name string) {
	r, ok := x.writers[name]
	if !ok {
		return
	}
	delete(x.writers, name)
	x.credit(r.owner, r.size)
}

// commit turns the reservation of the writer of temporary file name into
// the committed object id of m.Size bytes (the length written, less than
// the reservation for an object of unknown size), in one step, so that its
// bytes are counted exactly once throughout.
func (x *index) commit(name, id string, m store.Meta) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.releaseLocked(name)
	x.addLocked(id, m, x.epoch)
}

// add counts the committed object id, replacing what was counted under id.
func (x *index) add(id string, m store.Meta) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.addLocked(id, m, x.epoch)
}

func (x *index) addLocked(id string, m store.Meta, seen uint64) {
	x.removeLocked(id)
	e := &entry{owner: m.Owner, size: m.Size, expires: m.Expires, at: [2]int{-1, -1}, seen: seen}
	x.objects[id] = e
	a := x.charge(e.owner, e.size)
	if !e.expires.IsZero() {
		heap.Push(&a.expiring, e)
		heap.Push(&x.all, e)
	}
}

// remove stops counting the object id.
func (x *index) remove(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeLocked(id)
}

func (x *index) removeLocked(id string) {
	e := x.objects[id]
	if e == nil {
		return
	}
	delete(x.objects, id)
	if i := e.at[inOwner]; i >= 0 {
		heap.Remove(&x.owners[e.owner].expiring, i)
	}
	if i := e.at[inAll]; i >= 0 {
		heap.Remove(&x.all, i)
	}
	x.credit(e.owner, e.size)
}

// charge adds size bytes and one reference to owner's account, and
// returns the account.
func (x *index) charge(owner string, size int64) *account {
	a := x.owners[owner]
	if a == nil {
		a = &account{}
		x.owners[owner] = a
	}
	a.bytes += size
	a.refs++
	x.total += size
	return a
}

// credit takes size bytes and one reference from owner's account, and
// drops the account when nothing is left in it.
func (x *index) credit(owner string, size int64) {
	a := x.owners[owner]
	a.bytes -= size
	a.refs--
	x.total -= size
	if a.refs == 0 {
		delete(x.owners, owner)
	}
}

// beginSweep starts a Sweep's reconciliation and returns its epoch.
func (x *index) beginSweep() uint64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.epoch++
	return x.epoch
}

// found records that the Sweep of epoch found the object id with meta m on
// disk: it marks the entry seen, and counts or recounts the object if the
// index did not have it, or had it otherwise (another process committed
// it, or deleted it and committed another).
func (x *index) found(id string, m store.Meta, epoch uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if e := x.objects[id]; e != nil && e.owner == m.Owner && e.size == m.Size && e.expires.Equal(m.Expires) {
		e.seen = epoch
		return
	}
	x.addLocked(id, m, epoch)
}

// unseen returns the IDs counted that neither the Sweep of epoch found
// nor a commit since added: candidates for objects deleted behind the
// index's back.
func (x *index) unseen(epoch uint64) []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var ids []string
	for id, e := range x.objects {
		if e.seen < epoch {
			ids = append(ids, id)
		}
	}
	return ids
}

// The heaps an entry is in: its owner's and the index's of all.
const (
	inOwner = iota
	inAll
)

// expiries is a min-heap of entries by expiry, for container/heap; each
// entry keeps its position in it in at[slot].
type expiries struct {
	es   []*entry
	slot int // inOwner or inAll
}

func (h *expiries) Len() int           { return len(h.es) }
func (h *expiries) Less(i, j int) bool { return h.es[i].expires.Before(h.es[j].expires) }
func (h *expiries) Swap(i, j int) {
	h.es[i], h.es[j] = h.es[j], h.es[i]
	h.es[i].at[h.slot], h.es[j].at[h.slot] = i, j
}

func (h *expiries) Push(v any) {
	e := v.(*entry)
	e.at[h.slot] = len(h.es)
	h.es = append(h.es, e)
}

func (h *expiries) Pop() any {
	e := h.es[len(h.es)-1]
	h.es[len(h.es)-1] = nil
	h.es = h.es[:len(h.es)-1]
	e.at[h.slot] = -1
	return e
}

// expiredBytes returns the bytes of the entries expired at now in the
// subtree at i. A node expires no later than its children, so the walk
// stops at the first unexpired node of each branch.
func (h *expiries) expiredBytes(i int, now time.Time) int64 {
	if i >= len(h.es) || !h.es[i].expired(now) {
		return 0
	}
	return h.es[i].size + h.expiredBytes(2*i+1, now) + h.expiredBytes(2*i+2, now)
}
