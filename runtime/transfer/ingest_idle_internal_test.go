package transfer

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// stalling gives its bytes in reads of at most one byte more than the
// sniffed head, then blocks until release is closed, saying on waiting
// that it does.
type stalling struct {
	b       []byte
	waiting chan struct{}
	release chan struct{}
}

func (s *stalling) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		close(s.waiting)
		<-s.release
		return 0, errTooSlow
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

// TestIngestIdleHoldsNoBuffer: an upload whose body stops after the
// sniffed head and a byte more holds no copy buffer while it waits, and
// its cut leaves nothing in the store and releases its reservation.
func TestIngestIdleHoldsNoBuffer(t *testing.T) {
	now := time.Date(2026, 4, 20, 18, 0, 0, 0, time.UTC)
	st := memstore.New(&memstore.Options{Now: func() time.Time { return now }})
	bufs := newBufferPool(DefaultBufferSize)
	bufs.put(make([]byte, DefaultBufferSize)) // the one idle buffer: taken, the pool is empty
	body := &stalling{b: bytes.Repeat([]byte("a"), 1025), waiting: make(chan struct{}), release: make(chan struct{})}
	in := &ingest{
		store: st, id: "file_idle", bufs: bufs, sniff: sniffer("text/plain"), body: body,
		meta: store.Meta{Size: 1 << 20, MediaType: "text/plain", Owner: "a", Expires: now.Add(time.Hour)},
	}
	done := make(chan error, 1)
	go func() {
		_, err := in.run(context.Background())
		done <- err
	}()
	<-body.waiting
	if len(bufs.idle) != 1 {
		t.Errorf("an upload waiting for bytes took a copy buffer of %d bytes", DefaultBufferSize)
	}
	close(body.release)
	if err := <-done; err == nil {
		t.Fatal("ingest of a cut body succeeded")
	}
	if n, _ := st.Usage(context.Background(), "a", now); n != 0 {
		t.Errorf("the owner holds %d bytes after the cut, want 0", n)
	}
	if _, err := st.Stat(context.Background(), "file_idle"); err == nil {
		t.Error("the cut upload is in the store")
	}
}
