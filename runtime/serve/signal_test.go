//go:build unix

package serve_test

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/serve"
)

// TestListenAndServeStopsOnSIGTERM: ListenAndServe serves until the
// process gets SIGTERM, then shuts down and reports no error (the signal
// does not end the process).
func TestListenAndServeStopsOnSIGTERM(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := mcp.NewServer(&mcp.Implementation{Name: "signal", Version: "v1"}, nil)
	done := make(chan error, 1)
	go func() { done <- serve.ListenAndServe(context.Background(), addr, s, serve.Options{}) }()
	// It listens once it has taken the signals: wait for that.
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("ListenAndServe = %v before the signal", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case err := <-done: // the address was taken by someone else: no signal
		t.Fatalf("ListenAndServe = %v before the signal", err)
	default:
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("ListenAndServe after SIGTERM = %v, want nil", err)
	}
}
