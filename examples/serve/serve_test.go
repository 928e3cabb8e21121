package serve

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestServeEndsWithAStreamOpen: a request that never ends by itself (a
// client's stream of server messages, a call waiting for an upload) does
// not keep Serve from returning when its context ends: after the grace
// period it is closed, and Serve reports no error.
func TestServeEndsWithAStreamOpen(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done() // until the connection is closed
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, h) }()
	res, err := http.Get("http://" + l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	<-started
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return with a request still open")
	}
}
