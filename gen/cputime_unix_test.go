//go:build unix

package gen_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time used so far by this process and by the
// children it waited for (the go command that go/packages runs).
func cpuTime() time.Duration {
	var t time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) != nil {
			return 0
		}
		t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return t
}
