package transfer_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// BenchmarkIdleUploadHeap reports the live heap that uploads hold while
// they wait for bytes that do not come: per upload, for uploads of 1 MiB
// that sent a first few bytes (less than the sniffed head) or the head and
// one byte more, and per owner at MaxUploadsPerOwner. The heap is the
// whole process's (server and client side of each connection), after a
// collection, less what it was before the server started (which counts
// its store and keys too: a few KiB).
func BenchmarkIdleUploadHeap(b *testing.B) {
	for _, tc := range []struct {
		name   string
		n      int // uploads
		owners bool
		sent   int
		unit   string
	}{
		{"upload/sent=1000B", 64, true, 1000, "heap-B/upload"},
		{"upload/sent=1025B", 64, true, 1025, "heap-B/upload"},
		{"owner-at-bound/sent=1025B", transfer.DefaultMaxUploadsPerOwner, false, 1025, "heap-B/owner"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			body := bytes.Repeat([]byte("x"), tc.sent)
			for i := range b.N {
				var before, after goruntime.MemStats
				goruntime.GC()
				goruntime.ReadMemStats(&before)
				// A server of its own, whose buffer pool is empty: the
				// buffers the uploads take count.
				fx := newFixture(b, "memstore")
				srv := httptest.NewServer(transfer.UploadHandler(transfer.UploadOptions{
					Store: fx.store, Keys: fx.keys, Now: func() time.Time { return now },
					MinRate: 1, RateWindow: time.Hour, ErrorLog: log.New(io.Discard, "", 0),
				}))
				addr := strings.TrimPrefix(srv.URL, "http://")
				conns := make([]net.Conn, tc.n)
				for j := range conns {
					c := bigClaims("a", fmt.Sprintf("file_%d_%d", i, j))
					if tc.owners {
						c.Owner = fmt.Sprint("owner ", j)
					}
					conn, err := net.Dial("tcp", addr)
					if err != nil {
						b.Fatal(err)
					}
					fmt.Fprintf(conn, "PUT / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n", addr, sign(b, fx.keys, c), c.Size)
					conn.Write(body)
					conns[j] = conn
				}
				waitHeld(b, fx, tc.owners, tc.n)
				time.Sleep(100 * time.Millisecond) // for the sent bytes to be read
				goruntime.GC()
				goruntime.ReadMemStats(&after)
				per := tc.n
				if !tc.owners {
					per = 1
				}
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(per), tc.unit)
				for _, c := range conns {
					c.Close()
				}
				waitHeld(b, fx, tc.owners, 0)
				srv.Close()
			}
		})
	}
}

// waitHeld waits until n uploads of 1 MiB are reserved in fx's store: of
// owners "owner 0"… when owners, else of owner "a".
func waitHeld(b *testing.B, fx *fixture, owners bool, n int) {
	b.Helper()
	for range 2000 {
		var total int64
		if owners {
			for j := range 64 {
				total += heldB(b, fx, fmt.Sprint("owner ", j))
			}
		} else {
			total = heldB(b, fx, "a")
		}
		if total == int64(n)<<20 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Fatalf("%d uploads not held after 10s", n)
}
