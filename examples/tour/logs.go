package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// A logRecorder keeps the text records the servers write to the default
// logger during the tour, for its last section.
type logRecorder struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logRecorder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// recordLogs makes the default logger write text records, without their
// time, to the returned recorder.
func recordLogs() *logRecorder {
	l := new(logRecorder)
	noTime := func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{ReplaceAttr: noTime})))
	return l
}

// logs shows what the servers logged during the tour.
func (t *tour) logs(l *logRecorder) {
	all := strings.TrimSpace(l.String())
	t.printf("   Each transfer and each refusal above was one log/slog record on the server (transfer.Options.Logger,\n")
	t.printf("   else slog.Default()), with its reason, sizes and durations, and an owner only as a keyed hash;\n")
	t.printf("   the same events are measured through OpenTelemetry's metric API once a MeterProvider is set.\n\n")
	t.printf("%s\n", indent(all, "   "))
	t.check(strings.Count(all, "msg=refused") >= 10, "every refusal is recorded, with its reason (%d records)", strings.Count(all, "msg=refused"))
	t.check(strings.Contains(all, "msg=upload op=upload via=endpoint") && strings.Contains(all, "msg=upload op=upload via=page"), "the uploads are recorded, by the endpoint and through the page")
	t.check(!strings.Contains(all, "mcp-file:") && !strings.Contains(all, "data:") && !strings.Contains(all, "base64") && !strings.Contains(all, "token"),
		"no record holds a file URI, a data: URI, a file's bytes or a token")
}
