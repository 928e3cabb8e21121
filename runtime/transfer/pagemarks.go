package transfer

// What replicas sharing a store tell each other of upload pages (see
// page.go), without a database: small marker objects in the store, beside
// the page's file (ID the page's file ID and a suffix, owned by no caller,
// expiring after the page's last upload could end).
//
//   - <file ID>-end: the page ended without a file (declined, cancelled,
//     its call ended, its upload broke off or was cut), holding why, in
//     the words the waiting call ends with. The first end written wins
//     (the store's create-if-absent). Every replica answers the page and
//     its post with 410 once it is there, and the replica running the call
//     ends its wait with it.
//   - <file ID>-p<n>, n = 1, 2, …: the bytes received so far by a replica
//     that takes an upload of a page another replica minted, one marker a
//     second at most ("<received> <limit>"); the replica running the call
//     reads the new ones as it polls the store, and reports them as
//     progress. Each upload of the page starts after the last number used.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// Marker settings.
const (
	// markOwner owns the markers: no principal or session, so no quota
	// counts them against a caller.
	markOwner = "\x00page marker"
	// maxMarkLen is the longest marker body read.
	maxMarkLen = 1024
	// progressMarkEvery is the least time between two progress markers.
	progressMarkEvery = time.Second
	// maxProgressMarks is the most progress markers a page gets, across
	// its uploads.
	maxProgressMarks = 512
	// progressReadsPerPoll is the most progress markers one poll reads.
	progressReadsPerPoll = 16
)

func endMarkID(fileID string) string { return fileID + "-end" }

func progressMarkID(fileID string, n int) string { return fileID + "-p" + strconv.Itoa(n) }

// markExpiry is when the markers of a page that expires at pageExpires
// may go: after the last upload through it could have ended.
func (c *config) markExpiry(pageExpires time.Time) time.Time {
	return pageExpires.Add(c.PageTTL + keptFinished)
}

// putMark stores a marker whose body is text: nil, [store.ErrExists]
// when one of the ID exists already, or the store's failure (logged).
func (c *config) putMark(ctx context.Context, id, text string, pageExpires time.Time) error {
	w, err := c.Store.Create(ctx, id, store.Meta{Size: int64(len(text)), MediaType: "text/plain", Owner: markOwner, Expires: c.markExpiry(pageExpires)})
	if err == nil {
		defer w.Abort()
		if _, err = io.WriteString(w, text); err == nil {
			err = w.Commit(ctx)
		}
	}
	if err != nil && !errors.Is(err, store.ErrExists) {
		logInternal(c.obs, ctx, "upload page", "store a marker", err)
	}
	return err
}

// readMark returns the body of the marker id; ok false when there is none
// (or the store failed: logged).
func (c *config) readMark(ctx context.Context, id string) (string, bool) {
	r, err := c.Store.Open(ctx, id)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			logInternal(c.obs, ctx, "upload page", "open a marker", err)
		}
		return "", false
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxMarkLen))
	if err != nil {
		logInternal(c.obs, ctx, "upload page", "read a marker", err)
		return "", false
	}
	return string(b), true
}

// markEnded tells every replica that the page of fileID, which expires at
// pageExpires, ended without a file, for the reason why.
func (c *config) markEnded(ctx context.Context, fileID string, pageExpires time.Time, why error) {
	// Told even as the request that ended it ends.
	c.putMark(context.WithoutCancel(ctx), endMarkID(fileID), why.Error(), pageExpires)
}

// endedMark returns why the page of fileID ended, as some replica marked
// it; nil when none did.
func (c *config) endedMark(ctx context.Context, fileID string) error {
	if text, ok := c.readMark(ctx, endMarkID(fileID)); ok {
		return errors.New(text)
	}
	return nil
}

// markProgress writes progress markers of an upload of the page of fileID
// (which takes up to limit bytes and expires at pageExpires) that this
// replica did not mint, while the upload goes on: received is its count.
// It returns what ends it, to call when the upload is over.
func (c *config) markProgress(ctx context.Context, fileID string, limit int64, pageExpires time.Time, received *atomic.Int64) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := 1 // after the markers of earlier uploads of the page
		for ; n <= maxProgressMarks; n++ {
			if _, err := c.Store.Stat(ctx, progressMarkID(fileID, n)); err != nil {
				break
			}
		}
		t := time.NewTicker(progressMarkEvery)
		defer t.Stop()
		var marked int64
		for n <= maxProgressMarks {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if got := received.Load(); got != marked {
				marked = got
				err := c.putMark(ctx, progressMarkID(fileID, n), fmt.Sprintf("%d %d", got, limit), pageExpires)
				for n < maxProgressMarks && errors.Is(err, store.ErrExists) { // another upload of the page took it
					n++
					err = c.putMark(ctx, progressMarkID(fileID, n), fmt.Sprintf("%d %d", got, limit), pageExpires)
				}
				if err == nil {
					n++
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// progressMarks reads the progress markers after the n-th of the page of
// fileID, a few at most: the last one read (received of limit bytes), and
// the number of the last read; ok false when there was none.
func (c *config) progressMarks(ctx context.Context, fileID string, n int) (received, limit int64, last int, ok bool) {
	last = n
	for range progressReadsPerPoll {
		text, found := c.readMark(ctx, progressMarkID(fileID, last+1))
		if !found {
			break
		}
		last++
		r, l, cut := strings.Cut(text, " ")
		rv, err1 := strconv.ParseInt(r, 10, 64)
		lv, err2 := strconv.ParseInt(l, 10, 64)
		if cut && err1 == nil && err2 == nil {
			received, limit, ok = rv, lv, true
		}
	}
	return received, limit, last, ok
}
