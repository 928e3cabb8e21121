package conform

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// runner runs the checks on one protocol version.
type runner struct {
	o       Options
	version string
	res     *results
	trap    *trap
	cs      *mcp.ClientSession
	// fileBlocks counts the file content blocks the server sent.
	fileBlocks atomic.Int64
}

func (r *runner) connect(ctx context.Context) error {
	cs, err := r.session(ctx, false)
	if err != nil {
		return err
	}
	r.cs = cs
	return nil
}

// session opens a new session on the runner's version, of a client that
// can send files/authorizeUpload and files/authorizeDownload and, when
// files is set, declares SEP-2631's files capability. Every file block of
// its results is counted in r.fileBlocks.
func (r *runner) session(ctx context.Context, files bool) (*mcp.ClientSession, error) {
	var opts *mcp.ClientOptions
	if files {
		opts = &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": client.FilesCapability()}}}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpfile-conform", Version: "v0.1.0"}, opts)
	if err := client.Enable(c); err != nil {
		return nil, err
	}
	t := client.WrapTransport(r.o.Transport(), func(wire.FileValue) { r.fileBlocks.Add(1) })
	return c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: r.version})
}

func (r *runner) run(ctx context.Context) (string, error) {
	if err := r.connect(ctx); err != nil {
		return fmt.Sprintf("%s: could not connect: %v", r.version, err), errNotSpoken
	}
	defer func() { r.cs.Close() }()
	if got := r.cs.InitializeResult().ProtocolVersion; got != r.version {
		return fmt.Sprintf("%s: not spoken (the server negotiated %s); its checks did not run", r.version, got), errNotSpoken
	}
	schemas := map[string]json.RawMessage{}
	outputs := map[string]json.RawMessage{} // the output schemas that declare a file
	for t, err := range r.cs.Tools(ctx, nil) {
		if err != nil {
			return "", fmt.Errorf("tools/list: %v", err)
		}
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return "", fmt.Errorf("tool %q: input schema: %v", t.Name, err)
		}
		schemas[t.Name] = b
		if t.OutputSchema != nil {
			if o, err := json.Marshal(t.OutputSchema); err == nil && declaresFile(o) {
				outputs[t.Name] = b
			}
		}
	}
	tools, err := readTools(schemas)
	if err != nil {
		return "", err
	}
	var names []string
	for _, t := range tools {
		for _, f := range t.fields {
			names = append(names, f.String())
		}
	}
	note := fmt.Sprintf("%s: %d tool(s), %d file argument(s): %s", r.version, len(schemas), len(names), strings.Join(names, ", "))
	if len(names) == 0 {
		note = fmt.Sprintf("%s: %d tool(s), no x-mcp-file argument", r.version, len(schemas))
	}
	for _, t := range tools {
		for _, f := range t.fields {
			if err := r.field(ctx, t, f); err != nil {
				return note, err
			}
		}
	}
	if err := r.elicits(ctx, tools); err != nil {
		return note, err
	}
	if err := r.uploads(ctx, tools); err != nil {
		return note, err
	}
	if err := r.downloads(ctx, outputs); err != nil {
		return note, err
	}
	return note, nil
}

// target names a case in a check's detail.
func (r *runner) target(f field, what string) string {
	s := r.version + " " + f.String()
	if what != "" {
		s += " (" + what + ")"
	}
	return s
}

// skipFiles records reason as the skip of every check that sends f a file.
func (r *runner) skipFiles(f field, reason string) {
	for _, c := range checks {
		if c.id != "schema.shape" && c.id != "scheme.nofetch" && !strings.HasPrefix(c.id, "upload.") && !strings.HasPrefix(c.id, "download.") && !strings.HasPrefix(c.id, "elicit.") {
			r.res.add(c.id, "skip", "", f.String()+": "+reason)
		}
	}
}

// field runs every check on one file argument.
func (r *runner) field(ctx context.Context, t tool, f field) error {
	if len(f.problems) > 0 {
		r.res.add("schema.shape", "fail", r.target(f, ""), strings.Join(f.problems, "; "))
		r.skipFiles(f, "its x-mcp-file is malformed, so clients ignore it")
		return nil
	}
	r.res.add("schema.shape", "pass", f.String(), "")
	if !f.inline() {
		r.skipFiles(f, "upload only (transferModes "+strings.Join(f.modes, ", ")+"): no data: URI to check")
		return nil
	}
	c := caller{r: r, t: t, f: f}
	if reason := c.others(); reason != "" {
		r.skipFiles(f, reason)
		return nil
	}

	// The types the suite can make, in accept's order; the first is the
	// one the other checks send.
	var ks []kind
	seen := map[string]bool{}
	for _, a := range f.accept {
		if strings.HasPrefix(a, ".") {
			continue
		}
		k, ok := kindFor(a)
		if !ok {
			r.res.add("inline.accept.base64", "skip", "", f.String()+": the suite makes no "+a+" file")
			continue
		}
		if !strings.Contains(a, "*") {
			k.mediaType = a
		}
		if !seen[strings.ToLower(k.mediaType)] {
			seen[strings.ToLower(k.mediaType)] = true
			ks = append(ks, k)
		}
	}
	if !f.hasAccept {
		ks = append(ks, kinds["application/octet-stream"])
	}
	if len(ks) == 0 {
		r.skipFiles(f, "accept names no type the suite can make")
		return nil
	}
	base := ks[0]
	small := func(k kind) ([]byte, bool) {
		b := k.build(0)
		return b, f.maxSize < 0 || int64(len(b)) <= f.maxSize
	}

	for _, k := range ks {
		b, ok := small(k)
		if !ok {
			r.res.add("inline.accept.base64", "skip", "", fmt.Sprintf("%s: maxSize %d is smaller than the suite's smallest %s", f, f.maxSize, k.mediaType))
			continue
		}
		if err := c.accept(ctx, "inline.accept.base64", k.mediaType, b64URI(k.mediaType, b)); err != nil {
			return err
		}
	}
	b, ok := small(base)
	if !ok {
		r.skipFiles(f, fmt.Sprintf("maxSize %d is smaller than the suite's smallest %s", f.maxSize, base.mediaType))
		return nil
	}
	steps := []func() error{
		func() error { return c.accept(ctx, "inline.accept.percent", base.mediaType, pctURI(base.mediaType, b)) },
		func() error {
			mt := strings.ToUpper(base.mediaType)
			return c.accept(ctx, "inline.accept.mediatype-case", mt, b64URI(mt, b))
		},
		func() error {
			mt := base.mediaType + ";x-conform=1"
			if strings.HasPrefix(base.mediaType, "text/") || base.mediaType == "application/json" {
				mt = base.mediaType + ";charset=utf-8"
			}
			return c.accept(ctx, "inline.accept.mediatype-params", mt, b64URI(mt, b))
		},
		func() error { return c.maxSize(ctx, base) },
		func() error { return c.outsideAccept(ctx) },
		func() error { return c.mismatch(ctx, base) },
		func() error { return c.schemes(ctx) },
		func() error {
			return c.refuse(ctx, "uri.refuse.nocomma", "no comma", "data:"+base.mediaType+";base64"+enc(b), b)
		},
		func() error {
			e := enc(b)
			return c.refuse(ctx, "uri.refuse.badbase64", "not base64", "data:"+base.mediaType+";base64,"+e[:len(e)/2]+"*!*"+e[len(e)/2:], b)
		},
		func() error { return c.items(ctx, base) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func enc(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func b64URI(mt string, b []byte) string { return "data:" + mt + ";base64," + enc(b) }

// pctURI is the percent-encoded data: URI of b: every byte but RFC 3986's
// unreserved characters escaped.
func pctURI(mt string, b []byte) string {
	var s strings.Builder
	s.WriteString("data:" + mt + ",")
	const hex = "0123456789ABCDEF"
	for _, c := range b {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			s.WriteByte(c)
		} else {
			s.WriteByte('%')
			s.WriteByte(hex[c>>4])
			s.WriteByte(hex[c&15])
		}
	}
	return s.String()
}
