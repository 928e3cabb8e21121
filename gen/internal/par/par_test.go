package par

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 8} {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		for _, n := range []int{0, 1, 7, 200} {
			var mu sync.Mutex
			seen := make([]int, n)
			if err := Each(n, func(i int) error {
				mu.Lock()
				seen[i]++
				mu.Unlock()
				return nil
			}); err != nil {
				t.Fatalf("GOMAXPROCS %d, n %d: %v", procs, n, err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Errorf("GOMAXPROCS %d, n %d: index %d called %d times", procs, n, i, c)
				}
			}
		}
	}
}

func TestEachRunsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	// Every call waits for all four: this finishes only if four run at once.
	var wg sync.WaitGroup
	wg.Add(4)
	if err := Each(4, func(int) error {
		wg.Done()
		wg.Wait()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestEachStopsAtAnError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	boom := errors.New("boom")
	var calls atomic.Int64
	err := Each(100, func(i int) error {
		calls.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if err != boom {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("%d calls, want 4: the calls after the error are skipped", n)
	}
}
