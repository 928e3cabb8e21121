package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// declaredTools lists bin's tools with the go-sdk client over stdio: what
// the server declares, to compare with what the other clients receive. It
// returns each tool's inputSchema as canonical JSON, by tool name.
func declaredTools(t *testing.T, bin string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "interop-go", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
	if err != nil {
		t.Fatalf("go-sdk client, %s over stdio: %v", bin, err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("go-sdk client tools/list: %v", err)
	}
	m := map[string]string{}
	for _, tool := range res.Tools {
		m[tool.Name] = canonical(t, tool.InputSchema)
	}
	return m
}

// canonical re-encodes v with sorted keys.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(mcptest.JSONValue(t, v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tsClients are the TypeScript clients and how they connect.
var tsClients = []struct {
	name, sdk, negotiate, transport string
}{
	// @modelcontextprotocol/sdk 1.x: protocol 2025-11-25, server-initiated elicitation/create.
	{"sdk-v1/stdio", "v1", "", "stdio"},
	{"sdk-v1/http", "v1", "", "http"},
	// @modelcontextprotocol/client 2.x pinned to 2026-07-28: multi round-trip
	// requests, the elicitation travels in the tool result's inputRequests.
	{"client-v2-2026-07-28/stdio", "v2", "2026-07-28", "stdio"},
	// The same client negotiating on its own over HTTP (it probes with
	// server/discover and falls back to initialize when the server says no).
	{"client-v2-auto/http", "v2", "auto", "http"},
	// Pinned to 2026-07-28 over HTTP. The go-sdk serves that version over
	// HTTP only statelessly; runtime/serve routes it to a stateless handler.
	{"client-v2-2026-07-28/http", "v2", "2026-07-28", "http"},
}

// TestTypeScriptSDK drives every example with the official TypeScript SDK
// clients (pinned in package-lock.json), over stdio and over streamable
// HTTP: tools/list carries x-mcp-file exactly as the server declares it,
// valid files are answered, every violation class comes back as isError
// with a text naming the argument and the rule, and a file elicitation is
// answered from the client's elicitation handler.
func TestTypeScriptSDK(t *testing.T) {
	node := requireNode(t)
	bins := buildExamples(t)
	for _, c := range tsClients {
		for _, name := range examples {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				bin := bins[name]
				base := plan{SDK: c.sdk, Negotiate: c.negotiate, Transport: c.transport}
				if c.transport == "stdio" {
					base.Command = bin
				} else {
					base.URL = startHTTP(t, bin) + "mcp"
				}
				tsTools, version := checkToolsList(t, node, base, declaredTools(t, bin))
				if c.negotiate == "2026-07-28" && version != c.negotiate {
					t.Fatalf("negotiated protocol %q, want %q", version, c.negotiate)
				}
				for _, tool := range tsTools {
					fs := fileArgs(tool.InputSchema)
					if len(fs) > 0 {
						checkCalls(t, node, base, tool, fs[0])
					}
					if !requiresFile(tool.InputSchema, fs) {
						checkElicitation(t, node, base, tool, version)
					}
				}
			})
		}
	}
}

// checkToolsList lists tools with the TypeScript client and compares every
// inputSchema with the declared one. It returns the tools and the
// negotiated protocol version.
//
// A tool named in extra, which declared lacks, is only held to the
// placement of its x-mcp-file keywords.
func checkToolsList(t *testing.T, node string, p plan, declared map[string]string, extra ...string) ([]toolInfo, string) {
	t.Helper()
	p.Steps = []step{{Op: "listTools"}}
	out := runNode(t, node, p)
	t.Logf("negotiated protocol %s with %s %s", out.ProtocolVersion, out.Server.Name, out.Server.Version)
	if out.Steps[0].Error != nil {
		t.Fatalf("tools/list: %s", out.Steps[0].Error.Message)
	}
	var res struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(out.Steps[0].Result, &res); err != nil {
		t.Fatal(err)
	}
	var tools []toolInfo
	files := 0
	for _, raw := range res.Tools {
		var tool toolInfo
		var whole struct{ InputSchema any }
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(raw, &whole)
		got, want := canonical(t, whole.InputSchema), declared[tool.Name]
		if _, ok := declared[tool.Name]; !ok && slices.Contains(extra, tool.Name) {
			want = got
		}
		if got != want {
			t.Errorf("tool %s: inputSchema via TypeScript SDK differs from the declared one:\n got %s\nwant %s", tool.Name, got, want)
		}
		for _, f := range fileArgs(tool.InputSchema) {
			files++
			t.Logf("tool %s: file argument %q array=%v accept=%v maxSize=%d maxItems=%d", tool.Name, f.Name, f.Array, f.Accept, f.MaxSize, f.MaxItems)
		}
		checkFileKeywordPlacement(t, tool.Name, "", &tool.InputSchema)
		tools = append(tools, tool)
	}
	if len(tools) == 0 {
		t.Fatal("tools/list returned no tools")
	}
	if files == 0 {
		t.Logf("no tool of this server takes a file argument (an elicitation server, presumably)")
	}
	return tools, out.ProtocolVersion
}

// checkFileKeywordPlacement: x-mcp-file only on {"type":"string","format":"uri"} (spec §1).
func checkFileKeywordPlacement(t *testing.T, tool, path string, s *schema) {
	t.Helper()
	if s == nil {
		return
	}
	if s.File != nil && (!s.is("string") || s.Format != "uri") {
		t.Errorf("tool %s: x-mcp-file at %q on a schema that is not {type: string, format: uri}", tool, path)
	}
	for k, p := range s.Properties {
		checkFileKeywordPlacement(t, tool, path+"/"+k, p)
	}
	checkFileKeywordPlacement(t, tool, path+"/items", s.Items)
}

// violation is one call that must be rejected, and the text it must get.
type violation struct {
	label string
	uri   string
	want  *regexp.Regexp
}

// checkCalls calls tool with valid files in its file argument f, then with
// one of each kind of violation, and checks every answer.
func checkCalls(t *testing.T, node string, p plan, tool toolInfo, f fileArg) {
	t.Helper()
	valid := validFiles(f.Accept)
	if len(valid) == 0 {
		t.Fatalf("tool %s: no sample file fits accept %v", tool.Name, f.Accept)
	}
	// An array gets two files (compare_documents wants at least two): a
	// valid one twice, or the bad one first and a valid one after it.
	uris := func(uri string) []string {
		if f.Array {
			return []string{uri, valid[0].URI}
		}
		return []string{uri}
	}
	var steps []step
	for _, v := range valid {
		steps = append(steps, step{Op: "callTool", Label: "valid " + v.MediaType, Name: tool.Name, Arguments: arguments(tool.InputSchema, f, uris(v.URI)...)})
	}
	// The texts a model sees, in the runtime's words (SEP-2356's example
	// for maxSize); the bad file is the first of an array.
	arg := f.Name
	if f.Array {
		arg += "[0]"
	}
	exact := func(s string) *regexp.Regexp { return regexp.MustCompile("^" + regexp.QuoteMeta(s) + "$") }
	violations := []violation{
		{"https: value", httpsURI, exact(fmt.Sprintf(`Argument '%s' is not a data: URI: received scheme "https:", only data: URIs are accepted.`, arg))},
		{"broken URI", brokenURI(f.Accept), regexp.MustCompile(`^Argument '` + regexp.QuoteMeta(arg) + `' is not a valid data: URI: [^;]+; the form is data:\[<mediatype>\]\[;base64\],<data>\.$`)},
	}
	if f.MaxSize > 0 {
		violations = append(violations, violation{"too big", tooBig(f.Accept, f.MaxSize),
			exact(fmt.Sprintf("Argument '%s' exceeds maxSize: received %d bytes, limit is %d.", arg, f.MaxSize+1, f.MaxSize))})
	}
	// An accepted type whose bytes are a zip.
	mt, _ := headerFor(f.Accept)
	violations = append(violations, violation{"content not " + mt, dataURI(mt, []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00")),
		regexp.MustCompile(`^Argument '` + regexp.QuoteMeta(arg) + `' fails the content check: declared "` + regexp.QuoteMeta(mt) + `" but the bytes are `)})
	if mt, uri := wrongType(f.Accept); uri != "" {
		var allowed []string
		for _, a := range f.Accept {
			if !strings.HasPrefix(a, ".") {
				allowed = append(allowed, a)
			}
		}
		violations = append(violations, violation{"wrong type " + mt, uri,
			exact(fmt.Sprintf("Argument '%s' has a media type that accept does not allow: received %q, allowed are %s.", arg, mt, strings.Join(allowed, ", ")))})
	}
	for _, v := range violations {
		steps = append(steps, step{Op: "callTool", Label: v.label, Name: tool.Name, Arguments: arguments(tool.InputSchema, f, uris(v.uri)...)})
	}
	p.Steps = steps
	out := runNode(t, node, p)

	for i, s := range out.Steps {
		if s.Error != nil {
			t.Errorf("%s %s: a JSON-RPC error (%v %s), want a tool result", tool.Name, s.Label, s.Error.Code, s.Error.Message)
			continue
		}
		var r callResult
		if err := json.Unmarshal(s.Result, &r); err != nil {
			t.Fatalf("%s %s: %v", tool.Name, s.Label, err)
		}
		if i < len(valid) {
			v := valid[i]
			if r.IsError {
				t.Errorf("%s %s: isError: %s", tool.Name, s.Label, r.text())
				continue
			}
			t.Logf("%s %s: %.300s", tool.Name, s.Label, r.text())
			if tool.Name == "describe_image" && v.MediaType == "image/png" {
				if !bytes.Contains(s.Result, []byte(sha256Hex(v.Data))) {
					t.Errorf("%s: answer does not carry the SHA-256 of the decoded bytes %s: %s", tool.Name, sha256Hex(v.Data), s.Result)
				}
				if !bytes.Contains(s.Result, []byte(`"width":64`)) || !bytes.Contains(s.Result, []byte(`"height":48`)) {
					t.Errorf("%s: answer does not carry the dimensions 64×48: %s", tool.Name, s.Result)
				}
			}
			continue
		}
		v := violations[i-len(valid)]
		text := r.text()
		t.Logf("%s %s → isError=%v %q", tool.Name, s.Label, r.IsError, text)
		if !r.IsError {
			t.Errorf("%s %s: isError false, want true: %s", tool.Name, s.Label, text)
		}
		if !strings.Contains(text, f.Name) {
			t.Errorf("%s %s: text %q does not name the argument %q", tool.Name, s.Label, text, f.Name)
		}
		if !v.want.MatchString(text) {
			t.Errorf("%s %s: text %q does not match %v", tool.Name, s.Label, text, v.want)
		}
		if _, payload, ok := strings.Cut(v.uri, ","); ok && len(payload) >= 12 && strings.Contains(text, payload[:12]) {
			t.Errorf("%s %s: text echoes the file's bytes: %q", tool.Name, s.Label, text)
		}
	}
}

// requiresFile reports whether a call must carry a file argument: one of
// fs, or one in a host's object (x-mcpfile-form).
func requiresFile(s schema, fs []fileArg) bool {
	for _, f := range fs {
		if slices.Contains(s.Required, f.Name) {
			return true
		}
	}
	for _, name := range s.Required {
		if p := s.Properties[name]; p != nil && p.Form != nil {
			return true
		}
	}
	return false
}

// checkElicitation calls, without its file, a tool that does not require
// one, and so asks the user for it by elicitation: the client answers first with a file of the wrong
// type, then with a valid PNG; then a second call is declined.
func checkElicitation(t *testing.T, node string, p plan, tool toolInfo, version string) {
	t.Helper()
	png := pngFile(32, 32)
	args := map[string]any{}
	for _, name := range tool.InputSchema.Required {
		if pr := tool.InputSchema.Properties[name]; pr != nil && pr.is("string") {
			args[name] = "Ada"
		}
	}
	p.Steps = []step{
		{Op: "callTool", Label: "wrong type, then a PNG", Name: tool.Name, Arguments: args},
		{Op: "callTool", Label: "declined", Name: tool.Name, Arguments: args},
	}
	_, zip := wrongType([]string{"image/png", "image/jpeg"})
	p.Elicit = []answer{
		{Action: "accept", File: zip},
		{Action: "accept", File: dataURI("image/png", png)},
		{Action: "decline"},
	}
	out := runNode(t, node, p)
	if len(out.Elicitations) == 0 {
		t.Fatalf("tool %s: no elicitation/create reached the client (results: %s)", tool.Name, out.Steps[0].Result)
	}
	var first callResult
	json.Unmarshal(out.Steps[0].Result, &first)
	stripped := false
	for i, e := range out.Elicitations {
		var field string
		var f *schema
		for k, pr := range e.Raw.RequestedSchema.Properties {
			if pr.File != nil {
				field, f = k, pr
			}
		}
		t.Logf("%s elicitation %d via %s: message %q, file field %q", tool.Name, i, e.Via, e.Raw.Message, field)
		if want := map[bool]string{true: "inputRequests", false: "elicitation/create"}[version == "2026-07-28"]; e.Via != want {
			t.Errorf("%s elicitation %d on protocol %s came via %q, want %q", tool.Name, i, version, e.Via, want)
		}
		if f == nil {
			t.Errorf("%s elicitation %d: requestedSchema as sent carries no x-mcp-file", tool.Name, i)
			continue
		}
		if !f.is("string") || f.Format != "uri" {
			t.Errorf("%s elicitation %d: x-mcp-file on a non-{string, uri} property", tool.Name, i)
		}
		if pf := e.Parsed.RequestedSchema.Properties[field]; pf != nil && pf.File == nil && !stripped {
			stripped = true
			t.Logf("note: the TypeScript SDK (%s) strips x-mcp-file from requestedSchema before its elicitation handler sees it; client.mjs reads it off the wire", p.SDK)
		}
	}
	if len(out.Elicitations) < 3 {
		t.Errorf("%s: %d elicitations, want 3 (re-ask after the wrong type, then one for the declined call)", tool.Name, len(out.Elicitations))
	} else if msg := out.Elicitations[1].Raw.Message; !strings.Contains(msg, "Argument 'photo' has a media type that accept does not allow") {
		t.Errorf("%s: the re-ask message %q does not explain the violation", tool.Name, msg)
	}
	if first.IsError {
		t.Errorf("%s: after a valid PNG, isError: %s", tool.Name, first.text())
	}
	t.Logf("%s after wrong type then PNG: %.300s", tool.Name, first.text())
	if len(out.Steps) > 1 {
		var second callResult
		json.Unmarshal(out.Steps[1].Result, &second)
		t.Logf("%s declined → isError=%v %s", tool.Name, second.IsError, out.Steps[1].Result)
		if !regexp.MustCompile(`(?i)declin`).Match(out.Steps[1].Result) {
			t.Errorf("%s declined: the result does not say it was declined: %s", tool.Name, out.Steps[1].Result)
		}
	}
}

// TestInspectorCLI runs the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli,
// pinned in package-lock.json) against describe_image for tools/list and
// tools/call, over stdio and over streamable HTTP.
func TestInspectorCLI(t *testing.T) {
	node := requireNode(t)
	bin := buildExamples(t)["describe_image"]
	declared := declaredTools(t, bin)
	url := startHTTP(t, bin) + "mcp"
	cli, err := filepath.Abs("node_modules/@modelcontextprotocol/inspector-cli/build/cli.js")
	if err != nil {
		t.Fatal(err)
	}
	inspect := func(t *testing.T, args ...string) json.RawMessage {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{cli, "--cli"}, args...)...)
		// inspector-cli 1.0.3 looks for its package.json relative to the
		// working directory but imports it relative to itself; running
		// from its own build directory satisfies both.
		cmd.Dir = filepath.Dir(cli)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector-cli %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		if !json.Valid(stdout.Bytes()) {
			t.Fatalf("inspector-cli %s: output is not JSON:\n%s", strings.Join(args, " "), stdout.String())
		}
		return stdout.Bytes()
	}
	png := pngFile(20, 10)
	for _, target := range [][]string{{bin}, {url, "--transport", "http"}} {
		t.Run(map[bool]string{true: "stdio", false: "http"}[len(target) == 1], func(t *testing.T) {
			listed := inspect(t, append(target, "--method", "tools/list")...)
			var list struct{ Tools []toolInfo }
			var whole struct {
				Tools []struct {
					Name        string
					InputSchema any
				}
			}
			json.Unmarshal(listed, &list)
			json.Unmarshal(listed, &whole)
			for _, tl := range whole.Tools {
				if got, want := canonical(t, tl.InputSchema), declared[tl.Name]; got != want {
					t.Errorf("tool %s: inputSchema via inspector-cli differs from the declared one:\n got %s\nwant %s", tl.Name, got, want)
				}
			}
			var tool *toolInfo
			for i := range list.Tools {
				if len(fileArgs(list.Tools[i].InputSchema)) > 0 {
					tool = &list.Tools[i]
				}
			}
			if tool == nil {
				t.Fatalf("tools/list via inspector-cli: no tool with an x-mcp-file argument: %+v", list.Tools)
			}
			f := fileArgs(tool.InputSchema)[0]
			t.Logf("inspector-cli tools/list: %s(%s) x-mcp-file accept=%v maxSize=%d", tool.Name, f.Name, f.Accept, f.MaxSize)

			call := func(uri string) callResult {
				out := inspect(t, append(target, "--method", "tools/call", "--tool-name", tool.Name, "--tool-arg", f.Name+"="+uri)...)
				var r callResult
				json.Unmarshal(out, &r)
				return r
			}
			if r := call(dataURI("image/png", png)); r.IsError || !strings.Contains(r.text()+string(r.StructuredContent), sha256Hex(png)) {
				t.Errorf("inspector-cli tools/call with a PNG: isError=%v, want the SHA-256 %s in: %s %s", r.IsError, sha256Hex(png), r.text(), r.StructuredContent)
			}
			if r := call(httpsURI); !r.IsError || !strings.Contains(r.text(), f.Name) {
				t.Errorf("inspector-cli tools/call with an https: URI: isError=%v %q, want isError naming %q", r.IsError, r.text(), f.Name)
			} else {
				t.Logf("inspector-cli https: → isError %q", r.text())
			}
		})
	}
}
