package transfer_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// The benchmarks of downloads (SEP-2631 outputs), reported in
// BENCHMARKS.md, "Downloads (issue 15)":
//
//   - BenchmarkDownload1GiB: one GET of a whole 1 GiB output per op,
//     through the handler Register returns, against http.ServeContent on
//     a plain file of the same bytes: time, peak heap, peak RSS, CPU.
//   - BenchmarkDownloadRange: the same GET with Range: bytes=0-1048575,
//     the first MiB of the same file, over and over.
//
// As in the upload benchmarks, client and server share the process, over
// a real TCP connection on 127.0.0.1; the client reads every body to
// io.Discard through one 256 KiB buffer.

// rangeFirstMiB is the Range of BenchmarkDownloadRange.
const rangeFirstMiB = "bytes=0-1048575"

// BenchmarkDownload1GiB downloads a 1 GiB file of text (textFile) over a
// real HTTP connection on 127.0.0.1, one whole GET per op, the same
// connection kept alive from op to op:
//
//   - impl=mcpfile: the descriptor URL of files/authorizeDownload, served
//     by the handler transfer.Register returns from a diskstore, the file
//     put there by transfer.Save from a tool, streamed from textReader
//     (saving and authorizing are not timed): token check, store Stat and
//     Open, then http.ServeContent on the store's reader;
//   - impl=servecontent: the baseline, a bare net/http handler that opens
//     a plain file of the same bytes in the same directory and calls
//     http.ServeContent with it (which hands an *os.File to sendfile);
//   - impl=servecontent-section: the same handler with the file behind an
//     io.SectionReader, as diskstore's reader is: ServeContent without
//     sendfile, to tell that share of the gap from the handler's own.
//
// Both files were just written, so both are read from the page cache.
// Besides time and throughput it reports peak-heap-MiB and peak-RSS-MiB
// and cpu-ns/op (see usage), the client's share included. Skipped with
// -short: it writes 2 GiB before it starts.
func BenchmarkDownload1GiB(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 2 GiB")
	}
	const size = 1 << 30
	d := newDownloadSite(b, size)
	b.Run("impl=servecontent", func(b *testing.B) { benchGet(b, d.plainURL, "", size) })
	b.Run("impl=servecontent-section", func(b *testing.B) { benchGet(b, d.sectionURL, "", size) })
	b.Run("impl=mcpfile", func(b *testing.B) { benchGet(b, d.fileURL, "", size) })
}

// BenchmarkDownloadRange is BenchmarkDownload1GiB's GET with Range:
// bytes=0-1048575, the first MiB of the 1 GiB file, one request per op:
// what a request costs beside its bytes. Skipped with -short.
func BenchmarkDownloadRange(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 2 GiB")
	}
	const size = 1 << 30
	d := newDownloadSite(b, size)
	b.Run("impl=servecontent", func(b *testing.B) { benchGet(b, d.plainURL, rangeFirstMiB, 1<<20) })
	b.Run("impl=servecontent-section", func(b *testing.B) { benchGet(b, d.sectionURL, rangeFirstMiB, 1<<20) })
	b.Run("impl=mcpfile", func(b *testing.B) { benchGet(b, d.fileURL, rangeFirstMiB, 1<<20) })
}

// A downloadSite holds the URLs of the same file of text served three
// ways: fileURL by the transfer handler, plainURL and sectionURL by a bare
// handler (see BenchmarkDownload1GiB).
type downloadSite struct {
	fileURL, plainURL, sectionURL string
}

// newDownloadSite saves textFile(size) through transfer.Save into a
// diskstore in a new directory, authorizes its download, writes the same
// bytes to a plain file in that directory, and serves that one with a bare
// handler.
func newDownloadSite(b *testing.B, size int64) *downloadSite {
	b.Helper()
	dir := b.TempDir()
	s := newBenchSite(b, dir)
	mcp.AddTool(s.server, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, transfer.FileValue, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "big.txt", MediaType: "text/plain; charset=utf-8", Reader: textFile(size), Size: size})
		return nil, v, err
	})
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

	res := call(b, cs, "export", map[string]any{})
	var v transfer.FileValue
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &v); err != nil || v.Size == nil || *v.Size != size || *v.Digest != textDigest(size) {
		b.Fatalf("export: %s (%v)", raw, err)
	}
	ad, err := authorizeDownload(b.Context(), cs, v.URI)
	if err != nil {
		b.Fatal(err)
	}

	plain := filepath.Join(dir, "plain.txt")
	f, err := os.Create(plain)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(f, textFile(size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	serve := func(section bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			f, err := os.Open(plain)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			defer f.Close()
			var rs io.ReadSeeker = f
			if section {
				rs = io.NewSectionReader(f, 0, size)
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8") // as the transfer handler sends it, no sniffing
			http.ServeContent(w, r, "", time.Time{}, rs)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/plain", serve(false))
	mux.Handle("/section", serve(true))
	ts := httptest.NewServer(mux)
	b.Cleanup(ts.Close)
	return &downloadSite{fileURL: ad.Download.URL, plainURL: ts.URL + "/plain", sectionURL: ts.URL + "/section"}
}

// benchGet times GETs of url, with a Range header unless rng is "", each
// of which must answer n bytes, on one kept-alive connection.
func benchGet(b *testing.B, url, rng string, n int64) {
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	buf := make([]byte, 256<<10)
	fetchBody(b, client, url, rng, n, buf) // connects, and checks the answer, untimed
	b.SetBytes(n)
	b.ReportAllocs()
	u := measure(b)
	for b.Loop() {
		u.startOp()
		fetchBody(b, client, url, rng, n, buf)
		u.endOp()
	}
	u.report(b)
}

// fetchBody GETs url, with Range: rng unless rng is "", reads the body to
// io.Discard through buf, and fails b unless it is n bytes with the status
// and Content-Length that says so.
func fetchBody(b *testing.B, c *http.Client, url, rng string, n int64, buf []byte) {
	r, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	want := http.StatusOK
	if rng != "" {
		r.Header.Set("Range", rng)
		want = http.StatusPartialContent
	}
	res, err := c.Do(r)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	// io.Discard hidden behind a plain Writer, so that CopyBuffer reads
	// through buf and not through io.Discard's ReadFrom, 8 KiB at a time.
	got, err := io.CopyBuffer(struct{ io.Writer }{io.Discard}, res.Body, buf)
	if err != nil {
		b.Fatal(err)
	}
	if res.StatusCode != want || got != n || res.ContentLength != n {
		b.Fatalf("GET %s (Range %q): %d, %d bytes (Content-Length %s), want %d, %d bytes", r.URL.Path, rng, res.StatusCode, got, strconv.FormatInt(res.ContentLength, 10), want, n)
	}
}
