package transfer

import (
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionOwner is the owner of the files of an anonymous caller in the
// session whose ID is sid, for tests that make file URIs of their own.
var SessionOwner = sessionOwner

// A FakeTimer is a timer of ReadFileTTL that a test fires by hand.
type FakeTimer struct {
	D       time.Duration
	Fire    func()
	Stopped bool
}

func (t *FakeTimer) Stop() bool { t.Stopped = true; return true }

// FakeReadTimers makes the ReadFileTTL timers of the server s (set up with
// Register) fake ones, and returns the list they are appended to.
func FakeReadTimers(s *mcp.Server) *[]*FakeTimer {
	v, _ := registered.Load(weak.Make(s))
	c := v.(weak.Pointer[config]).Value()
	timers := new([]*FakeTimer)
	c.reads.mu.Lock()
	defer c.reads.mu.Unlock()
	c.reads.afterFunc = func(d time.Duration, f func()) interface{ Stop() bool } {
		t := &FakeTimer{D: d, Fire: f}
		*timers = append(*timers, t)
		return t
	}
	return timers
}
