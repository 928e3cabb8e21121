// Package par runs the generator's per-type work on every processor.
package par

import (
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// Each calls f(i) for every i in [0, n), on as many goroutines as there are
// processors, and returns the first error a call returned. After an error,
// the calls not yet started are skipped.
//
// Each goroutine takes the next index until none are left, rather than one
// goroutine being started per index: a goroutine's stack grows by copying,
// and the generator's work (type inference, formatting) is deep enough that
// growing a fresh stack for every type cost more than the work's own
// allocations.
func Each(n int, f func(i int) error) error {
	var (
		g      errgroup.Group
		next   atomic.Int64
		failed atomic.Bool
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		g.Go(func() error {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return nil
				}
				if err := f(i); err != nil {
					failed.Store(true)
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}
