package transfer_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/internal/observe/observetest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// TestObserved: a run of uploads, downloads, a page, tool calls and
// refusals through a server with a Logger and a MeterProvider of its own
// leaves one record per event, with the reason of each refusal, and
// measurements of each; and no record holds the file's bytes, a token, the
// file URI or the download URL.
func TestObserved(t *testing.T) {
	var logs observetest.Recorder
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	s := newSiteWith(t, memstore.New(nil), testKeys(t), false, func(o *transfer.Options) {
		o.Logger, o.MeterProvider = logs.Logger(), mp
	})
	cs := s.connect(t)
	ctx := t.Context()

	png := mcptest.PNG(t, 8, 8, false)
	up, err := authorize(ctx, cs, declare("photo.png", "image/png", png))
	if err != nil {
		t.Fatal(err)
	}
	tok := up.Upload.Multipart.Fields["token"]
	if code := send(t, up.Upload, png); code != http.StatusCreated {
		t.Fatalf("upload: %d", code)
	}
	if res := mcptest.Call(t, cs, "describe", map[string]any{"image": up.File.URI}); res.IsError {
		t.Fatalf("describe: %s", mcptest.Text(t, res))
	}
	down, err := authorizeDownload(ctx, cs, up.File.URI)
	if err != nil {
		t.Fatal(err)
	}
	if code, n := getLen(t, down.Download.URL); code != http.StatusOK || n != int64(len(png)) {
		t.Fatalf("download: %d, %d bytes", code, n)
	}

	// Refusals, one of each path.
	tooBig := declare("big.png", "image/png", png)
	*tooBig.Size = 1 << 40
	if _, err := authorize(ctx, cs, tooBig); err == nil {
		t.Fatal("authorizeUpload of 1 TiB: no error")
	}
	if code := send(t, up.Upload, png); code != http.StatusConflict {
		t.Fatalf("second upload: %d, want 409", code)
	}
	if code, _ := getLen(t, down.Download.URL[:len(down.Download.URL)-4]+"AAAA"); code != http.StatusForbidden && code != http.StatusBadRequest {
		t.Fatalf("altered download: %d, want 403 or 400", code)
	}
	if code, _ := getLen(t, s.url+"/files/page/"+tok); code != http.StatusForbidden {
		t.Fatalf("an upload token as a page's: %d, want 403", code)
	}
	wantToolError(t, cs, up.File.URI[:len(up.File.URI)-4]+"AAAA", "Argument 'image'")
	if res := mcptest.Call(t, cs, "describe", map[string]any{"image": mcptest.DataURI("image/png", []byte("not a picture at all"))}); !res.IsError {
		t.Fatal("describe with text as a PNG: no error")
	}

	// One record per event, with what it is about.
	for _, want := range []struct {
		msg string
		kv  []string
	}{
		{"authorized", []string{"op", transfer.MethodAuthorizeUpload, "mediaType", "image/png"}},
		{"upload", []string{"op", "upload", "via", "endpoint", "status", "201"}},
		{"authorized", []string{"op", transfer.MethodAuthorizeDownload}},
		{"download", []string{"op", "download", "status", "200"}},
		{"refused", []string{"op", transfer.MethodAuthorizeUpload, "reason", transfer.ReasonMaxSizeExceeded}},
		{"refused", []string{"op", "upload", "reason", transfer.ReasonAlreadyUsed, "status", "409"}},
		{"refused", []string{"op", "download"}},
		{"refused", []string{"op", "page", "reason", transfer.ReasonUnauthorized}},
		{"refused", []string{"op", "tools/call", "reason", "fileURI", "arg", "image", "tool", "describe"}},
		{"refused", []string{"op", "tools/call", "reason", "content", "arg", "image", "mediaType", "image/png"}},
	} {
		if got := logs.Find(want.msg, want.kv...); len(got) != 1 {
			t.Errorf("%d records %q %v, want 1", len(got), want.msg, want.kv)
		}
	}
	for _, r := range logs.Find("upload", "op", "upload") {
		if r.Attrs["bytes"].Int64() != int64(len(png)) || r.Attrs["size"].Int64() != int64(len(png)) || r.Attrs["file"].String() == "" || r.Attrs["duration"].Duration() <= 0 {
			t.Errorf("upload record %s: want bytes and size %d, the file, a duration", r.Text, len(png))
		}
		if owner := r.Attrs["owner"].String(); len(owner) != 12 || owner == "anonymous" {
			t.Errorf("upload record %s: owner %q, want the 12 hex digits of the session's pseudonym", r.Text, owner)
		}
	}
	for _, r := range logs.Find("download", "op", "download") {
		if r.Attrs["bytes"].Int64() != int64(len(png)) {
			t.Errorf("download record %s: want bytes %d", r.Text, len(png))
		}
	}

	// Not a record holds the file, its token, its URI or its download URL.
	for _, p := range logs.Problems(png, []byte(tok), []byte(up.File.URI), []byte(down.Download.URL)) {
		t.Error(p)
	}
	for _, r := range logs.Records() {
		for _, secret := range []string{tok, up.File.URI, down.Download.URL, strings.TrimPrefix(down.Download.URL, s.url)} {
			if strings.Contains(r.Text, secret) {
				t.Errorf("record %s holds a secret", r.Text)
			}
		}
	}

	// The measurements.
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	sums := sumsOf(rm)
	for name, want := range map[string]int64{
		"mcpfile.uploads":        1,
		"mcpfile.upload.bytes":   int64(len(png)),
		"mcpfile.uploads.active": 0,
		"mcpfile.downloads":      1,
		"mcpfile.download.bytes": int64(len(png)),
		"mcpfile.authorizations": 2,
		"mcpfile.store.usage":    int64(len(png)),
		"mcpfile.rejections":     6,
	} {
		if got, ok := sums[name]; !ok || got != want {
			t.Errorf("%s = %d (present %v), want %d", name, got, ok, want)
		}
	}
	for _, reason := range []string{transfer.ReasonMaxSizeExceeded, transfer.ReasonAlreadyUsed, "fileURI", "content"} {
		if sums["mcpfile.rejections{"+reason+"}"] != 1 {
			t.Errorf("mcpfile.rejections with reason %s: %d, want 1", reason, sums["mcpfile.rejections{"+reason+"}"])
		}
	}
	if n := histCount(rm, "mcpfile.upload.duration"); n != 2 { // the upload, and the replay refused
		t.Errorf("mcpfile.upload.duration has %d uploads, want 2", n)
	}
}

// getLen GETs url and returns the status and the body's length.
func getLen(t *testing.T, url string) (int, int64) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	n, _ := io.Copy(io.Discard, res.Body)
	return res.StatusCode, n
}

// sumsOf returns the sum of each integer sum in rm, by name, and of
// mcpfile.rejections also by reason, as "mcpfile.rejections{<reason>}".
func sumsOf(rm metricdata.ResourceMetrics) map[string]int64 {
	sums := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			d, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				continue
			}
			sums[m.Name] += 0
			for _, p := range d.DataPoints {
				sums[m.Name] += p.Value
				if v, ok := p.Attributes.Value("mcpfile.reason"); ok {
					sums[m.Name+"{"+v.AsString()+"}"] += p.Value
				}
			}
		}
	}
	return sums
}

// histCount returns how many values the histogram name of rm counted.
func histCount(rm metricdata.ResourceMetrics, name string) uint64 {
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if d, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == name {
				for _, p := range d.DataPoints {
					n += p.Count
				}
			}
		}
	}
	return n
}
