// Package conform is the conformance suite behind mcpfile conform: it
// connects to an MCP server as a client, reads the x-mcp-file properties
// of its tools (SEP-2356), sends each one files it makes in code, valid and
// invalid, inline and, where the server serves files/authorizeUpload,
// uploaded (SEP-2631), fetches the files its tools return, and reports,
// check by check, whether the server accepts and refuses what the texts
// say it must.
//
// It is internal while its checks grow: the command's output, not a Go
// API, is the interface it promises.
package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Versions are the protocol versions the suite speaks, one generation
// each: sessions and elicitation/create (2025-11-25), and none (2026-07-28).
var Versions = []string{"2025-11-25", "2026-07-28"}

// BigSize is the largest file the suite sends without Options.Big.
const BigSize = 64 << 20

// Options say how to reach the server and what to send it.
type Options struct {
	// Transport returns a new transport to the server. The suite connects
	// over one per protocol version and client it needs (one that declares
	// SEP-2631's files capability, one that does not), and again after the
	// server stopped answering.
	Transport func() mcp.Transport
	// Versions are the protocol versions to check (nil: Versions). A
	// version the server negotiates down from is reported, not checked.
	Versions []string
	// Big lets the suite send files larger than BigSize (64 MiB).
	Big bool
	// CallTimeout bounds each request (0: 30 seconds).
	CallTimeout time.Duration
}

// A Check is the outcome of one check, over every file argument and
// protocol version it applied to.
type Check struct {
	ID          string `json:"id"`
	Requirement string `json:"requirement"`
	Level       string `json:"level"`  // "MUST" or "SHOULD"
	Status      string `json:"status"` // "pass", "fail" or "skip"
	Detail      string `json:"detail"`
}

// A Report is the outcome of a run.
type Report struct {
	Checks []Check `json:"checks"`
	// Notes say what was checked: the versions spoken, the file arguments
	// found, the versions the server did not speak.
	Notes []string `json:"-"`
}

// MustFailed reports whether a MUST check failed.
func (r *Report) MustFailed() bool {
	for _, c := range r.Checks {
		if c.Status == "fail" && c.Level == "MUST" {
			return true
		}
	}
	return false
}

// ErrUnreachable is returned, wrapped, when the server could not be
// checked at all.
var ErrUnreachable = errors.New("the server could not be checked")

// Run checks the server o.Transport reaches.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.CallTimeout == 0 {
		o.CallTimeout = 30 * time.Second
	}
	if o.Versions == nil {
		o.Versions = Versions
	}
	trap, err := newTrap()
	if err != nil {
		return nil, err
	}
	defer trap.close()
	res := newResults()
	rep := &Report{}
	spoken := 0
	for _, v := range o.Versions {
		r := &runner{o: o, version: v, res: res, trap: trap}
		note, err := r.run(ctx)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
		if errors.Is(err, errNotSpoken) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: protocol %s: %v", ErrUnreachable, v, err)
		}
		spoken++
	}
	if spoken == 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnreachable, strings.Join(rep.Notes, "; "))
	}
	if n := trap.hits.Load(); n > 0 {
		res.add("scheme.nofetch", "fail", "", fmt.Sprintf("%d connection(s) reached the suite's loopback URLs (%s): the server dereferenced a URL it was sent", n, strings.Join(trap.paths(), ", ")))
	} else if res.ran["scheme.refuse.http"] || res.ran["scheme.refuse.https"] {
		res.add("scheme.nofetch", "pass", "", "no connection reached the suite's loopback http: and https: URLs during the run (only a server on this machine can reach them)")
	}
	rep.Checks = res.checks()
	return rep, nil
}

var errNotSpoken = errors.New("version not spoken")

// results gathers the outcomes of each check over targets.
type results struct {
	pass, fail, skip map[string][]string
	ran              map[string]bool
	forms            map[string]int
}

func newResults() *results {
	return &results{pass: map[string][]string{}, fail: map[string][]string{}, skip: map[string][]string{}, ran: map[string]bool{}, forms: map[string]int{}}
}

// add records status for check id on target, with detail.
func (r *results) add(id, status, target, detail string) {
	s := detail
	if target != "" {
		s = target + ": " + detail
	}
	switch status {
	case "pass":
		r.ran[id] = true
		if target == "" {
			target = detail
		}
		r.pass[id] = append(r.pass[id], target)
	case "fail":
		r.ran[id] = true
		r.fail[id] = append(r.fail[id], s)
	default:
		r.skip[id] = append(r.skip[id], detail)
	}
}

func (r *results) checks() []Check {
	var out []Check
	for _, c := range checks {
		k := Check{ID: c.id, Requirement: c.requirement, Level: c.level}
		switch {
		case len(r.fail[c.id]) > 0:
			k.Status, k.Detail = "fail", summarize(r.fail[c.id])
		case len(r.pass[c.id]) > 0:
			k.Status = "pass"
			k.Detail = fmt.Sprintf("%d case(s): %s", len(r.pass[c.id]), summarize(unique(withoutVersion(r.pass[c.id]))))
			if c.id == "refusal.form" {
				k.Detail = r.formDetail()
			}
			if c.id == "scheme.nofetch" {
				k.Detail = r.pass[c.id][0]
			}
		default:
			k.Status = "skip"
			k.Detail = summarize(unique(r.skip[c.id]))
			if k.Detail == "" {
				k.Detail = "no file argument it applies to"
			}
		}
		out = append(out, k)
	}
	return out
}

func (r *results) formDetail() string {
	var parts []string
	for _, f := range []string{"isError", "-32602"} {
		if r.forms[f] > 0 {
			parts = append(parts, fmt.Sprintf("%d refusal(s) as %s", r.forms[f], f))
		}
	}
	return strings.Join(parts, ", ")
}

// withoutVersion drops the protocol version that starts each target.
func withoutVersion(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s
		for _, v := range Versions {
			if rest, ok := strings.CutPrefix(s, v+" "); ok {
				out[i] = rest
			}
		}
	}
	return out
}

func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func summarize(ss []string) string {
	const most = 4
	if len(ss) > most {
		return strings.Join(ss[:most], "; ") + fmt.Sprintf("; and %d more", len(ss)-most)
	}
	return strings.Join(ss, "; ")
}
