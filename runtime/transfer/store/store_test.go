package store_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/internal/observe/observetest"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/storetest"
)

func TestValidID(t *testing.T) {
	for _, id := range storetest.BadIDs {
		err := store.ValidID(id)
		if !errors.Is(err, store.ErrBadID) {
			t.Errorf("ValidID(%q) = %v, want ErrBadID", id, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "A-Z a-z 0-9 - _") || strings.ContainsRune(msg, 0) {
			t.Errorf("ValidID(%q) = %q, want a one-line error naming what is allowed", id, msg)
		}
	}
	for _, id := range storetest.GoodIDs {
		if err := store.ValidID(id); err != nil {
			t.Errorf("ValidID(%q) = %v, want nil", id, err)
		}
	}
}

// FuzzValidID checks that every accepted ID is one plain, local file name
// and one URL path segment that needs no escaping.
func FuzzValidID(f *testing.F) {
	for _, id := range append(storetest.BadIDs, storetest.GoodIDs...) {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		err := store.ValidID(id)
		if err != nil {
			if !errors.Is(err, store.ErrBadID) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("ValidID(%q) = %v, want a one-line ErrBadID", id, err)
			}
			return
		}
		if len(id) == 0 || len(id) > store.MaxIDLen {
			t.Fatalf("ValidID accepted %q of length %d", id, len(id))
		}
		if !filepath.IsLocal(id) || filepath.Base(id) != id || filepath.Clean(id) != id || id == "." || id == ".." {
			t.Fatalf("ValidID accepted %q, which is not one local file name", id)
		}
		if url.PathEscape(id) != id || url.QueryEscape(id) != id {
			t.Fatalf("ValidID accepted %q, which needs escaping in a URL", id)
		}
	})
}

func TestMetaExpired(t *testing.T) {
	now := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		expires time.Time
		want    bool
	}{
		{time.Time{}, false},
		{now.Add(time.Nanosecond), false},
		{now, true},
		{now.Add(-time.Hour), true},
	} {
		if got := (store.Meta{Expires: tc.expires}).Expired(now); got != tc.want {
			t.Errorf("Meta{Expires: %v}.Expired(%v) = %v, want %v", tc.expires, now, got, tc.want)
		}
	}
}

func TestRunSweeper(t *testing.T) {
	var logs observetest.Recorder
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logs.Logger())
	ctx, cancel := context.WithCancel(context.Background())
	s := memstore.New(nil)
	w, err := s.Create(ctx, "old", store.Meta{Size: 1, Expires: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("x"))
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	swept := make(chan int, 100)
	done := make(chan struct{})
	go func() {
		store.RunSweeper(ctx, s, time.Millisecond, func(n int, err error) {
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			swept <- n
		})
		close(done)
	}()
	for n := range swept {
		if n == 1 {
			break
		}
	}
	cancel()
	<-done // returns once ctx is done
	if n, err := s.Sweep(context.Background(), time.Now()); n != 0 || err != nil {
		t.Errorf("Sweep after the sweeper = %d, %v, want 0, nil", n, err)
	}
	// Each sweep is recorded to the default logger.
	if got := logs.Find("sweep", "store", "*memstore.Store", "deleted", "1"); len(got) != 1 {
		t.Errorf("%d records of the sweep that deleted the file, want 1; have %v", len(got), logs.Records())
	}
}

// TestRunSweeperCutShort: a sweep that the end of ctx cuts short, as when
// a server stops during one, is no failed sweep: neither reported nor
// recorded.
func TestRunSweeperCutShort(t *testing.T) {
	var logs observetest.Recorder
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logs.Logger())
	ctx, cancel := context.WithCancel(context.Background())
	s := cutShort{memstore.New(nil), cancel}
	reported := 0
	store.RunSweeper(ctx, s, time.Millisecond, func(int, error) { reported++ })
	if reported != 0 || len(logs.Records()) != 0 {
		t.Errorf("a sweep cut short by the end of ctx: %d reports, records %v; want none", reported, logs.Records())
	}
}

// cutShort is a store whose sweep ends ctx, as a server stopping does.
type cutShort struct {
	*memstore.Store
	cancel context.CancelFunc
}

func (s cutShort) Sweep(ctx context.Context, now time.Time) (int, error) {
	s.cancel()
	return 0, ctx.Err()
}

func TestMetaLimit(t *testing.T) {
	for _, tc := range []struct {
		m       store.Meta
		want    int64
		wantErr string // in the error; "" for none
	}{
		{store.Meta{Size: 0}, 0, ""},
		{store.Meta{Size: 10}, 10, ""},
		{store.Meta{Size: 10, MaxSize: 3}, 10, ""},
		{store.Meta{Size: 10, MaxSize: -3}, 10, ""},
		{store.Meta{Size: store.SizeUnknown, MaxSize: 1}, 1, ""},
		{store.Meta{Size: store.SizeUnknown, MaxSize: 1 << 40}, 1 << 40, ""},
		{store.Meta{Size: store.SizeUnknown}, 0, "MaxSize 0 (want a MaxSize above 0 with SizeUnknown)"},
		{store.Meta{Size: store.SizeUnknown, MaxSize: -1}, 0, "MaxSize -1 (want a MaxSize above 0"},
		{store.Meta{Size: -2, MaxSize: 10}, 0, "size -2 (want 0 or more, or SizeUnknown"},
	} {
		got, err := tc.m.Limit()
		switch {
		case tc.wantErr == "" && (got != tc.want || err != nil):
			t.Errorf("Meta{Size: %d, MaxSize: %d}.Limit() = %d, %v, want %d, nil", tc.m.Size, tc.m.MaxSize, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("Meta{Size: %d, MaxSize: %d}.Limit() = %d, %v, want an error with %q", tc.m.Size, tc.m.MaxSize, got, err, tc.wantErr)
		}
	}
}
