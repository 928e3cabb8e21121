//go:build !unix

package gen_test

import "time"

// cpuTime is not measured here: BenchmarkGenerate reports no cpu-ns/op.
func cpuTime() time.Duration { return 0 }
