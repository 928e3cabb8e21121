// Package diskstore is a [store.Store] in a directory on local disk: the
// default store of the transfer layer, for a server on one machine or
// replicas sharing one file system. Servers make one with [New] and pass it
// to the transfer options; nothing else calls it.
//
// # Layout
//
// The directory holds two subdirectories, created with mode 0700:
//
//	tmp/       objects being written, one file each, mode 0600
//	objects/   committed objects, one file per ID, named by the ID
//
// A committed object is one file: the object's bytes, then its metadata as
// JSON, then the JSON's length (4 bytes, big-endian) and the magic
// "MCPFILE1". Keeping bytes and metadata in one file makes commit a single
// atomic step, and a restart reads everything back from objects/.
//
// # Commit
//
// A [store.Writer] writes the bytes to a temporary file in tmp/ (streaming:
// it holds none of them), hashing them as they go, and never past the
// declared size (or the maximum size, for an object of
// [store.SizeUnknown]). Commit checks the size and digest, records the
// length written as the object's size, appends the metadata,
// syncs the file, and hard-links it into objects/ under its ID. The link
// fails if the name exists, so commit is create-if-absent (the O_EXCL of
// renames); then it syncs objects/ so the commit survives a crash, and
// removes the temporary name. Any failure removes the temporary file, and
// leaves objects/ as it was.
//
// The file system must support hard links (every local Unix file system and
// NTFS do). On a case-insensitive file system, IDs that differ only in case
// share a name: the second to commit gets [store.ErrExists], and an object
// is never found under the other spelling (each records its exact ID).
//
// # Sweeping
//
// [Store.Sweep] deletes expired objects, and temporary files not written to
// for [Options.TempGrace]: the leftovers of a crash or of a writer never
// committed or aborted. Run it periodically with [store.RunSweeper].
//
// # Usage
//
// A Store is a [store.Usager]: [Store.Usage] answers from an index in
// memory, without touching the disk, so the transfer layer can ask on every
// upload. [New] builds the index by reading the metadata of every committed
// object, so a restarted process counts what the last one left. Commit,
// Delete and Sweep keep it up to date. It takes about 150 bytes of memory
// per object, and a call costs the same however many objects there are
// (plus a step for each expired object not yet swept).
//
// Usage counts, for one owner, the bytes of the committed objects that
// [Store.Stat] would return at the given time (unexpired and readable),
// plus the declared sizes of the owner's open writers (the maximum size, for
// a writer of unknown size): a writer is counted from Create until it
// commits (then as its object, at the length written, never twice), aborts,
// fails, or its temporary file is swept. Counting writers closes, within
// one process, the race of concurrent uploads by one owner that each check
// usage + size against the quota before Create: the second sees the first.
//
// The index is per process, and so is a quota kept with it. Processes
// sharing the directory do not see each other's open writers, and see each
// other's commits and deletes only at their next Sweep, which reconciles the
// index with the disk (it reads every object's metadata anyway). So N
// replicas, each holding an owner to the same quota, can let the owner reach
// up to N times it between sweeps. An object deleted through an ID that
// differs only in case, on a case-insensitive file system, likewise counts
// until the next Sweep.
package diskstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// DefaultTempGrace is the TempGrace of Options that set none.
const DefaultTempGrace = time.Hour

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Now returns the current time, against which Stat and Open check
	// expiry. Nil means time.Now.
	Now func() time.Time
	// TempGrace is how long a temporary file may go unwritten before Sweep
	// deletes it. Zero means DefaultTempGrace. A writer whose file is swept
	// fails at Commit and leaves nothing behind.
	TempGrace time.Duration
}

// Store is a [store.Store] and a [store.Usager] in a directory. It is safe
// for concurrent use, also by several processes sharing the directory
// (though [Store.Usage] is then per process; see the package doc). Make one
// with [New].
type Store struct {
	objects, tmp string
	now          func() time.Time
	grace        time.Duration

	index *index
	// locks serialize, per ID, a change on disk with the index's record of
	// it, so that the index never counts an object deleted or fails to
	// count one committed. IDs that differ only in case share a lock, as
	// they may share a file.
	locks [64]sync.Mutex
}

var (
	_ store.Store       = (*Store)(nil)
	_ store.Usager      = (*Store)(nil)
	_ store.TotalUsager = (*Store)(nil)
)

const (
	magic      = "MCPFILE1"
	footerLen  = 4 + len(magic)
	maxMetaLen = 64 << 10 // the largest metadata JSON a Store writes or reads
)

// New returns a Store in dir, creating dir, dir/tmp and dir/objects as
// needed. Objects committed earlier in dir, by this process or another, are
// there: New reads the metadata of each to count it in [Store.Usage], which
// takes one small read per object. Files in objects/ that it cannot read as
// objects are not counted. A nil o means the zero Options.
func New(dir string, o *Options) (*Store, error) {
	if o == nil {
		o = &Options{}
	}
	s := &Store{
		objects: filepath.Join(dir, "objects"),
		tmp:     filepath.Join(dir, "tmp"),
		now:     o.Now,
		grace:   o.TempGrace,
		index:   newIndex(),
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.grace <= 0 {
		s.grace = DefaultTempGrace
	}
	for _, d := range []string{s.objects, s.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("diskstore: %w", err)
		}
	}
	err := eachEntry(context.Background(), s.objects, func(e fs.DirEntry) error {
		id := e.Name()
		if store.ValidID(id) != nil {
			return nil
		}
		if m, err := s.readObject(id); err == nil {
			s.index.add(id, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// readObject reads the metadata of the committed object id, expired or not.
func (s *Store) readObject(id string) (store.Meta, error) {
	f, err := os.Open(s.path(id))
	if err != nil {
		return store.Meta{}, err
	}
	defer f.Close()
	return readMeta(f, id)
}

// lock returns the lock of id.
func (s *Store) lock(id string) *sync.Mutex {
	h := uint32(2166136261) // FNV-1a of id in lower case
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint32(c)) * 16777619
	}
	return &s.locks[h%uint32(len(s.locks))]
}

// Usage implements [store.Usager]: the bytes of owner's committed objects
// unexpired at now, and the declared sizes (or maximum sizes) of its open
// writers in this process. It reads only memory; see the package doc for
// what it counts when processes share the directory.
func (s *Store) Usage(ctx context.Context, owner string, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.index.usage(owner, now), nil
}

// TotalUsage implements [store.TotalUsager] from the same index as
// [Store.Usage]: the bytes of every owner's objects unexpired at now and
// of every open writer of this Store.
func (s *Store) TotalUsage(ctx context.Context, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.index.totalUsage(now), nil
}

// record is the metadata JSON stored after an object's bytes.
type record struct {
	ID        string    `json:"id"`
	Size      int64     `json:"size"`
	MediaType string    `json:"mediaType,omitempty"`
	Name      string    `json:"name,omitempty"`
	Owner     string    `json:"owner,omitempty"`
	SHA256    string    `json:"sha256"`
	Expires   time.Time `json:"expires,omitzero"`
}

// Create implements [store.Store.Create]. It fails with [store.ErrExists]
// at once when id is committed, so a replayed upload is refused before its
// bytes are read. The writer counts m.Size (or m.MaxSize, when the size is
// [store.SizeUnknown]) in [Store.Usage] of m.Owner until it commits, aborts
// or fails.
func (s *Store) Create(ctx context.Context, id string, m store.Meta) (store.Writer, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return nil, err
	}
	limit, err := m.Limit()
	if err != nil {
		return nil, err
	}
	// The metadata must fit the trailer; check now, not after the bytes,
	// with the longest size the object can have.
	longest := m
	longest.Size = limit
	if meta, err := encodeMeta(id, longest); err != nil {
		return nil, err
	} else if len(meta) > maxMetaLen {
		return nil, fmt.Errorf("diskstore: metadata of %d bytes (want at most %d)", len(meta), maxMetaLen)
	}
	if _, err := os.Lstat(s.path(id)); err == nil {
		return nil, store.ErrExists
	}
	f, err := os.CreateTemp(s.tmp, "*.part") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("diskstore: %w", err)
	}
	w := &writer{s: s, id: id, meta: m, limit: limit, f: f, name: filepath.Base(f.Name()), h: sha256.New()}
	// Made once, so that starting it (go w.writeChunk()) allocates nothing.
	w.writeChunk = func() {
		w.chunkN, w.chunkErr = w.f.Write(w.chunk)
		w.writing.Done()
	}
	s.index.reserve(w.name, m.Owner, limit)
	return w, nil
}

func encodeMeta(id string, m store.Meta) ([]byte, error) {
	b, err := json.Marshal(record{
		ID:        id,
		Size:      m.Size,
		MediaType: m.MediaType,
		Name:      m.Name,
		Owner:     m.Owner,
		SHA256:    hex.EncodeToString(m.SHA256[:]),
		Expires:   m.Expires,
	})
	if err != nil {
		return nil, fmt.Errorf("diskstore: %w", err)
	}
	return b, nil
}

func (s *Store) path(id string) string { return filepath.Join(s.objects, id) }

// Stat implements [store.Store.Stat].
func (s *Store) Stat(ctx context.Context, id string) (store.Meta, error) {
	f, m, err := s.open(ctx, id)
	if err != nil {
		return store.Meta{}, err
	}
	f.Close()
	return m, nil
}

// Open implements [store.Store.Open]. The reader reads the object's file;
// deleting the object does not disturb an open reader on Unix.
func (s *Store) Open(ctx context.Context, id string) (store.Reader, error) {
	f, m, err := s.open(ctx, id)
	if err != nil {
		return nil, err
	}
	return &reader{io.NewSectionReader(f, 0, m.Size), f}, nil
}

// open opens the unexpired committed object id and reads its metadata.
func (s *Store) open(ctx context.Context, id string) (*os.File, store.Meta, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return nil, store.Meta{}, err
	}
	f, err := os.Open(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, store.Meta{}, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Meta{}, fmt.Errorf("diskstore: %w", err)
	}
	m, err := readMeta(f, id)
	if err == nil && m.Expired(s.now()) {
		err = store.ErrNotFound
	}
	if err != nil {
		f.Close()
		return nil, store.Meta{}, err
	}
	return f, m, nil
}

// A corruptError reports a file in objects/ that is not an object.
type corruptError struct{ id, why string }

func (e *corruptError) Error() string {
	return fmt.Sprintf("diskstore: object %q is corrupt: %s", e.id, e.why)
}

// readMeta reads the metadata at the end of the object file f, which must
// be the object id. An object that does not match is reported as corrupt,
// or, when it records another ID (a case-insensitive alias), as not found.
func readMeta(f *os.File, id string) (store.Meta, error) {
	corrupt := func(why string) (store.Meta, error) {
		return store.Meta{}, &corruptError{id, why}
	}
	fi, err := f.Stat()
	if err != nil {
		return store.Meta{}, fmt.Errorf("diskstore: %w", err)
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() {
		return corrupt("not a regular file")
	}
	if size < int64(footerLen) {
		return corrupt("too short")
	}
	var foot [footerLen]byte
	if _, err := f.ReadAt(foot[:], size-int64(footerLen)); err != nil {
		return store.Meta{}, fmt.Errorf("diskstore: %w", err)
	}
	if string(foot[4:]) != magic {
		return corrupt("no trailer")
	}
	n := int64(binary.BigEndian.Uint32(foot[:4]))
	if n > maxMetaLen || n > size-int64(footerLen) {
		return corrupt("bad metadata length")
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-int64(footerLen)-n); err != nil {
		return store.Meta{}, fmt.Errorf("diskstore: %w", err)
	}
	var r record
	if err := json.Unmarshal(buf, &r); err != nil {
		return corrupt("bad metadata: " + err.Error())
	}
	if r.ID != id {
		return store.Meta{}, store.ErrNotFound
	}
	if r.Size != size-int64(footerLen)-n {
		return corrupt("size does not match")
	}
	m := store.Meta{Size: r.Size, MediaType: r.MediaType, Name: r.Name, Owner: r.Owner, Expires: r.Expires}
	if d, err := hex.DecodeString(r.SHA256); err != nil || len(d) != len(m.SHA256) {
		return corrupt("bad sha256")
	} else {
		copy(m.SHA256[:], d)
	}
	return m, nil
}

// Delete implements [store.Store.Delete].
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := store.CheckCall(ctx, id); err != nil {
		return err
	}
	mu := s.lock(id)
	mu.Lock()
	defer mu.Unlock()
	if err := os.Remove(s.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("diskstore: %w", err)
	}
	s.index.remove(id)
	return nil
}

// Sweep implements [store.Store.Sweep]: it deletes the objects expired at
// now and the temporary files last written more than TempGrace before now,
// and counts both. Names in objects/ that are not IDs are left alone. It
// goes on past an object it cannot read, and returns the errors joined.
//
// Sweep also reconciles the index of [Store.Usage] with the disk: it counts
// the objects it reads that the index lacks (committed by another process)
// and stops counting those it no longer finds (deleted by another).
func (s *Store) Sweep(ctx context.Context, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	epoch := s.index.beginSweep()
	err := eachEntry(ctx, s.objects, func(e fs.DirEntry) error {
		if store.ValidID(e.Name()) != nil {
			return nil
		}
		deleted, err := s.sweepObject(e.Name(), now, epoch)
		if deleted {
			n++
		}
		if err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	// The index counts objects the listing did not show: committed since
	// it passed their names, or gone. Check each against the disk.
	for _, id := range s.index.unseen(epoch) {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		s.forgetIfGone(id)
	}
	err = eachEntry(ctx, s.tmp, func(e fs.DirEntry) error {
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // committed or aborted meanwhile
		}
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if now.Sub(fi.ModTime()) <= s.grace {
			return nil
		}
		switch err := os.Remove(filepath.Join(s.tmp, e.Name())); {
		case err == nil:
			s.index.release(e.Name())
			n++
		case !errors.Is(err, fs.ErrNotExist):
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("diskstore: sweep: %w", err)
	}
	return n, nil
}

// sweepObject deletes the object id if it has expired at now, and brings
// the index's record of id in line with the disk for the Sweep of epoch.
func (s *Store) sweepObject(id string, now time.Time, epoch uint64) (deleted bool, err error) {
	mu := s.lock(id)
	mu.Lock()
	defer mu.Unlock()
	p := s.path(id)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		s.index.remove(id)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	m, err := readMeta(f, id)
	if errors.Is(err, store.ErrNotFound) {
		s.index.remove(id)
		return false, nil // an alias on a case-insensitive file system
	}
	if errors.As(err, new(*corruptError)) {
		s.index.remove(id) // not an object Stat would return
	}
	if err != nil {
		return false, err
	}
	if !m.Expired(now) {
		s.index.found(id, m, epoch)
		return false, nil
	}
	// Remove the file read, not one committed under the same ID since.
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	if cur, err := os.Lstat(p); err != nil || !os.SameFile(fi, cur) {
		return false, nil
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.index.remove(id)
			return false, nil
		}
		return false, err
	}
	s.index.remove(id)
	return true, nil
}

// forgetIfGone stops counting the object id if there is no file for it.
func (s *Store) forgetIfGone(id string) {
	mu := s.lock(id)
	mu.Lock()
	defer mu.Unlock()
	if _, err := os.Lstat(s.path(id)); errors.Is(err, fs.ErrNotExist) {
		s.index.remove(id)
	}
}

// eachEntry calls fn for each entry of dir, reading the directory in
// batches so that a large one is not held in memory.
func eachEntry(ctx context.Context, dir string, fn func(fs.DirEntry) error) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("diskstore: %w", err)
	}
	defer d.Close()
	for {
		es, err := d.ReadDir(256)
		for _, e := range es {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("diskstore: %w", err)
		}
	}
}

type reader struct {
	*io.SectionReader
	f *os.File
}

func (r *reader) Close() error { return r.f.Close() }

// parallelHashMin is the smallest write that a writer copies into the file
// on another goroutine while it hashes the bytes. Below it, starting and
// waiting for the goroutine would cost more than the overlap saves.
const parallelHashMin = 64 << 10

type writer struct {
	s       *Store
	id      string
	meta    store.Meta
	limit   int64    // the most bytes it takes: meta.Size, or meta.MaxSize
	f       *os.File // nil once the writer is spent
	name    string   // of f in tmp/, which keys its reservation in the index
	h       hash.Hash
	written int64
	flushed int64 // bytes whose writeback has been started
	err     error // why the writer is spent

	// Write copies a large p into the file on a goroutine of its own
	// (writeChunk, of chunk, giving chunkN and chunkErr) while it hashes p,
	// and waits for it before it returns.
	chunk      []byte
	chunkN     int
	chunkErr   error
	writeChunk func()
	writing    sync.WaitGroup
}

func (w *writer) Write(p []byte) (int, error) {
	if w.f == nil {
		return 0, w.err
	}
	if int64(len(p)) > w.limit-w.written {
		w.discard(store.ErrTooLarge)
		return 0, store.ErrTooLarge
	}
	var n int
	var err error
	if len(p) >= parallelHashMin {
		// SHA-256 costs more than the copy into the page cache; side by
		// side on two cores, a 1 GiB upload took 4 to 8 % less time
		// (BENCHMARKS.md §7). The hash stays on this goroutine and the
		// system call goes to the new one: the other way round, the
		// hash waited in this processor's queue for the write to return.
		// A failed write spends the writer, so the hash of bytes it did
		// not write is never used.
		w.chunk = p
		w.writing.Add(1)
		go w.writeChunk()
		w.h.Write(p)
		w.writing.Wait()
		n, err = w.chunkN, w.chunkErr
		w.chunk = nil
	} else {
		n, err = w.f.Write(p)
		w.h.Write(p[:n])
	}
	w.written += int64(n)
	if w.written-w.flushed >= writebackChunk {
		// Start writing the file's pages to disk now, so that Commit's
		// Sync has little left to wait for.
		startWriteback(w.f, w.flushed, w.written-w.flushed)
		w.flushed = w.written
	}
	if err != nil {
		err = fmt.Errorf("diskstore: %w", err)
		w.discard(err)
		return n, err
	}
	return n, nil
}

// discard removes the temporary file and spends the writer with err.
func (w *writer) discard(err error) {
	if w.f == nil {
		return
	}
	w.f.Close()
	os.Remove(w.f.Name())
	w.s.index.release(w.name) // does nothing once committed
	w.f = nil
	w.err = err
}

func (w *writer) Abort() error {
	w.discard(store.ErrClosed)
	return nil
}

func (w *writer) Commit(ctx context.Context) error {
	if w.f == nil {
		err := w.err
		w.err = store.ErrClosed
		return err
	}
	err := w.commit(ctx)
	w.discard(store.ErrClosed) // the object, if committed, is its own link
	w.err = store.ErrClosed
	return err
}

func (w *writer) commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.meta.Size != store.SizeUnknown && w.written != w.meta.Size {
		return store.ErrIncomplete
	}
	m := w.meta
	m.Size, m.MaxSize = w.written, 0
	w.h.Sum(m.SHA256[:0])
	if w.meta.SHA256 != ([32]byte{}) && w.meta.SHA256 != m.SHA256 {
		return store.ErrDigest
	}
	meta, err := encodeMeta(w.id, m)
	if err != nil {
		return err
	}
	trailer := binary.BigEndian.AppendUint32(meta, uint32(len(meta)))
	trailer = append(trailer, magic...)
	if _, err := w.f.Write(trailer); err != nil {
		return fmt.Errorf("diskstore: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("diskstore: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst := w.s.path(w.id)
	mu := w.s.lock(w.id)
	mu.Lock()
	defer mu.Unlock()
	if err := os.Link(w.f.Name(), dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return store.ErrExists
		}
		return fmt.Errorf("diskstore: %w", err)
	}
	if err := syncDir(w.s.objects); err != nil {
		// Not durable: undo, so that a failed Commit leaves nothing.
		os.Remove(dst)
		return fmt.Errorf("diskstore: %w", err)
	}
	w.s.index.commit(w.name, w.id, m)
	return nil
}

// syncDir makes the entries of dir durable. Windows cannot sync a
// directory, and NTFS does not need it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
