package gen_test

import (
	"bytes"
	"os"
	"strconv"
)

// peakRSS returns the most memory this process has had resident at once
// since it started its program, in bytes: VmHWM in /proc/self/status.
// getrusage's maxrss would not do: on exec, Linux carries over the peak of
// the memory the process had before, which for a process the go runtime
// starts (with vfork) is its parent's.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(v) // "28080", "kB"
			if len(f) != 2 {
				return 0
			}
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
