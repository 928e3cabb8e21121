// Package observetest holds tests to the rule of package observe: no
// record carries a byte of a file, a token, a file URI or a URL that may
// hold a signature. A [Recorder] is a slog.Handler that keeps every record
// written to it; [Recorder.Check] holds each to the rule.
package observetest

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
)

// A Record is one record a Recorder kept: its level and message, its
// attributes by key (groups flattened as "group.key"), and all of it as
// one line of text.
type Record struct {
	Level slog.Level
	Msg   string
	Attrs map[string]slog.Value
	Text  string
}

// A Recorder is a slog.Handler that keeps every record, at every level.
type Recorder struct {
	mu      sync.Mutex
	records []Record
}

// recorderHandler is a Recorder's handler with the attributes of With.
type recorderHandler struct {
	r     *Recorder
	attrs []slog.Attr
}

// Handler returns the handler that records into r.
func (r *Recorder) Handler() slog.Handler { return &recorderHandler{r: r} }

// Logger returns a logger that records into r.
func (r *Recorder) Logger() *slog.Logger { return slog.New(r.Handler()) }

func (h *recorderHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *recorderHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &recorderHandler{r: h.r, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *recorderHandler) WithGroup(string) slog.Handler { return h }

func (h *recorderHandler) Handle(_ context.Context, rec slog.Record) error {
	out := Record{Level: rec.Level, Msg: rec.Message, Attrs: map[string]slog.Value{}}
	var b strings.Builder
	b.WriteString(rec.Message)
	var add func(prefix string, a slog.Attr)
	add = func(prefix string, a slog.Attr) {
		v := a.Value.Resolve()
		if v.Kind() == slog.KindGroup {
			for _, g := range v.Group() {
				add(prefix+a.Key+".", g)
			}
			return
		}
		out.Attrs[prefix+a.Key] = v
		fmt.Fprintf(&b, " %s%s=%s", prefix, a.Key, v.String())
	}
	for _, a := range h.attrs {
		add("", a)
	}
	rec.Attrs(func(a slog.Attr) bool { add("", a); return true })
	out.Text = b.String()
	h.r.mu.Lock()
	h.r.records = append(h.r.records, out)
	h.r.mu.Unlock()
	return nil
}

// Records returns the records kept so far.
func (r *Recorder) Records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.records...)
}

// Find returns the records with message msg whose attributes have the
// string values of want (key, value, key, value, …).
func (r *Recorder) Find(msg string, want ...string) []Record {
	var found []Record
next:
	for _, rec := range r.Records() {
		if rec.Msg != msg {
			continue
		}
		for i := 0; i+1 < len(want); i += 2 {
			if v, ok := rec.Attrs[want[i]]; !ok || v.String() != want[i+1] {
				continue next
			}
		}
		found = append(found, rec)
	}
	return found
}

// tokenRun is a run of base64url characters as long as the shortest token
// or sealed value the server hands out; pseudonyms and key ids are
// shorter, and file IDs (fileID) are let through.
var tokenRun = regexp.MustCompile(`[A-Za-z0-9_-]{40,}`)

// fileID is a file ID of the store: of an upload, "file_" and 26
// characters; of an upload page, "page_", 24 hex digits (its tool and
// input request), "_", "link_" for a page handed over as a link, and 26.
var fileID = regexp.MustCompile(`^(file_[A-Z2-7]{26}|page_[0-9a-f]{24}_(link_)?[A-Z2-7]{26})$`)

// mayBeToken returns the first run of rec that may be a token, or "".
func mayBeToken(rec string) string {
	for _, run := range tokenRun.FindAllString(rec, -1) {
		if !fileID.MatchString(run) {
			return run
		}
	}
	return ""
}

// urlWithPath is a URL with more than a scheme and host.
var urlWithPath = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/]*/[^\s]`)

// Problems returns what breaks the rule in the records kept: a file URI,
// a URL with a path or query, a run of characters that may be a token,
// or 16 bytes of any secret (a file's bytes, a token, a URL), raw or in
// base64. Each problem names the record.
func (r *Recorder) Problems(secrets ...[]byte) []string {
	var windows []string
	for _, s := range secrets {
		for _, form := range []string{string(s), base64.StdEncoding.EncodeToString(s), base64.RawURLEncoding.EncodeToString(s)} {
			if len(form) < 16 {
				if len(form) >= 8 {
					windows = append(windows, form)
				}
				continue
			}
			for i := 0; i+16 <= len(form); i += 8 {
				windows = append(windows, form[i:i+16])
			}
		}
	}
	var problems []string
	for _, rec := range r.Records() {
		switch {
		case strings.Contains(strings.ToLower(rec.Text), "mcp-file:"):
			problems = append(problems, "a file URI in "+rec.Text)
		case urlWithPath.MatchString(rec.Text):
			problems = append(problems, "a URL with a path in "+rec.Text)
		case mayBeToken(rec.Text) != "":
			problems = append(problems, fmt.Sprintf("what may be a token (%.12s…) in %s", mayBeToken(rec.Text), rec.Text))
		}
		for _, w := range windows {
			if strings.Contains(rec.Text, w) {
				problems = append(problems, fmt.Sprintf("16 bytes of a secret (%q) in %s", w, rec.Text))
				break
			}
		}
	}
	return problems
}
