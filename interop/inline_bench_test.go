package interop

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// BenchmarkInlineVersusTypeScript times a tools/call of describe_image
// with a PNG of 1, 4 and 20 MiB, over stdio and streamable HTTP (protocol
// 2025-11-25), against three servers, each a process of its own started
// for the sub-benchmark, alternating with -count:
//
//   - server=go: the example's tool (internal/benchserver: maxSize 24 MiB)
//     served by runtime/serve, whose fast path decodes the file from the
//     message;
//   - server=go-sdk: the same tool served by the go-sdk's own stdio
//     transport and HTTP handler;
//   - server=ts: tsserver.mjs, the tool on the official TypeScript SDK,
//     decoding the base64 by hand;
//   - server=go-nohash: server=go with a tool that does not hash the
//     image (benchserver -nohash): the serving path's own cost, beside
//     the work of the example's tool and the TypeScript one.
//
// One client for all, in this process: mcptest.RawClient, which sends a
// message built beforehand and reads the answer as bytes, so that the
// time is the server's and the transport's. Besides the time, each
// sub-benchmark reports the server process's CPU time per call and per
// MiB of file (utime+stime from /proc, in 10 ms ticks: give it enough
// calls) and its peak resident memory (VmHWM): after the first call (of a
// process that has served none: server-first-peak-MiB, beside its
// server-baseline-MiB before it) and after all of them, which the
// collector's pace sets. Compare with
//
//	benchstat -col /server bench.txt
func BenchmarkInlineVersusTypeScript(b *testing.B) {
	node := requireNode(b)
	bin := buildBenchServer(b)
	for _, mib := range []int{1, 4, 20} {
		data := mcptest.PNG(b, 4, 4, false)
		rest := make([]byte, mib<<20-len(data))
		_, _ = rand.NewChaCha8([32]byte{byte(mib)}).Read(rest)
		data = append(data, rest...)
		msg := mcptest.RawCall("describe_image", map[string]any{"image": mcptest.DataURI("image/png", data)})
		want := fmt.Sprintf("%x", sha256.Sum256(data))
		for _, transport := range []string{"stdio", "http"} {
			for _, server := range []string{"go", "go-sdk", "ts", "go-nohash"} {
				b.Run(fmt.Sprintf("transport=%s/size=%dMiB/server=%s", transport, mib, server), func(b *testing.B) {
					var cmd *exec.Cmd
					switch server {
					case "go":
						cmd = exec.Command(bin)
					case "go-sdk":
						cmd = exec.Command(bin, "-sdk")
					case "go-nohash":
						cmd = exec.Command(bin, "-nohash")
					case "ts":
						cmd = exec.Command(node, "tsserver.mjs")
					}
					c := startBenchServer(b, cmd, transport)
					pid := cmd.Process.Pid
					want := want
					if server == "go-nohash" {
						want = fmt.Sprintf(`"size":%d`, len(data))
					}
					baseline := peakKiB(b, pid)
					if ans, err := c.Call(msg); err != nil || !mcptest.RawOK(ans, want) { // warm up
						b.Fatalf("call: %v %.300s", err, ans)
					}
					first := peakKiB(b, pid)
					cpu := cpuTicks(b, pid)
					b.SetBytes(int64(len(data)))
					for b.Loop() {
						ans, err := c.Call(msg)
						if err != nil || !mcptest.RawOK(ans, want) {
							b.Fatalf("call: %v %.300s", err, ans)
						}
					}
					ms := float64(cpuTicks(b, pid)-cpu) * 10 / float64(b.N) // USER_HZ is 100 on Linux
					b.ReportMetric(ms, "server-cpu-ms/op")
					b.ReportMetric(ms/float64(mib), "server-cpu-ms/MiB")
					b.ReportMetric(float64(peakKiB(b, pid))/1024, "server-peak-MiB")
					b.ReportMetric(float64(baseline)/1024, "server-baseline-MiB")
					b.ReportMetric(float64(first)/1024, "server-first-peak-MiB")
				})
			}
		}
	}
}

var (
	benchServerOnce sync.Once
	benchServerBin  string
	benchServerErr  error
)

// buildBenchServer builds internal/benchserver once per test binary.
func buildBenchServer(b *testing.B) string {
	benchServerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpfile-bench-")
		if err != nil {
			benchServerErr = err
			return
		}
		benchServerBin = filepath.Join(dir, "benchserver")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", benchServerBin, "./internal/benchserver").CombinedOutput(); err != nil {
			benchServerErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if benchServerErr != nil {
		b.Fatal(benchServerErr)
	}
	b.Cleanup(func() {}) // the binary is removed with its directory by the OS's temp cleanup
	return benchServerBin
}

// startBenchServer starts cmd serving over transport and returns a
// RawClient of it; the process ends with b.
func startBenchServer(b *testing.B, cmd *exec.Cmd, transport string) *mcptest.RawClient {
	cmd.Stderr = os.Stderr
	if transport == "stdio" {
		in, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
		c, err := mcptest.RawStdio(out, in)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if strings.HasSuffix(cmd.Path, "node") {
		_, port, _ := net.SplitHostPort(addr)
		cmd.Args = append(cmd.Args, "--http", port)
	} else {
		cmd.Args = append(cmd.Args, "-http", addr)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err := mcptest.RawHTTP("http://" + addr + "/mcp")
		if err == nil {
			b.Cleanup(func() { c.Close() })
			return c
		}
		if time.Now().After(deadline) {
			b.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cpuTicks returns the CPU time process pid has used, user and system, in
// clock ticks.
func cpuTicks(b *testing.B, pid int) int64 {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Skipf("no /proc to read a server's CPU time from: %v", err)
	}
	// The fields after the command's name, which is in parentheses.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return utime + stime
}

// peakKiB returns the peak resident memory of process pid, in KiB.
func peakKiB(b *testing.B, pid int) int64 {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Skipf("no /proc to read a server's memory from: %v", err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
