package transfer_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// BenchmarkUploadHandler uploads a file by PUT straight into the upload
// handler's ServeHTTP, to memstore, without a network in between: what the
// handler itself costs per upload, at two sizes, so that what grows with
// the size (and should not, besides the store's copy) shows. Each upload
// is logged, as a server's text log writes it.
func BenchmarkUploadHandler(b *testing.B) {
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, size := range []int{64 << 10, 4 << 20} {
		b.Run(fmt.Sprint(size>>10, "KiB"), func(b *testing.B) {
			body := bytes.Repeat([]byte("hello, world\n"), size/13+1)[:size]
			sum := sha256.Sum256(body)
			st := memstore.New(nil)
			keys, _ := token.NewKeyring(key(b, 1))
			h := transfer.UploadHandler(transfer.UploadOptions{Store: st, Keys: keys})
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				id := fmt.Sprint("file_", i)
				tok := sign(b, keys, token.Claims{Purpose: token.PurposeUpload, FileID: id, Size: int64(size), SHA256: sum[:],
					MediaType: "text/plain", Expires: time.Now().Add(time.Hour)})
				r := httptest.NewRequest(http.MethodPut, "/upload", bytes.NewReader(body))
				r.Header.Set("Authorization", "Bearer "+tok)
				w := httptest.NewRecorder()
				b.StartTimer()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusCreated {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
				b.StopTimer()
				st.Delete(b.Context(), id)
				b.StartTimer()
			}
		})
	}
}
