package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Load shape: 32 clients, each uploading 3 files of 1–5 MiB (~290 MiB
// decoded, ~390 MiB of base64 over loopback), or 1 file each under -race,
// which is several times slower: on 2 cores that took 20 s when the
// machine was quiet and 110 s when it was busy. MCPFILE_LOAD_CLIENTS and
// MCPFILE_LOAD_CALLS override.
const loadClients = 32

var loadCalls = map[bool]int{false: 3, true: 1}[raceEnabled]

const (
	envLoadURL   = "MCPFILE_LOAD_CHILD_URL"
	resultPrefix = "LOADRESULT "
)

type loadResult struct {
	Calls     int       // calls made
	Bytes     int64     // decoded bytes uploaded
	Latencies []float64 // milliseconds, one per call
	Errors    []string
	Wall      float64 // seconds, from the release of the uploads to the last answer
}

// TestLoad runs the server in this process and the clients in a child
// process (this test binary again, running TestLoadClientProcess), so that
// the heap measured here is the server's alone. Every call must come back
// with the SHA-256 of the file sent; the server's heap must stay under the
// bound stated in heapBound; no goroutine may be left once the clients
// have gone.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped in -short mode")
	}
	clients, calls := envInt("MCPFILE_LOAD_CLIENTS", loadClients), envInt("MCPFILE_LOAD_CALLS", loadCalls)
	tg := imageTarget(t)

	var inflight, peakInflight atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > 1<<20 {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for p := peakInflight.Load(); n > p && !peakInflight.CompareAndSwap(p, n); p = peakInflight.Load() {
			}
		}
		tg.handler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	base := settledGoroutines(0, time.Second)
	heap := startHeapSampler()
	cpu0 := cpuTime()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLoadClientProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envLoadURL+"="+srv.URL,
		"MCPFILE_LOAD_CLIENTS="+strconv.Itoa(clients), "MCPFILE_LOAD_CALLS="+strconv.Itoa(calls),
		"MCPFILE_LOAD_TOOL="+tg.imageTool, "MCPFILE_LOAD_ARG="+tg.imageArg, "MCPFILE_LOAD_MAX="+strconv.FormatInt(tg.imageMax, 10))
	out, err := cmd.CombinedOutput()
	peak, peakLive := heap.stop()
	serverCPU := cpuTime() - cpu0
	var res loadResult
	for line := range strings.Lines(string(out)) {
		if s, ok := strings.CutPrefix(line, resultPrefix); ok {
			if err := json.Unmarshal([]byte(s), &res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err != nil || res.Calls == 0 {
		t.Fatalf("load clients: %v\n%s", err, out)
	}

	for _, e := range res.Errors {
		t.Errorf("load: %s", e)
	}
	if want := clients * calls; res.Calls != want || len(res.Latencies) != want {
		t.Errorf("load: %d calls answered correctly, want %d", len(res.Latencies), want)
	}

	slices.Sort(res.Latencies)
	mib := float64(res.Bytes) / (1 << 20)
	t.Logf("load: %d clients × %d calls, files 1–5 MiB, %.0f MiB decoded in %.1fs over loopback (GOMAXPROCS=%d, race=%v)",
		clients, calls, mib, res.Wall, runtime.GOMAXPROCS(0), raceEnabled)
	t.Logf("load: throughput %.1f calls/s, %.1f MiB/s decoded; latency p50 %.0f ms, p99 %.0f ms, max %.0f ms; peak concurrent uploads at the server %d",
		float64(res.Calls)/res.Wall, mib/res.Wall, quantile(res.Latencies, 0.50), quantile(res.Latencies, 0.99), res.Latencies[len(res.Latencies)-1], peakInflight.Load())

	clientCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	t.Logf("load: server CPU %.1f s user+system for %.0f MiB, %.0f MiB decoded per CPU second (the figure least disturbed by other load on the machine); clients' CPU %.1f s",
		serverCPU.Seconds(), mib, mib/serverCPU.Seconds(), clientCPU.Seconds())

	bound, why := heapBound(tg, clients)
	simple := int64(clients)*(tg.maxBody+tg.imageMax) + 64<<20
	t.Logf("load: server live heap peak %.0f MiB (as GC marked it), bound %.0f MiB = %s; the one-copy estimate clients × (maxBody + maxSize) + 64 MiB would be %.0f MiB",
		mb(peakLive), mb(uint64(bound)), why, mb(uint64(simple)))
	t.Logf("load: server heap objects peak %.0f MiB (live and unswept garbage, sampled every 2 ms), bound 2 × %.0f MiB (GOGC=100)", mb(peak), mb(uint64(bound)))
	if int64(peakLive) > bound {
		t.Errorf("load: server live heap peaked at %d bytes, over the bound %d (%s)", peakLive, bound, why)
	}
	if int64(peak) > 2*bound {
		t.Errorf("load: server heap objects peaked at %d bytes, over twice the bound %d (%s)", peak, bound, why)
	}

	// The clients closed their sessions (DELETE) and exited; the server's
	// per-session and per-connection goroutines must go with them.
	srv.CloseClientConnections()
	if n := settledGoroutines(base, 10*time.Second); n > base {
		var b bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("load: %d goroutines after the clients left, %d before: leak?\n%s", n, base, b.String())
	} else {
		t.Logf("load: goroutines %d before, %d after the clients left", base, n)
	}
}

// heapBound is the most live heap the server may hold under load, from the
// declared limits: each in-flight call holds its request body (at most
// maxBody, the handler's MaxRequestBodyBytes) and its decoded file (at most
// maxSize). The go-sdk copies the body on its way to the handler (read
// buffer, JSON-RPC params, tool arguments, the validated re-encoding); at
// most two copies are alive at once in what we measured, so the body
// counts twice. Slack covers the runtime, the test binary and per-session
// state. The heap including garbage not yet collected may reach twice the
// live heap (GOGC=100).
func heapBound(tg target, clients int) (int64, string) {
	const bodyCopies = 2
	const slack = 64 << 20
	per := bodyCopies*tg.maxBody + tg.imageMax
	return int64(clients)*per + slack, fmt.Sprintf("%d clients × (%d × maxBody %.1f MiB + maxSize %.1f MiB) + %d MiB slack",
		clients, bodyCopies, float64(tg.maxBody)/(1<<20), float64(tg.imageMax)/(1<<20), slack>>20)
}

// TestLoadClientProcess is the client side of TestLoad, run in a child process.
func TestLoadClientProcess(t *testing.T) {
	url := os.Getenv(envLoadURL)
	if url == "" {
		t.Skip("child process of TestLoad")
	}
	clients, calls := envInt("MCPFILE_LOAD_CLIENTS", loadClients), envInt("MCPFILE_LOAD_CALLS", loadCalls)
	tool, arg := os.Getenv("MCPFILE_LOAD_TOOL"), os.Getenv("MCPFILE_LOAD_ARG")
	maxSize, _ := strconv.ParseInt(os.Getenv("MCPFILE_LOAD_MAX"), 10, 64)

	// Five real PNGs of 1, 2, 3, 4 and just under 5 MiB (never over maxSize).
	// Arguments are encoded once, not on every call.
	type file struct {
		args json.RawMessage
		sum  string
		size int
	}
	var files []file
	for i := 1; i <= 5; i++ {
		b := noisePNG(min(int64(i)<<20, maxSize) - 4096)
		args, _ := json.Marshal(map[string]string{arg: dataURI("image/png", b)})
		files = append(files, file{args, sha256Hex(b), len(b)})
	}

	var mu sync.Mutex
	res := loadResult{}
	fail := func(format string, args ...any) {
		mu.Lock()
		res.Errors = append(res.Errors, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Three phases, each all clients together: connect; upload; close (a
	// DELETE each, sent once every upload is answered so that a busy server
	// does not make it time out).
	var connected, uploaded, wg sync.WaitGroup
	connected.Add(clients)
	uploaded.Add(clients)
	ready := make(chan struct{})
	for c := range clients {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("load-%d", c), Version: "0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
			connected.Done()
			if err != nil {
				fail("client %d: connect: %v", c, err)
				uploaded.Done()
				return
			}
			<-ready
			for k := range calls {
				f := files[(c+k)%len(files)]
				mu.Lock()
				res.Calls++
				mu.Unlock()
				t0 := time.Now()
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: f.args})
				ms := float64(time.Since(t0).Microseconds()) / 1000
				switch {
				case err != nil:
					fail("client %d call %d (%d bytes): %v", c, k, f.size, err)
					continue
				case r.IsError:
					fail("client %d call %d (%d bytes): isError: %s", c, k, f.size, resultText(r))
					continue
				}
				b, _ := json.Marshal(r)
				if !bytes.Contains(b, []byte(f.sum)) {
					fail("client %d call %d (%d bytes): answer lacks the SHA-256 %s: %.300s", c, k, f.size, f.sum, b)
					continue
				}
				mu.Lock()
				res.Latencies = append(res.Latencies, ms)
				res.Bytes += int64(f.size)
				mu.Unlock()
			}
			uploaded.Done()
			uploaded.Wait()
			if err := cs.Close(); err != nil {
				fail("client %d: close: %v", c, err)
			}
		})
	}
	connected.Wait()
	start := time.Now()
	close(ready)
	uploaded.Wait()
	res.Wall = time.Since(start).Seconds()
	wg.Wait()
	b, _ := json.Marshal(res)
	fmt.Printf("%s%s\n", resultPrefix, b)
}

func resultText(r *mcp.CallToolResult) string {
	var s []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, " ")
}

// noisePNG returns a valid PNG of about size bytes: random pixels, stored
// without compression, so that its size is what was asked.
func noisePNG(size int64) []byte {
	const w = 512
	h := int(size / (w*4 + 1))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(uint64(size), 1))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.NoCompression}
	if err := enc.Encode(&b, img); err != nil {
		panic(err)
	}
	for int64(b.Len()) > size { // stored-block overhead: shrink a little
		h--
		img = img.SubImage(image.Rect(0, 0, w, h)).(*image.NRGBA)
		b.Reset()
		enc.Encode(&b, img)
	}
	return b.Bytes()
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkUpload is one go-sdk client uploading a 4 MiB PNG to the
// describe_image example over streamable HTTP on loopback, call after call.
func BenchmarkUpload(b *testing.B) {
	tg := imageTarget(b)
	srv := httptest.NewServer(tg.handler)
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	png := noisePNG(4 << 20)
	args, _ := json.Marshal(map[string]string{tg.imageArg: dataURI("image/png", png)})
	b.SetBytes(int64(len(png)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tg.imageTool, Arguments: json.RawMessage(args)})
		if err != nil || r.IsError {
			b.Fatalf("call: %v %v", err, r)
		}
	}
}

func mb(n uint64) float64 { return float64(n) / (1 << 20) }

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// settledGoroutines waits (at most d) until the goroutine count is at most
// want and returns it; with want 0 it waits for the count to stop changing.
func settledGoroutines(want int, d time.Duration) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		m := runtime.NumGoroutine()
		if (want > 0 && m <= want) || (want == 0 && m == n) {
			return m
		}
		n = m
	}
	return n
}

// heapSampler records the peak of the heap while it runs, every 2 ms.
type heapSampler struct {
	done     chan struct{}
	wg       sync.WaitGroup
	peak     uint64 // heap objects, live and not yet swept
	peakLive uint64 // live heap as the last GC marked it
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{done: make(chan struct{})}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	h.wg.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			h.peak = max(h.peak, samples[0].Value.Uint64())
			h.peakLive = max(h.peakLive, samples[1].Value.Uint64())
			select {
			case <-h.done:
				return
			case <-tick.C:
			}
		}
	})
	return h
}

func (h *heapSampler) stop() (peak, peakLive uint64) {
	close(h.done)
	h.wg.Wait()
	return h.peak, h.peakLive
}
