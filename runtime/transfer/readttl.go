package transfer

import (
	"context"
	"sync"
	"time"
)

// The shorter life of an uploaded file once a call has read it
// (Options.ReadFileTTL): each file a tools/call resolved is deleted
// ReadFileTTL after the last call of this process that resolved it
// returned, and never while such a call runs.

// readFiles tracks the uploaded files the calls of one server resolved.
type readFiles struct {
	mu    sync.Mutex
	files map[string]*readFile // by file ID
	// afterFunc is time.AfterFunc; tests replace it.
	afterFunc func(time.Duration, func()) interface{ Stop() bool }
}

// A readFile is one file the calls resolved: how many calls that resolved
// it are running, and, when none is, the timer that deletes it.
type readFile struct {
	calls int
	timer interface{ Stop() bool }
}

func newReadFiles() *readFiles {
	return &readFiles{
		files:     map[string]*readFile{},
		afterFunc: func(d time.Duration, f func()) interface{ Stop() bool } { return time.AfterFunc(d, f) },
	}
}

// begin records that a running call resolved the file id: it is not
// deleted until the call ends.
func (rf *readFiles) begin(id string) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	f := rf.files[id]
	if f == nil {
		f = &readFile{}
		rf.files[id] = f
	}
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
	f.calls++
}

// end records that a call that resolved the file id returned: when no
// other such call runs, the file is deleted from c's store after ttl.
func (rf *readFiles) end(c *config, id string, ttl time.Duration) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	f := rf.files[id]
	if f == nil { // released meanwhile
		return
	}
	if f.calls--; f.calls > 0 {
		return
	}
	var timer interface{ Stop() bool }
	timer = rf.afterFunc(ttl, func() {
		rf.mu.Lock()
		if rf.files[id] != f || f.timer != timer { // read again, or released
			rf.mu.Unlock()
			return
		}
		delete(rf.files, id)
		rf.mu.Unlock()
		if err := c.Store.Delete(context.Background(), id); err != nil {
			logInternal(c.obs, context.Background(), "deleting a file its calls read", "store delete", err)
		}
	})
	f.timer = timer
}

// forget stops tracking the file id: it was released.
func (rf *readFiles) forget(id string) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if f := rf.files[id]; f != nil {
		if f.timer != nil {
			f.timer.Stop()
		}
		delete(rf.files, id)
	}
}

// callReads collects the files one call resolved, for readFiles.end when
// it returns.
type callReads struct {
	mu  sync.Mutex
	ids []string
}

func (cr *callReads) add(id string) {
	cr.mu.Lock()
	cr.ids = append(cr.ids, id)
	cr.mu.Unlock()
}

func (cr *callReads) take() []string {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	ids := cr.ids
	cr.ids = nil
	return ids
}
