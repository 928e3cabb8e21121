package storetest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/storetest"
)

// TestPlainStore runs the suite on a Store that is not a Usager: the Usage
// subtests skip.
func TestPlainStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		return struct{ store.Store }{memstore.New(&memstore.Options{Now: now})}
	})
}

// TestUsagerWithoutReservations runs the suite on a Usager that does not
// count open writers, which the suite accepts.
func TestUsagerWithoutReservations(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		return &unreserved{Store: memstore.New(&memstore.Options{Now: now}), open: map[string]int64{}}
	})
}

// unreserved is a memstore that leaves its open writers out of Usage.
type unreserved struct {
	*memstore.Store
	mu   sync.Mutex
	open map[string]int64 // what open writers reserve, by owner
}

func (s *unreserved) Create(ctx context.Context, id string, m store.Meta) (store.Writer, error) {
	w, err := s.Store.Create(ctx, id, m)
	if err != nil {
		return nil, err
	}
	limit, _ := m.Limit() // Create accepted m
	s.add(m.Owner, limit)
	return &unreservedWriter{Writer: w, s: s, owner: m.Owner, limit: limit}, nil
}

func (s *unreserved) Usage(ctx context.Context, owner string, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.Store.Usage(ctx, owner, now)
	return n - s.open[owner], err
}

func (s *unreserved) add(owner string, n int64) {
	s.mu.Lock()
	s.open[owner] += n
	s.mu.Unlock()
}

type unreservedWriter struct {
	store.Writer
	s     *unreserved
	owner string
	limit int64 // what the memstore reserves for the writer
	done  bool
}

func (w *unreservedWriter) end() {
	w.s.mu.Lock()
	w.endLocked()
	w.s.mu.Unlock()
}

func (w *unreservedWriter) endLocked() {
	if !w.done {
		w.done = true
		w.s.open[w.owner] -= w.limit
	}
}

func (w *unreservedWriter) Write(p []byte) (int, error) {
	n, err := w.Writer.Write(p)
	if err != nil {
		w.end()
	}
	return n, err
}

func (w *unreservedWriter) Commit(ctx context.Context) error {
	w.s.mu.Lock() // so that Usage sees the writer end as the object appears
	defer w.s.mu.Unlock()
	err := w.Writer.Commit(ctx)
	w.endLocked()
	return err
}

func (w *unreservedWriter) Abort() error {
	w.end()
	return w.Writer.Abort()
}
