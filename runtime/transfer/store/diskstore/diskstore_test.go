package diskstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

func newStore(t *testing.T, dir string, o *diskstore.Options) *diskstore.Store {
	t.Helper()
	s, err := diskstore.New(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(t *testing.T, s store.Store, id string, body []byte, m store.Meta) {
	t.Helper()
	ctx := context.Background()
	m.Size = int64(len(body))
	w, err := s.Create(ctx, id, m)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// names lists the files under dir/sub.
func names(t *testing.T, dir, sub string) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, sub))
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range es {
		ns = append(ns, e.Name())
	}
	return ns
}

func TestRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	body := []byte("survives a restart")
	m := store.Meta{MediaType: "text/plain", Name: "a.txt", Owner: "alice", Expires: time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)}
	put(t, newStore(t, dir, nil), "kept", body, m)

	s := newStore(t, dir, nil) // a new process on the same directory
	got, err := s.Stat(ctx, "kept")
	if err != nil {
		t.Fatalf("Stat after restart: %v", err)
	}
	want := m
	want.Size, want.SHA256 = int64(len(body)), sha256.Sum256(body)
	if !got.Expires.Equal(want.Expires) {
		t.Errorf("Expires = %v, want %v", got.Expires, want.Expires)
	}
	got.Expires, want.Expires = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("Stat after restart = %+v, want %+v", got, want)
	}
	r, err := s.Open(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if b, err := io.ReadAll(r); !bytes.Equal(b, body) || err != nil {
		t.Errorf("read after restart = %q, %v, want %q", b, err, body)
	}
	if err := tryCommit(s, "kept", body); !errors.Is(err, store.ErrExists) {
		t.Errorf("commit over a committed object after restart: %v, want ErrExists", err)
	}
}

func tryCommit(s store.Store, id string, body []byte) error {
	ctx := context.Background()
	w, err := s.Create(ctx, id, store.Meta{Size: int64(len(body))})
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(body); err != nil {
		return err
	}
	return w.Commit(ctx)
}

// TestCrashMidWrite leaves a temporary file behind, as a process that dies
// mid-upload does, and checks that a later process sweeps it after the grace
// period and not before.
func TestCrashMidWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, dir, &diskstore.Options{TempGrace: time.Hour})
	w, err := s.Create(ctx, "crashed", store.Meta{Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 50)); err != nil {
		t.Fatal(err)
	}
	// The process dies here: no Commit, no Abort.

	s2 := newStore(t, dir, &diskstore.Options{TempGrace: time.Hour})
	if _, err := s2.Stat(ctx, "crashed"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat of a half-written object: %v, want ErrNotFound", err)
	}
	if got := names(t, dir, "tmp"); len(got) != 1 {
		t.Fatalf("tmp/ holds %q, want one temporary file", got)
	}
	now := time.Now()
	if n, err := s2.Sweep(ctx, now); n != 0 || err != nil {
		t.Errorf("Sweep within the grace period = %d, %v, want 0, nil", n, err)
	}
	if n, err := s2.Sweep(ctx, now.Add(time.Hour+time.Minute)); n != 1 || err != nil {
		t.Errorf("Sweep after the grace period = %d, %v, want 1, nil", n, err)
	}
	if got := names(t, dir, "tmp"); len(got) != 0 {
		t.Errorf("after Sweep, tmp/ holds %q", got)
	}
	// Had the writer survived, its Commit now fails and leaves nothing.
	if _, err := w.Write(make([]byte, 50)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err == nil {
		t.Error("Commit of a swept temporary file succeeded")
	}
	if got := names(t, dir, "objects"); len(got) != 0 {
		t.Errorf("objects/ holds %q", got)
	}
}

// TestRejectionsLeaveNothing checks the directory itself after each way a
// write can fail.
func TestRejectionsLeaveNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, dir, nil)
	body := []byte("genuine")
	put(t, s, "taken", body, store.Meta{})
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	failLeavingNothing(t, s, dir, store.Meta{Size: int64(len(body)), SHA256: sha256.Sum256(body)}, map[string]func(w store.Writer) error{
		"too large": func(w store.Writer) error { _, err := w.Write(append(body, '!')); return err },
		"short":     func(w store.Writer) error { w.Write(body[1:]); return w.Commit(ctx) },
		"abort":     func(w store.Writer) error { w.Write(body); w.Abort(); return w.Commit(ctx) },
		"canceled":  func(w store.Writer) error { w.Write(body); return w.Commit(canceled) },
		"digest":    func(w store.Writer) error { w.Write([]byte("genuin3")); return w.Commit(ctx) },
	})
	// A writer that loses the race to a committed ID.
	w, err := s.Create(ctx, "race", store.Meta{Size: int64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "race", body, store.Meta{})
	w.Write(body)
	if err := w.Commit(ctx); !errors.Is(err, store.ErrExists) {
		t.Errorf("losing Commit: %v, want ErrExists", err)
	}
	if got := names(t, dir, "tmp"); len(got) != 0 {
		t.Errorf("after a lost race, tmp/ holds %q", got)
	}
}

func TestPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions on Windows")
	}
	dir := filepath.Join(t.TempDir(), "store")
	s := newStore(t, dir, nil)
	put(t, s, "private", []byte("secret"), store.Meta{})
	w, err := s.Create(context.Background(), "pending", store.Meta{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	check := func(p string, want fs.FileMode) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&^want != 0 {
			t.Errorf("%s has mode %v, want at most %v", p, got, want)
		}
	}
	check(dir, 0o700)
	check(filepath.Join(dir, "objects"), 0o700)
	check(filepath.Join(dir, "tmp"), 0o700)
	check(filepath.Join(dir, "objects", "private"), 0o600)
	check(filepath.Join(dir, "tmp", names(t, dir, "tmp")[0]), 0o600)
}

// TestForeignFiles checks that files the store did not write are neither
// served nor swept nor able to crash it.
func TestForeignFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, dir, nil)
	body := []byte("0123456789")
	put(t, s, "good", body, store.Meta{})
	raw, err := os.ReadFile(filepath.Join(dir, "objects", "good"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"empty":     nil,
		"plain":     []byte("just some bytes, no trailer"),
		"truncated": raw[:len(raw)-3],
		"chopped":   raw[3:], // trailer intact, bytes missing
		"renamed":   raw,     // records the ID "good"
	} {
		if err := os.WriteFile(filepath.Join(dir, "objects", name), content, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Stat(ctx, name)
		if name == "renamed" && !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Stat(%q) of a file recording another ID: %v, want ErrNotFound", name, err)
		} else if err == nil {
			t.Errorf("Stat(%q) of a foreign file succeeded", name)
		}
		if r, err := s.Open(ctx, name); err == nil {
			r.Close()
			t.Errorf("Open(%q) of a foreign file succeeded", name)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "objects", "not.an.id"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := s.Sweep(ctx, time.Now().Add(1000*time.Hour))
	if n != 0 || err == nil {
		t.Errorf("Sweep over corrupt objects = %d, %v, want 0 and an error naming them", n, err)
	}
	if got := names(t, dir, "objects"); len(got) != 7 {
		t.Errorf("Sweep removed files it did not write: objects/ holds %q", got)
	}
}

// TestSyncedLayout checks the file format that makes commit one step: an
// object is its bytes followed by a trailer, so its bytes are a prefix.
func TestSyncedLayout(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, dir, nil)
	body := []byte("prefix bytes")
	put(t, s, "layout", body, store.Meta{Name: "n"})
	raw, err := os.ReadFile(filepath.Join(dir, "objects", "layout"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, body) || !bytes.HasSuffix(raw, []byte("MCPFILE1")) {
		t.Errorf("object file = %q, want the bytes, metadata, then MCPFILE1", raw)
	}
}

// TestUnknownSizeRestart commits an object of unknown size and reads it
// back in a new process: the file records the length written, and Usage
// counts it.
func TestUnknownSizeRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	body := []byte("its length was not known")
	s := newStore(t, dir, nil)
	w, err := s.Create(ctx, "unsized", store.Meta{Size: store.SizeUnknown, MaxSize: 1 << 30, Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if got := usage(t, s, "alice", time.Now()); got != 1<<30 {
		t.Errorf("with the writer open, Usage = %d, want its MaxSize %d", got, 1<<30)
	}
	for _, p := range [][]byte{body[:5], body[5:]} {
		if _, err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	s = newStore(t, dir, nil) // a new process on the same directory
	want := store.Meta{Size: int64(len(body)), Owner: "alice", SHA256: sha256.Sum256(body)}
	if got, err := s.Stat(ctx, "unsized"); got != want || err != nil {
		t.Errorf("Stat after restart = %+v, %v, want %+v", got, err, want)
	}
	if got := usage(t, s, "alice", time.Now()); got != int64(len(body)) {
		t.Errorf("Usage after restart = %d, want %d", got, len(body))
	}
	fi, err := os.Stat(filepath.Join(dir, "objects", "unsized"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() <= int64(len(body)) || fi.Size() > int64(len(body))+1024 {
		t.Errorf("the object's file is %d bytes, want the %d of the body and a short trailer", fi.Size(), len(body))
	}
}

// TestUnknownSizeLeavesNothing checks the directory itself after each way a
// write of unknown size can fail.
func TestUnknownSizeLeavesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, dir, nil)
	body := []byte("genuine")
	put(t, s, "taken", body, store.Meta{})
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	failLeavingNothing(t, s, dir, store.Meta{Size: store.SizeUnknown, MaxSize: 6, SHA256: sha256.Sum256(body[:6])}, map[string]func(w store.Writer) error{
		"too large": func(w store.Writer) error { w.Write(body[:4]); _, err := w.Write(body[4:]); return err },
		"abort":     func(w store.Writer) error { w.Write(body); w.Abort(); return w.Commit(ctx) },
		"canceled":  func(w store.Writer) error { w.Write(body); return w.Commit(canceled) },
		"digest":    func(w store.Writer) error { w.Write(body[1:]); return w.Commit(ctx) },
	})
}

// failLeavingNothing runs each attempt on a writer of m under the ID
// "fresh", wants it to fail, and checks that it left nothing: tmp/ empty,
// and objects/ holding only the object "taken" the test committed before.
func failLeavingNothing(t *testing.T, s *diskstore.Store, dir string, m store.Meta, attempts map[string]func(w store.Writer) error) {
	t.Helper()
	for name, attempt := range attempts {
		w, err := s.Create(context.Background(), "fresh", m)
		if err != nil {
			t.Fatal(err)
		}
		if err := attempt(w); err == nil {
			t.Errorf("%s: attempt succeeded", name)
		}
		w.Abort()
		if got := names(t, dir, "tmp"); len(got) != 0 {
			t.Errorf("%s: tmp/ holds %q", name, got)
		}
		if got := names(t, dir, "objects"); len(got) != 1 || got[0] != "taken" {
			t.Errorf("%s: objects/ holds %q, want [taken]", name, got)
		}
	}
}
