package transfer_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/observe/observetest"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// The benchmarks of out-of-band uploads (SEP-2631), reported in
// BENCHMARKS.md, "Out-of-band uploads":
//
//   - BenchmarkUpload1GiB: one upload of 1 GiB through the handler
//     Register returns, to a diskstore, against a bare net/http handler
//     that copies the same body to a file: time, peak heap, peak RSS.
//   - BenchmarkEndToEnd: authorize + upload + tools/call of a 64 MiB file,
//     the handler reading every byte, against a 5 MiB file inline;
//     BenchmarkEndToEndServer, the same with the client in a process of
//     its own, so that what it measures of memory and CPU is the server's.
//   - BenchmarkFileURICall and BenchmarkResolve: what resolving a file URI
//     costs a tools/call, for files of 1 KiB to 64 MiB.
//
// Elsewhere client and server share the process. The client streams
// every body from textReader, never from memory, so that the heap and the
// resident memory measured are the server's and the runtime's, with
// little of the client's in them.

// textLine is a line of the benchmarks' text files, 66 bytes long once
// numbered.
const textLine = "all work and no play makes a big file, line %08d of the block\n"

// textBlock is the first 64 KiB of the lines textLine numbers from 0:
// what textReader repeats.
var textBlock = func() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, textLine, i)
	}
	return b.Bytes()[:64<<10]
}()

// A textReader reads textBlock over and over, without end: a text/plain
// file of any length that takes no memory, and the same bytes for every
// reader.
type textReader struct{ off int }

func (r *textReader) Read(p []byte) (int, error) {
	for n := 0; n < len(p); {
		c := copy(p[n:], textBlock[r.off:])
		n += c
		r.off = (r.off + c) % len(textBlock)
	}
	return len(p), nil
}

// textFile returns a reader of the first size bytes of textReader.
func textFile(size int64) io.Reader { return io.LimitReader(&textReader{}, size) }

var digests sync.Map // size → transfer.FileDigest

// textDigest returns the SHA-256 of textFile(size), computed once.
func textDigest(size int64) transfer.FileDigest {
	if d, ok := digests.Load(size); ok {
		return d.(transfer.FileDigest)
	}
	h := sha256.New()
	io.Copy(h, textFile(size))
	d := transfer.SHA256Digest([sha256.Size]byte(h.Sum(nil)))
	digests.Store(size, d)
	return d
}

// A benchSite is a server with uploads into a diskstore, its transfer
// handler on an httptest server at 127.0.0.1, and a client connected to
// it in memory that can call files/authorizeUpload.
type benchSite struct {
	server *mcp.Server
	store  *diskstore.Store
	keys   *token.Keyring
	cs     *mcp.ClientSession
	http   *http.Client // of the uploads
	url    string       // of the httptest server: MCP at /mcp, uploads at /files/
}

// newBenchSite starts a benchSite whose store is in dir. Add the tools
// before connect.
func newBenchSite(b *testing.B, dir string) *benchSite {
	b.Helper()
	st, err := diskstore.New(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	keys, err := token.NewKeyring(key(b, 7))
	if err != nil {
		b.Fatal(err)
	}
	s := &benchSite{store: st, keys: keys}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	b.Cleanup(ts.Close)
	s.http = &http.Client{Transport: &http.Transport{}}
	b.Cleanup(s.http.CloseIdleConnections)
	s.server = mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	h, err := transfer.Register(s.server, transfer.Options{
		Keys: keys, PublicURL: ts.URL + "/files/", Store: st,
		ErrorLog: log.New(io.Discard, "", 0),
	})
	if err != nil {
		b.Fatal(err)
	}
	mux.Handle("/files/", h)
	// The request limit that the largest inline file of the benchmarks
	// (testtypes.BigArgs) needs, as a server sizes it.
	limit, err := runtime.MaxRequestBytes(testtypes.BigArgs{}.MCPSchema(), testtypes.DocumentArgs{}.MCPSchema())
	if err != nil {
		b.Fatal(err)
	}
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: limit}))
	s.url = ts.URL
	return s
}

// connect connects the site's client, in memory.
func (s *benchSite) connect(b *testing.B) {
	b.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.server.Connect(b.Context(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v1"}, nil)
	enableFiles(b, c)
	cs, err := c.Connect(b.Context(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	s.cs = cs
}

// authorize declares a text/plain file of size bytes, textFile(size).
func (s *benchSite) authorize(b *testing.B, size int64) *transfer.AuthorizeUploadResult {
	d := textDigest(size)
	res, err := authorize(b.Context(), s.cs, &transfer.AuthorizeUploadParams{Name: "big.txt", MimeType: "text/plain", Size: &size, Digest: &d})
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// upload sends textFile(size) as the descriptor d says (method "POST", a
// multipart body) or as a PUT with its token in Authorization, streaming
// it, and fails b unless it is created.
func (s *benchSite) upload(b *testing.B, d transfer.FileTransferDescriptor, method string, size int64) {
	r := uploadRequest(b, d.URL, method, d.Multipart.Fields[transfer.FormFieldToken], size)
	do(b, s.http, r, http.StatusCreated)
}

// delete deletes the file of a file URI from the store.
func (s *benchSite) delete(b *testing.B, uri string) {
	ref, err := s.keys.ParseFileURI(uri, "", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := s.store.Delete(context.Background(), ref.FileID); err != nil {
		b.Fatal(err)
	}
}

// uploadRequest returns the upload of textFile(size) to url with token
// tok: a multipart/form-data POST as the SEP's descriptor has it, the
// token field then the file part, or a PUT of the bytes. Either body is
// streamed, with its length known.
func uploadRequest(b *testing.B, url, method, tok string, size int64) *http.Request {
	r, err := newUploadRequest(url, method, tok, size)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func newUploadRequest(url, method, tok string, size int64) (*http.Request, error) {
	var body io.Reader
	var length int64
	var ct string
	switch method {
	case http.MethodPost:
		var head bytes.Buffer
		mw := multipart.NewWriter(&head)
		mw.WriteField(transfer.FormFieldToken, tok)
		mw.CreateFormFile(transfer.FormFieldFile, "big.txt")
		prefix := bytes.Clone(head.Bytes())
		head.Reset()
		mw.Close()
		suffix := head.Bytes()
		body = io.MultiReader(bytes.NewReader(prefix), textFile(size), bytes.NewReader(suffix))
		length, ct = int64(len(prefix))+size+int64(len(suffix)), mw.FormDataContentType()
	case http.MethodPut:
		body, length = textFile(size), size
	}
	r, err := http.NewRequest(method, url, body)
	if err != nil {
		return nil, err
	}
	r.ContentLength = length
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	if method == http.MethodPut && tok != "" {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return r, nil
}

// do sends r and fails b unless the status is want.
func do(b *testing.B, c *http.Client, r *http.Request, want int) {
	if err := sendWant(c, r, want); err != nil {
		b.Fatal(err)
	}
}

// sendWant sends r and returns an error unless the status is want.
func sendWant(c *http.Client, r *http.Request, want int) error {
	res, err := c.Do(r)
	if err != nil {
		return err
	}
	msg, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s, want %d", r.Method, r.URL.Path, res.StatusCode, msg, want)
	}
	return nil
}

// readEvery is a tool handler that reads every byte of the file pick
// returns through File.Open, and answers with their count.
func readEvery[In any](pick func(In) runtime.File) mcp.ToolHandlerFor[In, any] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		f := pick(in)
		r, err := f.Open()
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			return nil, nil, err
		}
		if n != f.Size() {
			return nil, nil, fmt.Errorf("read %d of %d bytes", n, f.Size())
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatInt(n, 10)}}}, nil, nil
	}
}

// ignore is a tool handler that does nothing with its arguments.
func ignore[In any](context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
}

// call calls tool with args and fails b on any error.
func call(b *testing.B, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		b.Fatalf("%s: %s", tool, mcptest.Text(b, res))
	}
	return res
}

// A heapWatch samples the heap in use (runtime.MemStats.HeapInuse, read
// through runtime/metrics, which stops nothing) every millisecond, and
// keeps the largest value.
type heapWatch struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

func watchHeap() *heapWatch {
	w := &heapWatch{stop: make(chan struct{}), done: make(chan struct{})}
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	go func() {
		defer close(w.done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(samples)
			w.peak = max(w.peak, samples[0].Value.Uint64()+samples[1].Value.Uint64())
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// Peak stops w and returns the largest heap in use it saw, in bytes.
func (w *heapWatch) Peak() uint64 {
	close(w.stop)
	<-w.done
	return w.peak
}

// resetPeakRSS returns what can be returned to the system and resets the
// process's peak resident memory (VmHWM) to its current resident memory,
// so that a later peakRSS is the peak since. It reports whether the
// kernel allowed it (Linux 4.0 and later).
func resetPeakRSS() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns the process's peak resident memory (VmHWM) in bytes, 0
// when unknown.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// A usage measures what a benchmark of big files reports beside the
// time: peak-heap-MiB and peak-RSS-MiB, the most heap in use and resident
// memory the process had at once while it ran (the client's share
// included), and cpu-ns/op, the CPU time of the process (user and system,
// every thread) during the ops, which a busy machine disturbs less than
// the time.
type usage struct {
	heap  *heapWatch
	rss   bool
	stat  *os.File // /proc/self/stat, nil when there is none
	buf   []byte
	cpu   time.Duration // of the ops so far
	opCPU time.Duration // at the start of the current op
}

// measure collects garbage, resets the peak resident memory and starts
// watching the heap.
func measure(b *testing.B) *usage {
	goruntime.GC()
	u := &usage{rss: resetPeakRSS(), buf: make([]byte, 1024)}
	if f, err := os.Open("/proc/self/stat"); err == nil {
		u.stat = f
		b.Cleanup(func() { f.Close() })
	}
	u.heap = watchHeap()
	return u
}

// processCPU returns the CPU time the process has used, read from
// /proc/self/stat (utime and stime, in ticks of 10 ms) without allocating;
// -1 when unknown.
func (u *usage) processCPU() time.Duration {
	if u.stat == nil {
		return -1
	}
	n, _ := u.stat.ReadAt(u.buf, 0)
	line := u.buf[:n]
	i := bytes.LastIndexByte(line, ')') // the command name may hold spaces
	if i < 0 {
		return -1
	}
	// After the name: state (field 3) … utime (14), stime (15).
	var ticks, field int64
	for f := range bytes.FieldsSeq(line[i+1:]) {
		field++
		if field == 12 || field == 13 {
			v, err := strconv.ParseInt(string(f), 10, 64)
			if err != nil {
				return -1
			}
			ticks += v
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

func (u *usage) startOp() { u.opCPU = u.processCPU() }

func (u *usage) endOp() {
	if c := u.processCPU(); c >= 0 && u.opCPU >= 0 {
		u.cpu += c - u.opCPU
	}
}

func (u *usage) report(b *testing.B) {
	b.ReportMetric(float64(u.heap.Peak())/(1<<20), "peak-heap-MiB")
	if u.rss {
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
	}
	if u.stat != nil {
		b.ReportMetric(float64(u.cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkUpload1GiB uploads 1 GiB of text over a real HTTP connection
// on 127.0.0.1, by PUT and by the SEP's multipart POST:
//
//   - impl=mcpfile: the handler transfer.Register returns, into a
//     diskstore, with the token files/authorizeUpload gave (authorizing
//     and deleting the file are not timed): token check, streaming copy
//     through two 256 KiB halves of a buffer, sniffing, SHA-256 (beside
//     the copy into the file), fsync, commit;
//   - impl=bare: the baseline, a net/http handler that io.Copy's the body
//     (the file part of a POST, through mime/multipart) to a file in the
//     same directory;
//   - impl=bare-sync: bare with an fsync of the file before it answers,
//     which diskstore's commit does: the share of the disk in the gap.
//
// Besides time and throughput it reports peak-heap-MiB and peak-RSS-MiB
// and cpu-ns/op (see usage). Skipped with -short: each op writes 1 GiB.
func BenchmarkUpload1GiB(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 1 GiB per op")
	}
	const size = 1 << 30
	textDigest(size) // once, before any timing
	for _, method := range []string{http.MethodPut, http.MethodPost} {
		b.Run("method="+method, func(b *testing.B) {
			b.Run("impl=bare", func(b *testing.B) { benchBare(b, method, size, false) })
			b.Run("impl=bare-sync", func(b *testing.B) { benchBare(b, method, size, true) })
			b.Run("impl=mcpfile", func(b *testing.B) { benchHandler(b, method, size) })
		})
	}
}

// benchHandler times uploads of size bytes through the transfer handler.
func benchHandler(b *testing.B, method string, size int64) {
	s := newBenchSite(b, b.TempDir())
	runtime.AddTool(s.server, &mcp.Tool{Name: "analyze"}, ignore[testtypes.DocumentArgs]) // what files/authorizeUpload checks against
	s.connect(b)
	b.SetBytes(size)
	b.ReportAllocs()
	res := s.authorize(b, size)
	u := measure(b)
	for b.Loop() {
		u.startOp()
		s.upload(b, res.Upload, method, size)
		u.endOp()
		b.StopTimer()
		s.delete(b, res.File.URI)
		res = s.authorize(b, size)
		b.StartTimer()
	}
	u.report(b)
}

// benchBare times uploads of size bytes through a bare net/http handler
// that copies the body to a file, and with fsync syncs it.
func benchBare(b *testing.B, method string, size int64, fsync bool) {
	dir := b.TempDir()
	path := filepath.Join(dir, "upload")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Method == http.MethodPost {
			mr, err := r.MultipartReader()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for {
				p, err := mr.NextPart()
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				if p.FormName() == transfer.FormFieldFile {
					body = p
					break
				}
				io.Copy(io.Discard, p)
			}
		}
		f, err := os.Create(path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		if _, err := io.Copy(f, body); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if fsync {
			if err := f.Sync(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.WriteHeader(http.StatusCreated)
	})
	ts := httptest.NewServer(h)
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	b.SetBytes(size)
	b.ReportAllocs()
	u := measure(b)
	for b.Loop() {
		u.startOp()
		do(b, client, uploadRequest(b, ts.URL, method, "", size), http.StatusCreated)
		u.endOp()
		b.StopTimer()
		if err := os.Remove(path); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	u.report(b)
}

// BenchmarkEndToEnd is a whole call with a file, both over the same
// in-memory MCP transport, each tool's handler reading every byte through
// File.Open:
//
//   - call=upload-64MiB: files/authorizeUpload, the upload of 64 MiB of
//     text by the descriptor's multipart POST to 127.0.0.1, and tools/call
//     with the file URI, to a tool that takes testtypes.DocumentArgs;
//   - call=inline-5MiB: tools/call with 5 MiB of the same text as a base64
//     data: URI, to a tool that takes testtypes.BigArgs.
//
// MB/s is the cost per byte of file, the one figure the two share. It also
// reports alloc-%, what the timed part allocates (client included) as a
// share of the file's size; the time and allocation of each step
// (authorize-, upload- and call-ns/op and -B/op; the inline case is one
// call); and peak-heap-MiB, peak-RSS-MiB and cpu-ns/op (see usage).
func BenchmarkEndToEnd(b *testing.B) {
	s := newBenchSite(b, b.TempDir())
	runtime.AddTool(s.server, &mcp.Tool{Name: "analyze"}, readEvery[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	runtime.AddTool(s.server, &mcp.Tool{Name: "blob"}, readEvery[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	s.connect(b)

	b.Run("call=upload-64MiB", func(b *testing.B) {
		const size = 64 << 20
		want := strconv.Itoa(size)
		textDigest(size)
		endToEnd(b, size, func(m *stepMeter) (cleanup func()) {
			res := s.authorize(b, size)
			m.mark("authorize")
			s.upload(b, res.Upload, http.MethodPost, size)
			m.mark("upload")
			out := call(b, s.cs, "analyze", map[string]any{"document": res.File.URI})
			if got := mcptest.Text(b, out); got != want {
				b.Fatalf("analyze answered %q, want %q", got, want)
			}
			return func() { s.delete(b, res.File.URI) }
		})
	})

	b.Run("call=inline-5MiB", func(b *testing.B) {
		const size = 5 << 20
		want := strconv.Itoa(size)
		data, _ := io.ReadAll(textFile(size))
		args, _ := json.Marshal(map[string]string{"blob": mcptest.DataURI("text/plain", data)})
		data = nil
		endToEnd(b, size, func(*stepMeter) (cleanup func()) {
			out := call(b, s.cs, "blob", json.RawMessage(args))
			if got := mcptest.Text(b, out); got != want {
				b.Fatalf("blob answered %q, want %q", got, want)
			}
			return func() {}
		})
	})
}

// BenchmarkEndToEndServer runs the ops of BenchmarkEndToEnd with the
// client in a process of its own (this test binary run again, see
// benchClient), connected over streamable HTTP: what an op allocates, and
// the CPU time, are then the server's alone, the client's work sharing
// the machine but not the heap. The op is timed from the parent's "op"
// line to the child's answer; alloc-% and call-B/op are the server
// process's allocation while the op ran.
func BenchmarkEndToEndServer(b *testing.B) {
	s := newBenchSite(b, b.TempDir())
	runtime.AddTool(s.server, &mcp.Tool{Name: "analyze"}, readEvery[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	runtime.AddTool(s.server, &mcp.Tool{Name: "blob"}, readEvery[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, call := range benchCalls {
		b.Run("call="+call.name, func(b *testing.B) {
			op := startBenchClient(b, exe, s.url, call.name)
			forget := func(uri string) {
				if uri != "-" {
					s.delete(b, uri)
				}
			}
			forget(op()) // the first op warms up both sides, untimed
			endToEnd(b, call.size, func(*stepMeter) (cleanup func()) {
				uri := op()
				return func() { forget(uri) }
			})
		})
	}
}

// benchCalls are the ops a benchClient does, by name: what
// BenchmarkEndToEnd does in process.
var benchCalls = []struct {
	name string
	size int64
}{
	{"upload-64MiB", 64 << 20},
	{"inline-5MiB", 5 << 20},
}

// The environment of a benchClient process: the server's base URL and the
// name of the op.
const (
	clientEnv   = "MCPFILE_BENCH_CLIENT"
	clientOpEnv = "MCPFILE_BENCH_OP"
)

// startBenchClient starts exe, this test binary, as a benchClient of the
// server at url doing the op name, and returns the function that has it
// do one op and returns the op's answer: the file URI it uploaded, or "-".
func startBenchClient(b *testing.B, exe, url, name string) (op func() string) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), clientEnv+"="+url, clientOpEnv+"="+name,
		"GOMAXPROCS="+strconv.Itoa(goruntime.GOMAXPROCS(0)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	b.Cleanup(func() {
		in.Close() // the client's end of input: it exits
		stop := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
		cmd.Wait()
		stop.Stop()
	})
	answers := bufio.NewReader(out)
	return func() string {
		io.WriteString(in, "op\n")
		line, err := answers.ReadString('\n')
		if err != nil {
			in.Close()
			cmd.Wait()
			b.Fatalf("client process: %v\n%s", err, stderr.Bytes())
		}
		return strings.TrimSuffix(line, "\n")
	}
}

// TestMain runs benchClient instead of the tests in a process that
// BenchmarkEndToEndServer started.
func TestMain(m *testing.M) {
	if url := os.Getenv(clientEnv); url != "" {
		if err := benchClient(url, os.Getenv(clientOpEnv), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(runHeld(m))
}

// everyRecord keeps every record the package's tests write through the
// default logger (every server and handler without a Logger of its own),
// for runHeld.
var everyRecord observetest.Recorder

// runHeld runs the tests with everyRecord as the default logger, and
// fails when a record of the whole run breaks the rule of package
// observe: no file URI, URL with a path, token, or bytes of the files
// most tests send.
func runHeld(m *testing.M) int {
	slog.SetDefault(everyRecord.Logger())
	code := m.Run()
	problems := everyRecord.Problems(data)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "log record breaks the rule:", p)
	}
	if code == 0 && len(problems) > 0 {
		code = 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "%d log records held to the rule\n", len(everyRecord.Records()))
	}
	return code
}

// benchClient connects to the server at url (MCP at /mcp) over streamable
// HTTP and does the op name for each line read from in, writing a line to
// out when it is done: the file URI it uploaded, or "-". It returns when
// in ends.
func benchClient(url, name string, in io.Reader, out io.Writer) error {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v1"}, nil)
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload); err != nil {
		return err
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp"}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	callTool := func(tool string, args any, want int64) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err
		}
		if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || got != strconv.FormatInt(want, 10) {
			return fmt.Errorf("%s answered %q (error: %v), want %d", tool, got, res.IsError, want)
		}
		return nil
	}
	var op func() (string, error)
	switch name {
	case "upload-64MiB":
		const size = 64 << 20
		d := textDigest(size)
		op = func() (string, error) {
			size := int64(size)
			res, err := authorize(ctx, cs, &transfer.AuthorizeUploadParams{Name: "big.txt", MimeType: "text/plain", Size: &size, Digest: &d})
			if err != nil {
				return "", err
			}
			r, err := newUploadRequest(res.Upload.URL, http.MethodPost, res.Upload.Multipart.Fields[transfer.FormFieldToken], size)
			if err != nil {
				return "", err
			}
			if err := sendWant(hc, r, http.StatusCreated); err != nil {
				return "", err
			}
			return res.File.URI, callTool("analyze", map[string]any{"document": res.File.URI}, size)
		}
	case "inline-5MiB":
		const size = 5 << 20
		data, _ := io.ReadAll(textFile(size))
		args, _ := json.Marshal(map[string]string{"blob": mcptest.DataURI("text/plain", data)})
		op = func() (string, error) { return "-", callTool("blob", json.RawMessage(args), size) }
	default:
		return fmt.Errorf("%s=%q: want upload-64MiB or inline-5MiB", clientOpEnv, name)
	}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		answer, err := op()
		if err != nil {
			return err
		}
		fmt.Fprintln(out, answer)
	}
	return lines.Err()
}

// A stepMeter adds up, by step, the time taken and the bytes allocated
// between its marks.
type stepMeter struct {
	ms    goruntime.MemStats
	last  uint64    // TotalAlloc at the last mark
	then  time.Time // at the last mark
	steps []string
	bytes map[string]uint64
	time  map[string]time.Duration
}

// start starts the step that the next mark ends.
func (m *stepMeter) start() {
	goruntime.ReadMemStats(&m.ms) // stops the world for some µs
	m.last, m.then = m.ms.TotalAlloc, time.Now()
}

// mark ends a step: what was allocated and the time taken since start or
// the last mark count for step, and the next step starts.
func (m *stepMeter) mark(step string) {
	now := time.Now()
	goruntime.ReadMemStats(&m.ms)
	if _, ok := m.bytes[step]; !ok {
		m.steps = append(m.steps, step)
	}
	m.bytes[step] += m.ms.TotalAlloc - m.last
	m.time[step] += now.Sub(m.then)
	m.last, m.then = m.ms.TotalAlloc, time.Now()
}

// endToEnd runs the loop of a BenchmarkEndToEnd case on a file of size
// bytes: op is timed, the cleanup it returns is not. Besides the memory
// peaks it reports alloc-%, what an op allocates as a share of the size,
// and <step>-ns/op and <step>-B/op for each step op marks, the rest being
// "call".
func endToEnd(b *testing.B, size int64, op func(*stepMeter) (cleanup func())) {
	b.SetBytes(size)
	b.ReportAllocs()
	m := &stepMeter{bytes: make(map[string]uint64), time: make(map[string]time.Duration)}
	u := measure(b)
	for b.Loop() {
		u.startOp()
		m.start()
		cleanup := op(m)
		m.mark("call")
		u.endOp()
		b.StopTimer()
		cleanup()
		b.StartTimer()
	}
	u.report(b)
	var total uint64
	for _, step := range m.steps {
		total += m.bytes[step]
		b.ReportMetric(float64(m.bytes[step])/float64(b.N), step+"-B/op")
		b.ReportMetric(float64(m.time[step].Nanoseconds())/float64(b.N), step+"-ns/op")
	}
	b.ReportMetric(100*float64(total)/float64(b.N)/float64(size), "alloc-%")
}

// BenchmarkFileURICall times a tools/call whose argument is an uploaded
// file's URI, to a tool whose handler does nothing with the file: the
// runtime resolves the URI (token check, store stat, sniff of the first
// bytes) before the handler runs, whatever the handler does.
//
//   - file=doc-1KiB, doc-1MiB, doc-64MiB: text files uploaded once, to a
//     tool that takes testtypes.DocumentArgs (upload only, sniffed);
//   - file=png-inline, png-uri: the same 4×4 PNG of 91 bytes, inline as a
//     data: URI and uploaded, to a tool that takes testtypes.ImageArgs
//     (inline or upload, sniffed): the difference is the resolution, less
//     the decoding of 124 bytes of base64.
//
// It also reports server-ns/op, the time the server spends in tools/call
// after the SDK has decoded the request: the runtime's handler, the
// resolution included, and the tool's.
func BenchmarkFileURICall(b *testing.B) {
	s := newBenchSite(b, b.TempDir())
	runtime.AddTool(s.server, &mcp.Tool{Name: "analyze"}, ignore[testtypes.DocumentArgs])
	runtime.AddTool(s.server, &mcp.Tool{Name: "describe"}, ignore[testtypes.ImageArgs])
	var serverNS atomic.Int64
	s.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			t0 := time.Now()
			res, err := next(ctx, method, req)
			serverNS.Add(int64(time.Since(t0)))
			return res, err
		}
	})
	s.connect(b)

	type file struct {
		name, tool, arg string
		value           string
	}
	var files []file
	for _, f := range []struct {
		name string
		size int64
	}{{"doc-1KiB", 1 << 10}, {"doc-1MiB", 1 << 20}, {"doc-64MiB", 64 << 20}} {
		res := s.authorize(b, f.size)
		s.upload(b, res.Upload, http.MethodPost, f.size)
		files = append(files, file{f.name, "analyze", "document", res.File.URI})
	}
	png := mcptest.PNG(b, 4, 4, false)
	files = append(files, file{"png-inline", "describe", "image", mcptest.DataURI("image/png", png)})
	{
		size := int64(len(png))
		d := transfer.SHA256Digest(sha256.Sum256(png))
		res, err := authorize(b.Context(), s.cs, &transfer.AuthorizeUploadParams{Name: "p.png", MimeType: "image/png", Size: &size, Digest: &d})
		if err != nil {
			b.Fatal(err)
		}
		r, err := http.NewRequest(http.MethodPut, res.Upload.URL, bytes.NewReader(png))
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+res.Upload.Multipart.Fields[transfer.FormFieldToken])
		do(b, s.http, r, http.StatusCreated)
		files = append(files, file{"png-uri", "describe", "image", res.File.URI})
	}

	for _, f := range files {
		b.Run("file="+f.name, func(b *testing.B) {
			args := map[string]any{f.arg: f.value}
			b.ReportAllocs()
			serverNS.Store(0)
			for b.Loop() {
				call(b, s.cs, f.tool, args)
			}
			b.ReportMetric(float64(serverNS.Load())/float64(b.N), "server-ns/op")
		})
	}
}

// BenchmarkResolve isolates the resolution of a file URI: the resolver
// transfer.Register puts in each request's context, called as the runtime
// calls it for an argument of testtypes.DocumentArgs (upload only,
// sniffed), on text files of 1 KiB, 1 MiB and 64 MiB in a diskstore: the
// token's check, the store's Stat, and the Open and read of the first
// bytes to sniff them.
func BenchmarkResolve(b *testing.B) {
	s := newBenchSite(b, b.TempDir())
	runtime.AddTool(s.server, &mcp.Tool{Name: "analyze"}, ignore[testtypes.DocumentArgs])
	var resolver hook.Resolver
	var extra *mcp.RequestExtra
	s.server.AddTool(&mcp.Tool{Name: "capture", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		resolver, extra = hook.ResolverFrom(ctx)
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	})
	s.connect(b)
	call(b, s.cs, "capture", map[string]any{})
	if resolver == nil {
		b.Fatal("no resolver in a tool's context")
	}
	schema, err := descriptor.For(testtypes.DocumentArgs{}.MCPSchema())
	if err != nil {
		b.Fatal(err)
	}
	d := schema.Props["document"].File

	for _, f := range []struct {
		name string
		size int64
	}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}, {"64MiB", 64 << 20}} {
		res := s.authorize(b, f.size)
		s.upload(b, res.Upload, http.MethodPost, f.size)
		b.Run("size="+f.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				r, err := resolver.Resolve(ctx, extra, "document", res.File.URI, d)
				if err != nil || r.Size != f.size {
					b.Fatalf("Resolve: %+v, %v", r, err)
				}
			}
		})
	}
}

// BenchmarkPageUpload1GiB uploads 1 GiB of text through an upload page
// (runtime.ElicitUpload), as a browser's form post: the page's token
// field, then the file part, whose length the post does not declare, over
// a real HTTP connection on 127.0.0.1, into a diskstore. Each op is the
// post alone: the tool call that mints the page (on 2025-11-25, whose
// client accepts the page and waits, as a person would upload it) is
// started before the timer, and its end, after the upload, is not timed.
// It reports what BenchmarkUpload1GiB does; compare with its
// method=POST/impl=bare. Skipped with -short: each op writes 1 GiB.
func BenchmarkPageUpload1GiB(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 1 GiB per op")
	}
	const size = 1 << 30
	s := newBenchSite(b, b.TempDir())
	runtime.AddTool(s.server, &mcp.Tool{Name: "import"}, func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		_, pending, err := runtime.ElicitUpload[testtypes.ArchiveForm](ctx, req, "Choose the archive.", nil)
		return pending, nil, err
	})
	pages := make(chan string, 1)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.server.Connect(b.Context(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v1"}, urlClient("accept", &person{}, func(e *mcp.ElicitParams) { pages <- e.URL }))
	cs, err := c.Connect(b.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	// page starts a call, and returns its page's form action and token,
	// and the call's end.
	page := func() (action, tok string, done <-chan error) {
		end := make(chan error, 1)
		go func() {
			res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "import", Arguments: map[string]any{}})
			if err == nil && res.IsError {
				err = fmt.Errorf("isError: %v", res.Content)
			}
			end <- err
		}()
		p, err := mcptest.OpenUploadPage(s.http, <-pages)
		if err != nil || p.Action == "" || p.Token == "" {
			b.Fatalf("no form on the page (%v): %s", err, p.HTML)
		}
		return p.Action, p.Token, end
	}
	b.SetBytes(size)
	b.ReportAllocs()
	action, tok, done := page()
	u := measure(b)
	for b.Loop() {
		r := uploadRequest(b, action, http.MethodPost, tok, size)
		r.Header.Set("Accept", "application/json")
		u.startOp()
		do(b, s.http, r, http.StatusCreated)
		u.endOp()
		b.StopTimer()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		action, tok, done = page()
		b.StartTimer()
	}
	u.report(b)
}
