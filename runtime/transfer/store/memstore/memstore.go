// Package memstore is a [store.Store] that keeps objects in memory. It is
// for tests of servers and of the transfer layer, and for demos: nothing
// survives the process, and every object, and every writer's bytes so far,
// is held in memory. A server that takes real uploads uses diskstore or an
// object store.
package memstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"hash"
	"sync"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Now returns the current time, against which Stat and Open check
	// expiry. Nil means time.Now.
	Now func() time.Time
}

// Store is an in-memory [store.Store] and [store.Usager], safe for
// concurrent use. Make one with [New].
type Store struct {
	now func() time.Time

	mu       sync.Mutex
	objects  map[string]*object
	reserved map[string]int64 // the limits of open writers, by owner
}

type object struct {
	meta store.Meta
	data []byte // never modified after commit
}

var (
	_ store.Store       = (*Store)(nil)
	_ store.Usager      = (*Store)(nil)
	_ store.TotalUsager = (*Store)(nil)
)

// New returns an empty Store. A nil o means the zero Options.
func New(o *Options) *Store {
	s := &Store{now: time.Now, objects: make(map[string]*object), reserved: make(map[string]int64)}
	if o != nil && o.Now != nil {
		s.now = o.Now
	}
	return s
}

// Create implements [store.Store.Create]. The writer counts m.Size (or
// m.MaxSize, when the size is [store.SizeUnknown]) in [Store.Usage] of
// m.Owner until it commits, aborts or fails; a writer that is dropped
// without Abort counts for the life of the Store.
func (s *Store) Create(ctx context.Context, id string, m store.Meta) (store.Writer, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return nil, err
	}
	limit, err := m.Limit()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.objects[id]; taken {
		return nil, store.ErrExists
	}
	s.reserved[m.Owner] += limit
	return &writer{s: s, id: id, meta: m, limit: limit, h: sha256.New(), reserved: true}, nil
}

// Usage implements [store.Usager]: the bytes of owner's committed objects
// unexpired at now, and the declared sizes (or maximum sizes) of its open
// writers. It looks at every object.
func (s *Store) Usage(ctx context.Context, owner string, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.reserved[owner]
	for _, o := range s.objects {
		if o.meta.Owner == owner && !o.meta.Expired(now) {
			n += o.meta.Size
		}
	}
	return n, nil
}

// TotalUsage implements [store.TotalUsager]: the bytes of every owner's
// committed objects unexpired at now, and of every open writer. It looks
// at every object.
func (s *Store) TotalUsage(ctx context.Context, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, r := range s.reserved {
		n += r
	}
	for _, o := range s.objects {
		if !o.meta.Expired(now) {
			n += o.meta.Size
		}
	}
	return n, nil
}

// Stat implements [store.Store.Stat].
func (s *Store) Stat(ctx context.Context, id string) (store.Meta, error) {
	o, err := s.get(ctx, id)
	if err != nil {
		return store.Meta{}, err
	}
	return o.meta, nil
}

// Open implements [store.Store.Open].
func (s *Store) Open(ctx context.Context, id string) (store.Reader, error) {
	o, err := s.get(ctx, id)
	if err != nil {
		return nil, err
	}
	return reader{bytes.NewReader(o.data)}, nil
}

func (s *Store) get(ctx context.Context, id string) (*object, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	o := s.objects[id]
	s.mu.Unlock()
	if o == nil || o.meta.Expired(s.now()) {
		return nil, store.ErrNotFound
	}
	return o, nil
}

// Delete implements [store.Store.Delete].
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := store.CheckCall(ctx, id); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.objects, id)
	s.mu.Unlock()
	return nil
}

// Sweep implements [store.Store.Sweep]. A Store holds no temporary objects:
// the bytes of an abandoned writer are freed with the writer.
func (s *Store) Sweep(ctx context.Context, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, o := range s.objects {
		if o.meta.Expired(now) {
			delete(s.objects, id)
			n++
		}
	}
	return n, nil
}

type reader struct{ *bytes.Reader }

func (reader) Close() error { return nil }

type writer struct {
	s        *Store
	id       string
	meta     store.Meta
	limit    int64 // the most bytes the writer takes: meta.Size, or meta.MaxSize
	h        hash.Hash
	buf      []byte
	err      error // set once the writer is spent
	reserved bool  // limit is counted in s.reserved
}

func (w *writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if int64(len(p)) > w.limit-int64(len(w.buf)) {
		w.fail(store.ErrTooLarge)
		return 0, store.ErrTooLarge
	}
	w.buf = append(w.buf, p...)
	w.h.Write(p)
	return len(p), nil
}

func (w *writer) fail(err error) {
	w.err = err
	w.buf = nil
	w.s.mu.Lock()
	w.unreserve()
	w.s.mu.Unlock()
}

// unreserve stops counting the writer in s.reserved. The caller holds s.mu.
func (w *writer) unreserve() {
	if !w.reserved {
		return
	}
	w.reserved = false
	if w.s.reserved[w.meta.Owner] -= w.limit; w.s.reserved[w.meta.Owner] == 0 {
		delete(w.s.reserved, w.meta.Owner)
	}
}

func (w *writer) Commit(ctx context.Context) error {
	if w.err != nil {
		err := w.err
		w.fail(store.ErrClosed)
		return err
	}
	err := w.commit(ctx)
	w.fail(store.ErrClosed)
	return err
}

func (w *writer) commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.meta.Size != store.SizeUnknown && int64(len(w.buf)) != w.meta.Size {
		return store.ErrIncomplete
	}
	var sum [32]byte
	w.h.Sum(sum[:0])
	if w.meta.SHA256 != ([32]byte{}) && w.meta.SHA256 != sum {
		return store.ErrDigest
	}
	m := w.meta
	m.Size, m.MaxSize, m.SHA256 = int64(len(w.buf)), 0, sum
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if _, taken := w.s.objects[w.id]; taken {
		return store.ErrExists
	}
	w.s.objects[w.id] = &object{meta: m, data: w.buf}
	w.unreserve() // counted now as the object
	return nil
}

func (w *writer) Abort() error {
	if w.err == nil {
		w.fail(store.ErrClosed)
	}
	return nil
}
