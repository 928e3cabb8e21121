package runtime_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
)

func newServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v1"}, nil)
}

type imageOut struct {
	MediaType string `json:"mediaType"`
	Size      int    `json:"size"`
	Detail    int    `json:"detail"`
}

func describe(_ context.Context, _ *mcp.CallToolRequest, in imageArgs) (*mcp.CallToolResult, imageOut, error) {
	return nil, imageOut{MediaType: in.Image.MediaType, Size: int(in.Image.Size()), Detail: in.Detail}, nil
}

type docsOut struct {
	Names []string `json:"names"`
	Sizes []int    `json:"sizes"`
}

func compare(_ context.Context, _ *mcp.CallToolRequest, in docsArgs) (*mcp.CallToolResult, docsOut, error) {
	var out docsOut
	for _, d := range in.Docs {
		out.Names = append(out.Names, d.Name)
		out.Sizes = append(out.Sizes, int(d.Size()))
	}
	return nil, out, nil
}

// fileServer has the test tools registered with runtime.AddTool and, under
// "sdk_" names, the same tools registered with mcp.AddTool, the SDK's own
// path with the generated schema given as InputSchema.
func fileServer() *mcp.Server {
	s := newServer()
	runtime.AddTool(s, &mcp.Tool{Name: "describe", Description: "Describe an image."}, describe)
	runtime.AddTool(s, &mcp.Tool{Name: "compare"}, compare)
	mcp.AddTool(s, &mcp.Tool{Name: "sdk_describe", Description: "Describe an image.", InputSchema: imageSchema}, describe)
	mcp.AddTool(s, &mcp.Tool{Name: "sdk_compare", InputSchema: docsSchema}, compare)
	return s
}

func TestToolsListCarriesSchema(t *testing.T) {
	cs := mcptest.Connect(t, fileServer(), nil, "")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	for name, want := range map[string]json.RawMessage{"describe": imageSchema, "compare": docsSchema} {
		tool := tools[name]
		if tool == nil {
			t.Fatalf("tools/list has no %q", name)
		}
		var got, w any
		b, _ := json.Marshal(tool.InputSchema)
		_ = json.Unmarshal(b, &got)
		_ = json.Unmarshal(want, &w)
		if d := diff(w, got); d != "" {
			t.Errorf("%s inputSchema differs from MCPSchema (-want +got):\n%s", name, d)
		}
		// The output schema is inferred as mcp.AddTool infers it.
		sdk := tools["sdk_"+name]
		if d := diff(mcptest.JSONValue(t, sdk.OutputSchema), mcptest.JSONValue(t, tool.OutputSchema)); d != "" {
			t.Errorf("%s outputSchema differs from mcp.AddTool's (-sdk +runtime):\n%s", name, d)
		}
	}
	file := mcptest.JSONValue(t, tools["describe"].InputSchema).(map[string]any)["properties"].(map[string]any)["image"].(map[string]any)["x-mcp-file"]
	if d := diff(map[string]any{"accept": []any{"image/png", "image/jpeg"}, "maxSize": 1024.0}, file); d != "" {
		t.Errorf("x-mcp-file in tools/list (-want +got):\n%s", d)
	}
}

// diff returns "" when want and got are deeply equal, else both.
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("-%#v\n+%#v", want, got)
}

func TestCallValid(t *testing.T) {
	cs := mcptest.Connect(t, fileServer(), nil, "")
	img := mcptest.PNG(t, 4, 3, false)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe", Arguments: map[string]any{
		"image": mcptest.DataURI("image/png", img), "detail": 2,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError result: %s", mcptest.Text(t, res))
	}
	want := map[string]any{"mediaType": "image/png", "size": float64(len(img)), "detail": 2.0}
	if d := diff(want, res.StructuredContent); d != "" {
		t.Errorf("structuredContent (-want +got):\n%s", d)
	}
	var text map[string]any
	if err := json.Unmarshal([]byte(mcptest.Text(t, res)), &text); err != nil || diff(want, text) != "" {
		t.Errorf("text content = %q, want the structured content as JSON", mcptest.Text(t, res))
	}

	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "compare", Arguments: map[string]any{
		"docs":  []string{"data:text/plain,hello%20world", mcptest.DataURI("application/pdf", []byte("%PDF-1.4\n%%EOF\n"))},
		"names": []string{"a.txt", "b.pdf"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError result: %s", mcptest.Text(t, res))
	}
	want = map[string]any{"names": []any{"a.txt", "b.pdf"}, "sizes": []any{11.0, 15.0}}
	if d := diff(want, res.StructuredContent); d != "" {
		t.Errorf("structuredContent (-want +got):\n%s", d)
	}
}

// TestViolations calls each tool with bad arguments through runtime.AddTool
// and through mcp.AddTool: both must answer with the same isError result.
func TestViolations(t *testing.T) {
	big := bytes.Repeat([]byte{0}, 1025)
	copy(big, mcptest.PNG(t, 1, 1, false))
	tests := []struct {
		name string
		tool string
		args any
		want string // a substring of the text
		// sdkDiffers is set where mcp.AddTool's text differs on purpose:
		// the SDK's validator and decoder quote the whole value, file bytes
		// included, and its words are not the SEP's; runtime.AddTool's are.
		sdkDiffers bool
	}{
		{"too big", "describe", map[string]any{"image": mcptest.DataURI("image/png", big)}, "exceeds maxSize", false},
		{"wrong media type", "describe", map[string]any{"image": "data:image/gif;base64,R0lGODlhAQABAAAAACw="}, "image/gif", false},
		{"content not matching its type", "describe", map[string]any{"image": "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("not a png at all"))}, "'image'", false},
		{"https URL", "describe", map[string]any{"image": "https://example.com/cat.png"}, "'image'", false},
		{"file path", "describe", map[string]any{"image": "/etc/passwd"}, "'image'", false},
		{"broken URI", "describe", map[string]any{"image": "data:image/png;base64,%%%"}, "'image'", false},
		{"no comma", "describe", map[string]any{"image": "data:image/png;base64"}, "'image'", false},
		{"file not a string", "describe", map[string]any{"image": 5}, "Argument 'image' has the wrong JSON type: received a number, want a data: URI string.", true},
		{"wrong type", "describe", map[string]any{"image": mcptest.DataURI("image/png", mcptest.PNG(t, 1, 1, false)), "detail": "high"}, `validating /properties/detail: type: high has type "string", want "integer"`, false},
		{"missing required", "describe", map[string]any{"detail": 1}, `required: missing properties: ["image"]`, false},
		{"unknown property", "describe", map[string]any{"image": mcptest.DataURI("image/png", mcptest.PNG(t, 1, 1, false)), "colour": "red"}, "colour", false},
		{"case variant", "describe", map[string]any{"Image": mcptest.DataURI("image/png", mcptest.PNG(t, 1, 1, false))}, "Image", false},
		// The SEP's words rather than the validator's maxItems text.
		{"too many files", "compare", map[string]any{"docs": []string{"data:,a", "data:,b", "data:,c", "data:,d"}}, "Argument 'docs' exceeds maxFiles: received 4 files, limit is 3.", true},
		{"file item not a string", "compare", map[string]any{"docs": []any{"data:,a", 7}}, "Argument 'docs[1]' has the wrong JSON type: received a number, want a data: URI string.", true},
		{"bad item", "compare", map[string]any{"docs": []string{"data:text/plain,ok", "https://x/y.pdf"}}, "docs[1]", false},
		{"item too big", "compare", map[string]any{"docs": []string{"data:text/plain;base64," + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("a"), 2049))}}, "exceeds maxSize", false},
		{"no arguments", "describe", nil, `required: missing properties: ["image"]`, false},
		{"file null", "describe", map[string]any{"image": nil}, "Argument 'image' has the wrong JSON type: received null, want a data: URI string.", true},
		{"empty file array", "compare", map[string]any{"docs": []string{}}, "Argument 'docs' has fewer files than minFiles: received 0 files, minimum is 1.", true},
		{"file array null", "compare", map[string]any{"docs": nil}, "Argument 'docs' has the wrong JSON type: received null, want an array of data: URI strings.", true},
		{"arguments not an object", "describe", []int{1}, `validating "arguments": unmarshaling arguments: json: cannot unmarshal array into Go value of type map[string]interface {}`, true},
	}
	cs := mcptest.Connect(t, fileServer(), nil, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool: %v (a violation must not be a JSON-RPC error)", err)
			}
			got := mcptest.Text(t, res)
			if !res.IsError {
				t.Fatalf("result is not an error: %s", got)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("text = %q, want it to contain %q", got, tt.want)
			}
			if strings.Contains(got, "base64,") {
				t.Errorf("text %q echoes the file", got)
			}
			sdk, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "sdk_" + tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool sdk_%s: %v", tt.tool, err)
			}
			t.Logf("%s", got)
			if want := mcptest.Text(t, sdk); (got != want) != tt.sdkDiffers || !sdk.IsError {
				t.Errorf("runtime.AddTool answered\n\t%q\nmcp.AddTool answered\n\t%q", got, want)
			}
		})
	}
}

func TestDefaultsReachDecoder(t *testing.T) {
	s := newServer()
	runtime.AddTool(s, &mcp.Tool{Name: "d"}, func(_ context.Context, _ *mcp.CallToolRequest, in defaultsArgs) (*mcp.CallToolResult, defaultsArgs, error) {
		return nil, in, nil
	})
	cs := mcptest.Connect(t, s, nil, "")
	for _, tt := range []struct {
		args any
		want map[string]any
	}{
		{nil, map[string]any{"level": 3.0}},
		{map[string]any{}, map[string]any{"level": 3.0}},
		{map[string]any{"note": "data:text/plain,hi", "level": 5}, map[string]any{"note": "data:text/plain,hi", "level": 5.0}},
		{map[string]any{"note": "data:text/plain,hi"}, map[string]any{"note": "data:text/plain,hi", "level": 3.0}},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "d", Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("args %v: %s", tt.args, mcptest.Text(t, res))
		}
		if d := diff(tt.want, res.StructuredContent); d != "" {
			t.Errorf("args %v (-want +got):\n%s", tt.args, d)
		}
	}
}

func TestHandlerErrors(t *testing.T) {
	s := newServer()
	runtime.AddTool(s, &mcp.Tool{Name: "fails"}, func(context.Context, *mcp.CallToolRequest, imageArgs) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("the image is too dark")
	})
	runtime.AddTool(s, &mcp.Tool{Name: "protocol"}, func(context.Context, *mcp.CallToolRequest, imageArgs) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "nope"}
	})
	runtime.AddTool(s, &mcp.Tool{Name: "content"}, func(context.Context, *mcp.CallToolRequest, imageArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hand-made"}}}, nil, nil
	})
	cs := mcptest.Connect(t, s, nil, "")
	args := map[string]any{"image": mcptest.DataURI("image/png", mcptest.PNG(t, 1, 1, false))}

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fails", Arguments: args})
	if err != nil || !res.IsError || mcptest.Text(t, res) != "the image is too dark" {
		t.Errorf("fails: %+v, %v; want isError with the handler's text", res, err)
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "protocol", Arguments: args}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("protocol: err = %v, want the handler's JSON-RPC error", err)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "content", Arguments: args})
	if err != nil || res.IsError || mcptest.Text(t, res) != "hand-made" || res.StructuredContent != nil {
		t.Errorf("content: %+v, %v; want the handler's content and no structured content (Out is any)", res, err)
	}
}

func TestAddToolPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("AddTool with an InputSchema did not panic")
		}
	}()
	runtime.AddTool(newServer(), &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`)}, describe)
}

// TestConcurrentCalls checks that one registered tool serves calls in
// parallel (run with -race).
func TestConcurrentCalls(t *testing.T) {
	cs := mcptest.Connect(t, fileServer(), nil, "")
	img := mcptest.DataURI("image/png", mcptest.PNG(t, 3, 3, false))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			args := map[string]any{"image": img, "detail": i}
			if i%2 == 1 {
				args["image"] = "https://example.com/x.png"
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe", Arguments: args})
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			if res.IsError != (i%2 == 1) {
				t.Errorf("call %d: isError=%v", i, res.IsError)
			}
		})
	}
	wg.Wait()
}

// TestAnyOutput checks that a handler whose Out is any still has its output
// sent, as structuredContent and JSON text, exactly as mcp.AddTool sends it,
// and that a nil output sends nothing.
func TestAnyOutput(t *testing.T) {
	s := newServer()
	var out any
	h := func(context.Context, *mcp.CallToolRequest, profileArgs) (*mcp.CallToolResult, any, error) {
		return nil, out, nil
	}
	runtime.AddTool(s, &mcp.Tool{Name: "mcpfile"}, h)
	mcp.AddTool(s, &mcp.Tool{Name: "sdk"}, h)
	cs := mcptest.Connect(t, s, nil, "")
	for _, o := range []any{map[string]any{"n": 1, "s": "x"}, []int{1, 2}, nil} {
		out = o
		var got [2]*mcp.CallToolResult
		for i, name := range []string{"mcpfile", "sdk"} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"displayName": "Mona"}})
			if err != nil {
				t.Fatalf("CallTool %s: %v", name, err)
			}
			got[i] = res
		}
		a, _ := json.Marshal(got[0])
		b, _ := json.Marshal(got[1])
		if string(a) != string(b) {
			t.Errorf("output %v: runtime.AddTool sent\n\t%s\nmcp.AddTool sent\n\t%s", o, a, b)
		}
		if o != nil && got[0].StructuredContent == nil {
			t.Errorf("output %v: no structuredContent", o)
		}
	}
}

// TestSDKAddToolRefusesFiles checks that registering a type with file
// fields through mcp.AddTool, whose schema inference cannot describe a
// File, fails at registration with a pointer to runtime.AddTool, rather
// than at every call (with the file quoted in the error).
func TestSDKAddToolRefusesFiles(t *testing.T) {
	for name, register := range map[string]func(*mcp.Server){
		"input": func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "describe"}, describe) },
		"output": func(s *mcp.Server) {
			mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, imageArgs, error) {
				return nil, imageArgs{}, nil
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, "register tools whose arguments hold files with runtime.AddTool") {
					t.Errorf("mcp.AddTool panicked with %q, want a pointer to runtime.AddTool", msg)
				}
			}()
			register(newServer())
		})
	}
	// With the generated schema given, mcp.AddTool infers nothing and works.
	mcp.AddTool(newServer(), &mcp.Tool{Name: "describe", InputSchema: imageSchema}, describe)
}

// TestRemoveTools: a tool added with runtime.AddTool and replaced with
// a handler of the go-sdk's own is left to the SDK by the fast path of
// inline files once that handler answers a call whose _meta carries a
// reference scope key (as the fast path writes it); a call answered by
// runtime.AddTool's handler leaves its tool on the fast path; RemoveTools
// removes a tool from the server and from the fast path.
func TestRemoveTools(t *testing.T) {
	s := newServer()
	runtime.AddTool(s, &mcp.Tool{Name: "describe"}, describe)
	runtime.AddTool(s, &mcp.Tool{Name: "kept"}, describe)
	runtime.AddTool(s, &mcp.Tool{Name: "gone"}, describe)
	s.AddTool(&mcp.Tool{Name: "describe", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "replaced"}}}, nil
	})
	cs := mcptest.Connect(t, s, nil, "")
	args := map[string]any{"image": mcptest.DataURI("image/png", mcptest.PNG(t, 4, 3, false))}
	for _, name := range []string{"kept", "describe"} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{inline.MetaKey: "k"}})
		if err != nil || res.IsError {
			t.Fatalf("call of %s: %v %v", name, err, res)
		}
	}
	if inline.Recorded(s, "kept") == nil {
		t.Errorf("a tool whose own handler answered is no longer on the fast path")
	}
	if inline.Recorded(s, "describe") != nil {
		t.Errorf("a tool replaced with the go-sdk's own handler is still on the fast path")
	}

	runtime.RemoveTools(s, "gone", "none")
	if inline.Recorded(s, "gone") != nil {
		t.Errorf("a removed tool is still on the fast path")
	}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"describe", "kept"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tools/list after RemoveTools = %v, want %v", names, want)
	}
}
