package s3store_test

import (
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/storetest"
)

// TestConformance runs the Store suite, signed requests too, over https,
// where S3 records the SHA-256 from a trailing checksum, and over plain
// http, where Stat computes an undeclared one.
func TestConformance(t *testing.T) {
	for _, gw := range servers(t) {
		t.Run(gw.name, func(t *testing.T) {
			storetest.RunClient(t, func(t *testing.T, now func() time.Time) store.Store {
				return newStore(t, gw, s3store.Options{Now: now})
			}, gw.http)
		})
	}
}

// BenchmarkStore is the suite every backend runs (storetest.Benchmark),
// over plain http to versitygw on loopback: what it measures is the store
// and the gateway together.
func BenchmarkStore(b *testing.B) {
	storetest.Benchmark(b, newStore(b, server(b, "http"), s3store.Options{}))
}
