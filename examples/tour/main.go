// Command tour shows mcpfile's main job end to end, in a few seconds and with
// nothing but Go: an annotated struct, the schema a client sees in
// tools/list, a call with a real PNG, the calls the runtime rejects with the
// texts a model reads, a file asked of the user through elicitation on
// both protocol generations, and a file too large to send inline, uploaded
// out of band (SEP-2631): files/authorizeUpload, an HTTP POST of the bytes,
// and a tools/call that carries the file's URI, and then what the servers
// logged of it all. The servers are the
// examples in this directory, the client is the MCP Go SDK's, connected
// over in-memory transports, and for the upload over streamable HTTP on
// 127.0.0.1.
//
//	go run ./examples/tour
//
// Every step is checked; the tour exits with status 1 if one misbehaves.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/examples/profile/profile"
	"github.com/mcpfile/mcpfile/runtime/datauri"
)

func main() {
	t := &tour{out: os.Stdout}
	t.printf("mcpfile tour: file arguments for MCP tools, from struct tag to validated bytes.\n")
	t.run(context.Background())
	if t.failed > 0 {
		fmt.Fprintf(t.out, "\n%d check(s) FAILED\n", t.failed)
		os.Exit(1)
	}
	fmt.Fprintf(t.out, "\nAll %d checks passed.\n", t.passed)
}

type tour struct {
	out            io.Writer
	passed, failed int
}

func (t *tour) section(title string) {
	fmt.Fprintf(t.out, "\n== %s\n\n", title)
}

func (t *tour) printf(format string, args ...any) { fmt.Fprintf(t.out, format, args...) }

// check records a check and prints it.
func (t *tour) check(ok bool, what string, args ...any) {
	if ok {
		t.passed++
		t.printf("   ok    %s\n", fmt.Sprintf(what, args...))
		return
	}
	t.failed++
	t.printf("   FAIL  %s\n", fmt.Sprintf(what, args...))
}

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// message formats an elicitation message under a "message: " label.
func message(m string) string {
	return strings.TrimLeft(indent(m, "              "), " ")
}

func (t *tour) run(ctx context.Context) {
	logs := recordLogs()
	cs, err := connect(ctx, describeimage.NewServer(describeimage.Options{}), nil, "")
	if err != nil {
		t.check(false, "connect to describe_image: %v", err)
		return
	}
	defer cs.Close()

	t.section("1. The annotated struct (examples/describe_image/describeimage/args.go)")
	src := describeimage.ArgsSource
	if i := strings.Index(src, "// Args"); i >= 0 {
		src = src[i:]
	}
	t.printf("%s\n", indent(src, "   "))
	t.printf("   go generate runs mcpfilegen, which writes MCPSchema and UnmarshalJSON for Args;\n")
	t.printf("   the server registers the tool with runtime.AddTool(s, tool, handler).\n")

	t.section("2. tools/list, as a client receives it")
	t.toolsList(ctx, cs)

	t.section("3. A call with a real PNG")
	t.validCall(ctx, cs)

	t.section("4. Calls the runtime rejects: the isError results a model reads")
	t.printf("   (the texts come from the runtime and the schema validator; no JSON-RPC errors)\n")
	t.rejected(ctx, cs)

	t.section("5. Asking the user for a file (elicitation), protocol 2026-07-28")
	t.elicitMRTR(ctx)

	t.section("6. The same with an older client (2025-11-25: elicitation/create)")
	t.elicitLegacy(ctx)

	t.section("7. Uploading a file out of band (SEP-2631, examples/analyzedoc/args.go)")
	t.upload(ctx)

	t.section("8. A person's file through an upload page (URL-mode elicitation, import_archive)")
	t.page(ctx)

	t.section("9. The same for a chat host without elicitation: a link the model hands over")
	t.pageLink(ctx)

	t.section("10. What the servers logged")
	t.logs(logs)
}

func connect(ctx context.Context, s *mcp.Server, opts *mcp.ClientOptions, version string) (*mcp.ClientSession, error) {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "tour", Version: "v1"}, opts)
	return c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

func (t *tour) toolsList(ctx context.Context, cs *mcp.ClientSession) {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.check(false, "tools/list: %v", err)
		return
	}
	// The server has the tool for hosts' file objects too; the tour shows
	// the data: URI one.
	i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == describeimage.Tool.Name })
	if i < 0 {
		t.check(false, "tools/list: no %s tool", describeimage.Tool.Name)
		return
	}
	tool := res.Tools[i]
	b, _ := json.MarshalIndent(map[string]any{"name": tool.Name, "description": tool.Description, "inputSchema": tool.InputSchema}, "", "  ")
	t.printf("%s\n", indent(string(b), "   "))
	var s struct {
		Properties struct {
			Image struct {
				Type   string       `json:"type"`
				Format string       `json:"format"`
				File   *fileKeyword `json:"x-mcp-file"`
			} `json:"image"`
		} `json:"properties"`
	}
	sb, _ := json.Marshal(tool.InputSchema)
	_ = json.Unmarshal(sb, &s)
	img := s.Properties.Image
	t.check(img.Type == "string" && img.Format == "uri", `"image" is {"type":"string","format":"uri"}`)
	f := img.File
	if f == nil {
		f = &fileKeyword{}
	}
	t.check(img.File != nil && f.MaxSize == 5<<20 && len(f.Accept) == 4, "x-mcp-file arrives intact: accept %v, maxSize %d", f.Accept, f.MaxSize)
}

// fileKeyword is the value of x-mcp-file.
type fileKeyword struct {
	Accept  []string `json:"accept"`
	MaxSize int64    `json:"maxSize"`
}

// pngImage encodes a w×h PNG with a diagonal stripe.
func pngImage(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x*h/w, color.NRGBA{R: 220, G: 40, B: 40, A: 255})
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

func (t *tour) call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.check(false, "tools/call %s: JSON-RPC error %v (a violation must be an isError result)", tool, err)
		return nil, ""
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return res, strings.Join(texts, "\n")
}

func (t *tour) validCall(ctx context.Context, cs *mcp.ClientSession) {
	data := pngImage(64, 48)
	uri := datauri.Encode("image/png", data)
	t.printf("   tools/call describe_image {\"image\": %q}\n", datauri.Redact(uri))
	t.printf("   (the value carries the whole file, a %d-character data: URI; logs show it redacted as above)\n\n", len(uri))
	res, text := t.call(ctx, cs, "describe_image", map[string]any{"image": uri})
	if res == nil {
		return
	}
	t.printf("   result (isError: %v):\n%s\n", res.IsError, indent(text, "     "))
	var d describeimage.Description
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &d)
	t.check(!res.IsError && d.Format == "png" && d.Width == 64 && d.Height == 48 && d.Size == int64(len(data)),
		"the handler got the decoded bytes: png, 64×48, %d bytes", len(data))
}

func (t *tour) rejected(ctx context.Context, cs *mcp.ClientSession) {
	big := append(pngImage(8, 8), make([]byte, 5<<20)...)
	cases := []struct {
		what  string
		value any
		want  string
	}{
		{fmt.Sprintf("too big (5 MiB + %d bytes)", len(big)-5<<20), datauri.Encode("image/png", big), "exceeds maxSize"},
		{"a type accept does not allow (a PDF)", datauri.Encode("application/pdf", []byte("%PDF-1.7\n%%EOF\n")), "accept does not allow"},
		{"content not matching its type (text sent as image/png)", datauri.Encode("image/png", []byte("these bytes are not an image")), "fails the content check"},
		{"an https: URL (never fetched)", "https://example.com/cat.png", "not a data: URI"},
		{"a broken data: URI (bad base64)", "data:image/png;base64,iVBORw0K!!", "not a valid data: URI"},
		{"a broken data: URI (no comma)", "data:image/png;base64", "not a valid data: URI"},
		{"not a string at all", 42, "has the wrong JSON type"},
	}
	for _, c := range cases {
		shown := fmt.Sprint(c.value)
		if s, ok := c.value.(string); ok {
			shown = fmt.Sprintf("%q", datauri.Redact(s))
		}
		t.printf("\n   %s\n   image = %s\n", c.what, shown)
		res, text := t.call(ctx, cs, "describe_image", map[string]any{"image": c.value})
		if res == nil {
			continue
		}
		t.printf("   → %s\n", text)
		t.check(res.IsError && strings.Contains(text, c.want) && !strings.Contains(text, "base64,"),
			"isError: true, says %q, no file bytes", c.want)
	}
}

// user answers elicitation forms from a script, printing what it is asked.
type user struct {
	t       *tour
	mu      sync.Mutex
	answers []*mcp.ElicitResult
	asked   int
}

func (u *user) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked++
	schema, _ := json.Marshal(req.Params.RequestedSchema)
	u.t.printf("   the client shows a form (elicitation/create, mode %q):\n     message: %s", req.Params.Mode, message(req.Params.Message))
	if u.asked == 1 {
		u.t.printf("     requestedSchema: %s\n", schema)
	}
	if len(u.answers) == 0 {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	a := u.answers[0]
	u.answers = u.answers[1:]
	if p, ok := a.Content["photo"].(string); ok {
		u.t.printf("   the user picks %q\n\n", datauri.Redact(p))
	} else {
		u.t.printf("   the user chooses %q\n\n", a.Action)
	}
	return a, nil
}

func pick(uri string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"photo": uri}}
}

// elicitMRTR plays a 2026-07-28 client by hand, to show the wire: the tool
// result carries the form as an input request, and the answer comes back in
// the retried call's inputResponses, with requestState counting the tries.
func (t *tour) elicitMRTR(ctx context.Context) {
	cs, err := connect(ctx, profile.NewServer(), &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("not used: the tour answers by hand")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}, "2026-07-28")
	if err != nil {
		t.check(false, "connect to profile: %v", err)
		return
	}
	defer cs.Close()
	args := map[string]any{"displayName": "Mona"}
	call := func(responses mcp.InputResponseMap, state string) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_profile", Arguments: args, InputResponses: responses, RequestState: state})
		if err != nil {
			t.check(false, "tools/call create_profile: %v", err)
			return nil
		}
		return res
	}
	asks := 0
	showAsk := func(res *mcp.CallToolResult) bool {
		p, ok := res.InputRequests["profile_photo"].(*mcp.ElicitParams)
		if !res.NeedsInput() || !ok {
			return false
		}
		asks++
		schema, _ := json.Marshal(p.RequestedSchema)
		t.printf("   result: resultType input_required, requestState %q\n   inputRequests.profile_photo: elicitation/create, mode %q\n     message: %s",
			res.RequestState, p.Mode, message(p.Message))
		if asks == 1 {
			t.printf("     requestedSchema: %s\n", schema)
		}
		return strings.Contains(string(schema), `"x-mcp-file"`)
	}

	t.printf("   tools/call create_profile {\"displayName\": \"Mona\"}   (no photo: the tool asks the user)\n")
	res := call(nil, "")
	if res == nil {
		return
	}
	t.check(showAsk(res), "the result asks for a form whose photo field carries x-mcp-file")

	bad := datauri.Encode("image/png", []byte("GIF89a, not a PNG"))
	t.printf("\n   the user picks %q; the client retries with it in inputResponses\n", datauri.Redact(bad))
	res = call(mcp.InputResponseMap{"profile_photo": pick(bad)}, res.RequestState)
	if res == nil {
		return
	}
	t.check(showAsk(res) && strings.Contains(res.InputRequests["profile_photo"].(*mcp.ElicitParams).Message, "Argument 'photo'"),
		"a bad file is asked for again, with the reason")

	good := datauri.Encode("image/png", pngImage(48, 48))
	t.printf("\n   the user picks %q; the client retries\n", datauri.Redact(good))
	res = call(mcp.InputResponseMap{"profile_photo": pick(good)}, res.RequestState)
	if res == nil {
		return
	}
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(*mcp.TextContent).Text
	}
	t.printf("   result (isError: %v): %s\n", res.IsError, text)
	t.check(!res.IsError && strings.Contains(text, `"photoFrom":"user"`) && strings.Contains(text, `"width":48`), "the handler got the validated photo")

	t.printf("\n   the same call, the user declines:\n")
	res = call(nil, "")
	if res == nil {
		return
	}
	res = call(mcp.InputResponseMap{"profile_photo": &mcp.ElicitResult{Action: "decline"}}, res.RequestState)
	if res == nil {
		return
	}
	text = res.Content[0].(*mcp.TextContent).Text
	t.printf("   result (isError: %v): %s\n", res.IsError, text)
	t.check(!res.IsError && strings.Contains(text, `"photoFrom":"declined"`), "decline is told apart from cancel and accept")
}

// elicitLegacy uses the SDK client with an elicitation handler on
// 2025-11-25: the server sends elicitation/create from inside the tool call.
func (t *tour) elicitLegacy(ctx context.Context) {
	u := &user{t: t, answers: []*mcp.ElicitResult{
		pick("https://example.com/me.png"),
		pick(datauri.Encode("image/png", pngImage(40, 30))),
	}}
	cs, err := connect(ctx, profile.NewServer(), &mcp.ClientOptions{ElicitationHandler: u.elicit}, "2025-11-25")
	if err != nil {
		t.check(false, "connect to profile: %v", err)
		return
	}
	defer cs.Close()
	t.printf("   tools/call create_profile {\"displayName\": \"Mona\"}\n\n")
	res, text := t.call(ctx, cs, "create_profile", map[string]any{"displayName": "Mona"})
	if res == nil {
		return
	}
	t.printf("   result (isError: %v): %s\n", res.IsError, text)
	t.check(!res.IsError && u.asked == 2 && strings.Contains(text, `"width":40`), "asked twice in one call; the second, valid photo reached the handler")

	cs2, err := connect(ctx, profile.NewServer(), nil, "2025-11-25")
	if err != nil {
		t.check(false, "connect to profile: %v", err)
		return
	}
	defer cs2.Close()
	t.printf("\n   a client without elicitation calls the same tool:\n")
	res, text = t.call(ctx, cs2, "create_profile", map[string]any{"displayName": "Mona"})
	if res == nil {
		return
	}
	t.printf("   result (isError: %v): %s\n", res.IsError, text)
	t.check(res.IsError && strings.Contains(text, "pass it as 'photo'"), "the fallback tells the model how to pass the photo instead")
}
