package fetch_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpfile/mcpfile/runtime/internal/observe/observetest"
)

// everyRecord keeps every record the package's tests write through the
// default logger (every fetcher without a Logger of its own).
var everyRecord observetest.Recorder

// TestMain runs the tests with everyRecord as the default logger, and
// fails when a record of the whole run holds a URL with its path or
// query, the tests' secret query or a body.
func TestMain(m *testing.M) {
	slog.SetDefault(everyRecord.Logger())
	code := m.Run()
	problems := everyRecord.Problems()
	for _, r := range everyRecord.Records() {
		if strings.Contains(r.Text, "SECRET") || strings.Contains(r.Text, "BODY") {
			problems = append(problems, "the secret query or a body in "+r.Text)
		}
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "log record breaks the rule:", p)
	}
	if code == 0 && len(problems) > 0 {
		code = 1
	}
	os.Exit(code)
}

// TestObserved: a fetch, and fetches refused before and after connecting,
// each leave a record with the host only and the reason, and are measured.
func TestObserved(t *testing.T) {
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "BODY of the file") })
	var logs observetest.Recorder
	reader := sdkmetric.NewManualReader()
	o.Logger, o.MeterProvider = logs.Logger(), sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	f := newFetcher(t, o)
	ctx := context.Background()
	if _, err := f.Fetch(ctx, at(ts, "https", "files.test", "/f?sig=SECRET"), 100); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(ctx, at(ts, "https", "files.test", "/f?sig=SECRET"), 4); err == nil {
		t.Fatal("a fetch past maxSize: no error")
	}
	if _, err := f.Fetch(ctx, at(ts, "https", "inner.test", "/f?sig=SECRET"), 100); err == nil {
		t.Fatal("a fetch of a private address: no error")
	}
	if _, err := f.Fetch(ctx, "https://elsewhere.test/f?sig=SECRET", 100); err == nil {
		t.Fatal("a fetch of a host not listed: no error")
	}

	host := at(ts, "https", "files.test", "")
	for _, want := range []struct {
		msg string
		kv  []string
	}{
		{"fetch", []string{"op", "fetch", "host", host, "bytes", "16"}},
		{"refused", []string{"op", "fetch", "reason", "maxSizeExceeded", "host", host}},
		{"refused", []string{"op", "fetch", "reason", "privateAddress"}},
		{"refused", []string{"op", "fetch", "reason", "notAllowed", "host", "https://elsewhere.test"}},
	} {
		if got := logs.Find(want.msg, want.kv...); len(got) != 1 {
			t.Errorf("%d records %q %v, want 1; have %v", len(got), want.msg, want.kv, logs.Records())
		}
	}
	for _, p := range logs.Problems([]byte("BODY of the file")) {
		t.Error(p)
	}
	for _, r := range logs.Records() {
		if strings.Contains(r.Text, "SECRET") || strings.Contains(r.Text, "/f?") {
			t.Errorf("record %s holds the URL's path or query", r.Text)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if d, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, p := range d.DataPoints {
					got[m.Name] += p.Value
				}
			}
		}
	}
	if got["mcpfile.fetches"] != 4 || got["mcpfile.fetch.bytes"] != 16 || got["mcpfile.rejections"] != 3 {
		t.Errorf("fetches %d, bytes %d, rejections %d; want 4, 16, 3", got["mcpfile.fetches"], got["mcpfile.fetch.bytes"], got["mcpfile.rejections"])
	}
}
