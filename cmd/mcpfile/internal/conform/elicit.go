package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// The checks of files in elicitation answers (SEP-2356 §3, §4). A tool
// with file arguments, none of them required, is called without them as a
// client that answers forms; when the server asks for a form with a file
// field, the suite answers it with a valid file, then with files that
// break the field's accept, maxSize or content, and sees whether the
// server takes them. A re-issued form (answered with decline) or an
// isError result is a refusal; a JSON-RPC error is one too, but SEP-2356
// says a server should not answer so.

var elicitIDs = []string{"elicit.accept", "elicit.refuse.type", "elicit.refuse.maxsize", "elicit.refuse.content", "elicit.refusal.form"}

// A form is what the server asked for: its message and its file field.
type form struct {
	f   field
	raw map[string]any // the requested schema
}

// elicitor answers the forms of one session as its script says.
type elicitor struct {
	mu    sync.Mutex
	forms []form
	// answer is the content of the first form's answer; nil declines.
	answer map[string]any
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var f form
	if req.Params != nil && req.Params.RequestedSchema != nil {
		b, _ := json.Marshal(req.Params.RequestedSchema)
		json.Unmarshal(b, &f.raw)
		if ts, err := readTools(map[string]json.RawMessage{"form": b}); err == nil && len(ts) == 1 && len(ts[0].fields) > 0 {
			f.f = ts[0].fields[0]
		}
	}
	e.forms = append(e.forms, f)
	if len(e.forms) == 1 && e.answer != nil && f.f.name != "" {
		return &mcp.ElicitResult{Action: "accept", Content: e.answer}, nil
	}
	return &mcp.ElicitResult{Action: "decline"}, nil
}

// elicitSession opens a session of a client that answers forms with e.
func (r *runner) elicitSession(ctx context.Context, e *elicitor) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpfile-conform", Version: "v0.1.0"}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	if err := client.Enable(c); err != nil {
		return nil, err
	}
	return c.Connect(ctx, r.o.Transport(), &mcp.ClientSessionOptions{ProtocolVersion: r.version})
}

// elicits runs the elicitation checks on every tool whose file arguments
// are all optional.
func (r *runner) elicits(ctx context.Context, tools []tool) error {
	ran, candidates := false, 0
	for _, t := range tools {
		optional := true
		for _, f := range t.fields {
			optional = optional && !f.required
		}
		if !optional {
			continue
		}
		candidates++
		args := map[string]any{}
		for n, s := range t.required {
			args[n] = fill(s)
		}
		ok, err := r.elicitTool(ctx, t.name, args)
		if err != nil {
			return err
		}
		ran = ran || ok
	}
	if !ran {
		why := "no tool asked for a file in a form when called without its file arguments"
		if candidates == 0 {
			why = "no tool whose file arguments are all optional (those are called without them, to see whether they ask for a file)"
		}
		for _, id := range elicitIDs {
			r.res.add(id, "skip", "", r.version+": "+why)
		}
	}
	return nil
}

// elicitTool calls a tool as a client that answers forms; false when it
// asked for no file.
func (r *runner) elicitTool(ctx context.Context, name string, args map[string]any) (bool, error) {
	// The probe: which form does it ask for? (declined)
	probe := &elicitor{}
	if _, err := r.elicitCall(ctx, probe, name, args); err != nil {
		return false, err
	}
	var f field
	for _, x := range probe.forms {
		if x.f.name != "" {
			f = x.f
			break
		}
	}
	if f.name == "" {
		return false, nil
	}
	f.tool = name + " form"
	tg := func(what string) string { return r.target(f, what) }
	if len(f.problems) > 0 {
		r.res.add("schema.shape", "fail", tg(""), strings.Join(f.problems, "; "))
		return true, nil
	}
	k, ok := firstKind(f)
	if !ok {
		for _, id := range elicitIDs {
			r.res.add(id, "skip", "", f.String()+": accept names no type the suite can make")
		}
		return true, nil
	}
	valid := k.build(0)

	// A valid file: taken, with no form asked again.
	e := &elicitor{answer: map[string]any{f.name: b64URI(k.mediaType, valid)}}
	a, err := r.elicitCall(ctx, e, name, args)
	if err != nil {
		return true, err
	}
	switch {
	case a.broken != nil:
		r.res.add("elicit.accept", "fail", tg(k.mediaType), "the call failed: "+a.broken.Error())
	case a.refused() || len(e.forms) > 1:
		r.res.add("elicit.accept", "fail", tg(k.mediaType), "refused a valid file: "+a.brief())
	default:
		r.res.add("elicit.accept", "pass", tg(k.mediaType), "")
	}

	// Files that break the field.
	type bad struct {
		id, what, mt string
		b            []byte
	}
	var cases []bad
	for _, mt := range []string{"application/pdf", "image/png", "text/plain", "application/zip", "application/json"} {
		if !f.matches(mt) {
			cases = append(cases, bad{"elicit.refuse.type", mt, mt, kinds[mt].build(0)})
			break
		}
	}
	switch {
	case f.maxSize < 0:
		r.res.add("elicit.refuse.maxsize", "skip", "", f.String()+": no maxSize")
	case f.maxSize+1 > BigSize && !r.o.Big:
		r.res.add("elicit.refuse.maxsize", "skip", "", fmt.Sprintf("%s: maxSize %d is over 64 MiB (run with -big)", f, f.maxSize))
	default:
		if over, ok := k.sized(f.maxSize + 1); ok {
			cases = append(cases, bad{"elicit.refuse.maxsize", fmt.Sprintf("%s of %d bytes", k.mediaType, f.maxSize+1), k.mediaType, over})
		}
	}
	if !strings.EqualFold(k.mediaType, "application/octet-stream") {
		other, what := pngFile(0), "PNG bytes"
		if strings.EqualFold(k.mediaType, "image/png") {
			other, what = pdfFile(0), "PDF bytes"
		}
		cases = append(cases, bad{"elicit.refuse.content", what + " declared " + k.mediaType, k.mediaType, other})
	}
	for _, c := range cases {
		e := &elicitor{answer: map[string]any{f.name: b64URI(c.mt, c.b)}}
		a, err := r.elicitCall(ctx, e, name, args)
		if err != nil {
			return true, err
		}
		t := tg(c.what)
		switch {
		case a.broken != nil:
			r.res.add(c.id, "fail", t, "the call failed: "+a.broken.Error())
			continue
		case len(e.forms) > 1:
			r.res.add(c.id, "pass", t, "")
			r.res.add("elicit.refusal.form", "pass", t+" (asked again)", "")
		case a.rpc != nil:
			r.res.add(c.id, "pass", t, "")
			r.res.add("elicit.refusal.form", "fail", t, fmt.Sprintf("a JSON-RPC error %d (want the form asked again, or an isError result): %q", a.rpc.Code, a.rpc.Message))
		case a.refused():
			r.res.add(c.id, "pass", t, "")
			r.res.add("elicit.refusal.form", "pass", t+" (isError)", "")
		default:
			r.res.add(c.id, "fail", t, "the tool took it: "+a.brief())
			continue
		}
		if run := echoes(a.text(), c.b); run != "" {
			r.res.add("refusal.noecho", "fail", t+" [elicitation]", fmt.Sprintf("the refusal repeats %q of the file", run))
		} else {
			r.res.add("refusal.noecho", "pass", t, "")
		}
	}
	return true, nil
}

// elicitCall calls the tool on a new session that answers forms with e.
func (r *runner) elicitCall(ctx context.Context, e *elicitor, name string, args map[string]any) (answer, error) {
	cs, err := r.elicitSession(ctx, e)
	if err != nil {
		return answer{}, fmt.Errorf("connecting as a client that answers forms: %v", err)
	}
	defer cs.Close()
	cctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		return answer{res: res}, nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return answer{rpc: je}, nil
	}
	return answer{broken: err}, nil
}
