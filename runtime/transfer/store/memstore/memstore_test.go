package memstore_test

import (
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		return memstore.New(&memstore.Options{Now: now})
	})
}

// BenchmarkStore is the suite every backend runs (storetest.Benchmark).
func BenchmarkStore(b *testing.B) {
	storetest.Benchmark(b, memstore.New(nil))
}
