package diskstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return t0 }

// usage returns s.Usage of owner at now.
func usage(t *testing.T, s *diskstore.Store, owner string, now time.Time) int64 {
	t.Helper()
	n, err := s.Usage(context.Background(), owner, now)
	if err != nil {
		t.Fatalf("Usage(%q): %v", owner, err)
	}
	return n
}

// TestUsageRestart checks that a new process on the directory counts what
// the last one committed, at every time, and not its open writers nor files
// that are not objects.
func TestUsageRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, dir, &diskstore.Options{Now: fixedNow})
	for i, o := range []struct {
		owner string
		size  int
		ttl   time.Duration
	}{
		{"alice", 10, 0}, {"alice", 20, time.Hour}, {"alice", 40, 2 * time.Hour},
		{"bob", 7, 0}, {"bob", 1, -time.Hour}, {"", 3, 0}, {"", 5, time.Hour},
	} {
		m := store.Meta{Owner: o.owner}
		if o.ttl != 0 {
			m.Expires = t0.Add(o.ttl)
		}
		put(t, s, fmt.Sprintf("o%d", i), make([]byte, o.size), m)
	}
	put(t, s, "gone", make([]byte, 100), store.Meta{Owner: "alice"})
	if err := s.Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	w, err := s.Create(ctx, "pending", store.Meta{Size: 1000, Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	raw, err := os.ReadFile(filepath.Join(dir, "objects", "o0"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"corrupt":   raw[1:],
		"renamed":   raw, // records the ID o0
		"not.an.id": raw,
	} {
		if err := os.WriteFile(filepath.Join(dir, "objects", name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	type key struct {
		owner string
		at    time.Duration
	}
	want := map[key]int64{
		{"alice", 0}: 70, {"alice", time.Hour}: 50, {"alice", 2 * time.Hour}: 10,
		{"bob", 0}: 7, {"bob", -2 * time.Hour}: 8,
		{"", 0}: 8, {"", time.Hour}: 3,
		{"carol", 0}: 0,
	}
	for k, n := range want {
		if k.owner == "alice" {
			n += 1000 // the open writer, at every time
		}
		if got := usage(t, s, k.owner, t0.Add(k.at)); got != n {
			t.Errorf("before restart, Usage(%q, t0+%v) = %d, want %d", k.owner, k.at, got, n)
		}
	}
	s2 := newStore(t, dir, &diskstore.Options{Now: fixedNow})
	for k, n := range want {
		if got := usage(t, s2, k.owner, t0.Add(k.at)); got != n {
			t.Errorf("after restart, Usage(%q, t0+%v) = %d, want %d", k.owner, k.at, got, n)
		}
	}
	// What the new process counted, it uncounts.
	if err := s2.Delete(ctx, "o0"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s2.Sweep(ctx, t0.Add(90*time.Minute)); n != 3 {
		t.Errorf("Sweep = %d, want 3", n)
	}
	if got := usage(t, s2, "alice", t0); got != 40 {
		t.Errorf("after Delete and Sweep, Usage(alice) = %d, want 40", got)
	}
}

// TestUsageSharedDirectory shows what a process counts of another's work
// on the same directory: nothing until its next Sweep, then all of it.
func TestUsageSharedDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := newStore(t, dir, &diskstore.Options{Now: fixedNow})
	b := newStore(t, dir, &diskstore.Options{Now: fixedNow})
	want := func(when string, s *diskstore.Store, owner string, n int64) {
		t.Helper()
		if got := usage(t, s, owner, t0); got != n {
			t.Errorf("%s: Usage(%q) = %d, want %d", when, owner, got, n)
		}
	}

	put(t, a, "x", make([]byte, 10), store.Meta{Owner: "alice"})
	want("a committed", a, "alice", 10)
	want("a committed, b not swept", b, "alice", 0)
	if _, err := b.Sweep(ctx, t0); err != nil {
		t.Fatal(err)
	}
	want("b swept", b, "alice", 10)

	// b deletes x and commits another x, of another owner.
	if err := b.Delete(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	put(t, b, "x", make([]byte, 7), store.Meta{Owner: "bob"})
	want("b replaced x, a not swept", a, "alice", 10)
	if _, err := a.Sweep(ctx, t0); err != nil {
		t.Fatal(err)
	}
	want("a swept", a, "alice", 0)
	want("a swept", a, "bob", 7)

	// b deletes x for good.
	if err := b.Delete(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	want("b deleted x", b, "bob", 0)
	if _, err := a.Sweep(ctx, t0); err != nil {
		t.Fatal(err)
	}
	want("a swept", a, "bob", 0)
}

// TestUsageSweptWriter checks that a writer whose temporary file is swept
// stops counting, so a writer that is never aborted is counted at most
// TempGrace after its last write.
func TestUsageSweptWriter(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, t.TempDir(), &diskstore.Options{TempGrace: time.Hour})
	w, err := s.Create(ctx, "idle", store.Meta{Size: 100, Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	now := time.Now()
	if got := usage(t, s, "alice", now); got != 100 {
		t.Errorf("with a writer open, Usage = %d, want 100", got)
	}
	if n, err := s.Sweep(ctx, now.Add(2*time.Hour)); n != 1 || err != nil {
		t.Fatalf("Sweep = %d, %v, want 1, nil", n, err)
	}
	if got := usage(t, s, "alice", now); got != 0 {
		t.Errorf("after its file was swept, Usage = %d, want 0", got)
	}
	w.Write(make([]byte, 100))
	if err := w.Commit(ctx); err == nil {
		t.Fatal("Commit of a swept writer succeeded")
	}
	if got := usage(t, s, "alice", now); got != 0 {
		t.Errorf("after its Commit failed, Usage = %d, want 0", got)
	}
}

// TestUsageSweepRace runs Sweep over and over while objects are committed
// and deleted, and checks that the count ends exact: Sweep's reconciliation
// must not drop an object committed while it lists the directory, nor keep
// one deleted meanwhile.
func TestUsageSweepRace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, dir, &diskstore.Options{Now: fixedNow})
	for i := range 50 { // something to list
		put(t, s, fmt.Sprintf("old%d", i), []byte("x"), store.Meta{Owner: "old"})
	}
	done := make(chan struct{})
	var sweeper sync.WaitGroup
	sweeper.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := s.Sweep(ctx, t0); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				id := fmt.Sprintf("g%d-%d", g, i)
				body := make([]byte, g+1)
				if err := tryCommitOwned(s, id, body, "racer"); err != nil {
					t.Error(err)
				}
				if i%2 == 1 {
					if err := s.Delete(ctx, id); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	close(done)
	sweeper.Wait()
	want := int64(0)
	for g := range 8 {
		want += 20 * int64(g+1)
	}
	if got := usage(t, s, "racer", t0); got != want {
		t.Errorf("Usage = %d, want %d", got, want)
	}
	if got := usage(t, newStore(t, dir, nil), "racer", t0); got != want {
		t.Errorf("Usage read from disk = %d, want %d", got, want)
	}
	if got := usage(t, s, "old", t0); got != 50 {
		t.Errorf("Usage(old) = %d, want 50", got)
	}
}

func tryCommitOwned(s store.Store, id string, body []byte, owner string) error {
	ctx := context.Background()
	w, err := s.Create(ctx, id, store.Meta{Size: int64(len(body)), Owner: owner})
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(body); err != nil {
		return err
	}
	return w.Commit(ctx)
}
