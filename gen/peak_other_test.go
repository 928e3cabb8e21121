//go:build !linux

package gen_test

// peakRSS is not measured here: BenchmarkGenerateProcess is skipped.
func peakRSS() int64 { return 0 }
