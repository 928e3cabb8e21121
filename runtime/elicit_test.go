package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
)

// profileArgs is a type without file fields: generated with mcpfilegen -type
// it gets MCPSchema and no UnmarshalJSON, and runtime.AddTool decodes it
// with encoding/json.
type profileArgs struct {
	DisplayName string `json:"displayName"`
}

func (profileArgs) MCPSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"displayName":{"type":"string"}},"required":["displayName"],"additionalProperties":false}`)
}

type profileOut struct {
	Action    string `json:"action"`
	Name      string `json:"name"`
	MediaType string `json:"mediaType,omitempty"`
	Size      int    `json:"size,omitempty"`
}

// createProfile elicits a photo, as the SEP's create_profile example does.
func createProfile(ctx context.Context, req *mcp.CallToolRequest, in profileArgs) (*mcp.CallToolResult, profileOut, error) {
	ans, pending, err := runtime.Elicit[photoForm](ctx, req, "Please select a profile photo.", &runtime.ElicitOptions[photoForm]{ID: "profile_photo"})
	if pending != nil || err != nil {
		return pending, profileOut{}, err
	}
	out := profileOut{Action: string(ans.Action), Name: in.DisplayName}
	if ans.Action == runtime.Accept {
		out.MediaType, out.Size = ans.Value.Photo.MediaType, int(ans.Value.Photo.Size())
	}
	return nil, out, nil
}

// profileServer serves create_profile and counts its invocations in calls.
func profileServer(calls *atomic.Int32) *mcp.Server {
	s := newServer()
	runtime.AddTool(s, &mcp.Tool{Name: "create_profile"}, func(ctx context.Context, req *mcp.CallToolRequest, in profileArgs) (*mcp.CallToolResult, profileOut, error) {
		if calls != nil {
			calls.Add(1)
		}
		return createProfile(ctx, req, in)
	})
	runtime.AddTool(s, &mcp.Tool{Name: "nested"}, func(ctx context.Context, req *mcp.CallToolRequest, in profileArgs) (*mcp.CallToolResult, any, error) {
		_, pending, err := runtime.Elicit[nestedForm](ctx, req, "Fill in.", nil)
		return pending, nil, err
	})
	return s
}

// answerer is a client's elicitation handler that gives scripted answers
// and records what it was asked.
type answerer struct {
	mu       sync.Mutex
	answers  []*mcp.ElicitResult
	messages []string
	schemas  []any
}

func (a *answerer) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.messages = append(a.messages, req.Params.Message)
	a.schemas = append(a.schemas, req.Params.RequestedSchema)
	if len(a.answers) == 0 {
		return nil, errors.New("asked more often than scripted")
	}
	r := a.answers[0]
	a.answers = a.answers[1:]
	return r, nil
}

func accept(photo string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"photo": photo}}
}

// protocols are the two generations Elicit must serve: multi round-trip
// requests (2026-07-28) and server-initiated elicitation/create.
var protocols = []string{"2026-07-28", "2025-11-25", "2025-06-18"}

func TestElicit(t *testing.T) {
	good := mcptest.DataURI("image/png", mcptest.PNG(t, 2, 2, false))
	tooBig := mcptest.DataURI("image/png", append(mcptest.PNG(t, 1, 1, false), make([]byte, 2048)...))
	notImage := "data:text/plain,hello"
	tests := []struct {
		name      string
		answers   []*mcp.ElicitResult
		want      string   // a substring of the result text
		isError   bool     // the result is an error
		reasks    []string // substrings of the messages of the second, third… asks
		wantAsked int
	}{
		{"accept", []*mcp.ElicitResult{accept(good)}, `"action":"accept"`, false, nil, 1},
		{"bad then good", []*mcp.ElicitResult{accept(tooBig), accept(good)}, `"mediaType":"image/png"`, false,
			[]string{"exceeds maxSize"}, 2},
		{"wrong type then https then good", []*mcp.ElicitResult{accept(notImage), accept("https://example.com/me.png"), accept(good)}, `"action":"accept"`, false,
			[]string{"text/plain", `scheme "https:"`}, 3},
		{"bad three times", []*mcp.ElicitResult{accept(tooBig), accept(notImage), accept(tooBig)},
			"the user's answer was not accepted after 3 tries: Argument 'photo' exceeds maxSize", true,
			[]string{"exceeds maxSize", "text/plain"}, 3},
		{"decline", []*mcp.ElicitResult{{Action: "decline"}}, `"action":"decline"`, false, nil, 1},
		{"cancel", []*mcp.ElicitResult{{Action: "cancel"}}, `"action":"cancel"`, false, nil, 1},
		{"bad then decline", []*mcp.ElicitResult{accept(notImage), {Action: "decline"}}, `"action":"decline"`, false, []string{"text/plain"}, 2},
	}
	for _, version := range protocols {
		for _, tt := range tests {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				a := &answerer{answers: tt.answers}
				var calls atomic.Int32
				cs := mcptest.Connect(t, profileServer(&calls), &mcp.ClientOptions{ElicitationHandler: a.handle}, version)
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_profile", Arguments: map[string]any{"displayName": "Mona"}})
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				text := mcptest.Text(t, res)
				if res.IsError != tt.isError || !strings.Contains(text, tt.want) {
					t.Errorf("result isError=%v %q, want isError=%v containing %q", res.IsError, text, tt.isError, tt.want)
				}
				if strings.Contains(text, "base64,") {
					t.Errorf("result %q echoes the file", text)
				}
				if len(a.messages) != tt.wantAsked {
					t.Fatalf("asked %d times, want %d: %q", len(a.messages), tt.wantAsked, a.messages)
				}
				// 2026-07-28: the client calls again with each answer;
				// before: the server asks from inside the one call.
				wantCalls := 1
				if version >= "2026-07-28" {
					wantCalls = tt.wantAsked + 1
				}
				if got := int(calls.Load()); got != wantCalls {
					t.Errorf("handler invoked %d times, want %d", got, wantCalls)
				}
				if a.messages[0] != "Please select a profile photo." {
					t.Errorf("first message = %q", a.messages[0])
				}
				for i, want := range tt.reasks {
					if m := a.messages[i+1]; !strings.Contains(m, want) || !strings.HasPrefix(m, "Please select a profile photo.") {
						t.Errorf("ask %d: message %q, want the original message and %q", i+2, m, want)
					}
				}
				file := a.schemas[0].(map[string]any)["properties"].(map[string]any)["photo"].(map[string]any)["x-mcp-file"]
				if d := diff(map[string]any{"accept": []any{"image/*"}, "maxSize": 2048.0}, file); d != "" {
					t.Errorf("requestedSchema's x-mcp-file (-want +got):\n%s", d)
				}
			})
		}
	}
}

func TestElicitUnsupported(t *testing.T) {
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			cs := mcptest.Connect(t, profileServer(nil), nil, version) // no elicitation handler: no capability
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_profile", Arguments: map[string]any{"displayName": "Mona"}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if text := mcptest.Text(t, res); !res.IsError || text != runtime.ErrElicitationUnsupported.Error() {
				t.Errorf("result isError=%v %q, want the unsupported error", res.IsError, text)
			}
		})
	}
}

func TestElicitNotFlat(t *testing.T) {
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			a := &answerer{}
			cs := mcptest.Connect(t, profileServer(nil), &mcp.ClientOptions{ElicitationHandler: a.handle}, version)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nested", Arguments: map[string]any{"displayName": "Mona"}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			want := `runtime.Elicit: testtypes.NestedForm cannot be elicited: property "inner" has nested properties; a form is flat`
			if text := mcptest.Text(t, res); !res.IsError || text != want {
				t.Errorf("result isError=%v %q, want %q", res.IsError, text, want)
			}
			if len(a.messages) != 0 {
				t.Errorf("the client was asked %q", a.messages)
			}
		})
	}
}

// TestElicitMultiRoundTripWire drives the 2026-07-28 exchange by hand, as a
// client without the SDK's retry loop would: the input request, the
// requestState, a re-ask, and a retry without requestState.
func TestElicitMultiRoundTripWire(t *testing.T) {
	cs := mcptest.Connect(t, profileServer(nil), &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("not called")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}, "2026-07-28")
	args := map[string]any{"displayName": "Mona"}
	call := func(responses mcp.InputResponseMap, state string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_profile", Arguments: args, InputResponses: responses, RequestState: state})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		return res
	}
	ask := func(res *mcp.CallToolResult) *mcp.ElicitParams {
		t.Helper()
		if !res.NeedsInput() || len(res.Content) != 0 {
			t.Fatalf("result %+v does not ask for input", res)
		}
		p, ok := res.InputRequests["profile_photo"].(*mcp.ElicitParams)
		if !ok || len(res.InputRequests) != 1 {
			t.Fatalf("inputRequests = %#v, want one elicitation profile_photo", res.InputRequests)
		}
		if p.Mode != "form" || p.RequestedSchema == nil {
			t.Errorf("elicitation %+v: want a form with a schema", p)
		}
		return p
	}

	res := call(nil, "")
	ask(res)
	state1 := res.RequestState
	if state1 == "" {
		t.Error("no requestState")
	}

	// A bad file: asked again, with the reason and a new state.
	res = call(mcp.InputResponseMap{"profile_photo": accept("data:image/png;base64,AAAA")}, state1)
	p := ask(res)
	if !strings.Contains(p.Message, "Argument 'photo'") {
		t.Errorf("re-ask message %q does not explain", p.Message)
	}
	if res.RequestState == state1 {
		t.Error("requestState did not change on the re-ask")
	}

	// Content of the wrong type (a client that skipped the schema check).
	res = call(mcp.InputResponseMap{"profile_photo": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"photo": 5}}}, state1)
	if p := ask(res); !strings.Contains(p.Message, "Argument 'photo' has the wrong JSON type: received a number") {
		t.Errorf("re-ask message %q does not explain", p.Message)
	}

	// The last try used up: the call fails.
	res = call(mcp.InputResponseMap{"profile_photo": accept("https://example.com/me.png")}, "mcpfile.elicit/3/profile_photo")
	if text := mcptest.Text(t, res); !res.IsError || !strings.Contains(text, "after 3 tries") {
		t.Errorf("after the last try: isError=%v %q", res.IsError, text)
	}

	// A retry without requestState, as in the SEP's example, is the first answer.
	good := mcptest.DataURI("image/png", mcptest.PNG(t, 3, 3, false))
	res = call(mcp.InputResponseMap{"profile_photo": accept(good)}, "")
	if text := mcptest.Text(t, res); res.IsError || !strings.Contains(text, `"action":"accept"`) || !strings.Contains(text, `"name":"Mona"`) {
		t.Errorf("good answer: isError=%v %q", res.IsError, text)
	}
}

// TestElicitCheck rejects a valid file with the server's own check and
// re-asks with its text.
func TestElicitCheck(t *testing.T) {
	small := mcptest.DataURI("image/png", mcptest.PNG(t, 2, 2, false))
	large := mcptest.DataURI("image/png", mcptest.PNG(t, 20, 20, false))
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			s := newServer()
			runtime.AddTool(s, &mcp.Tool{Name: "checked"}, func(ctx context.Context, req *mcp.CallToolRequest, in profileArgs) (*mcp.CallToolResult, any, error) {
				ans, pending, err := runtime.Elicit(ctx, req, "Pick a photo.", &runtime.ElicitOptions[photoForm]{
					Check: func(f photoForm) error {
						cfg, _, err := image.DecodeConfig(bytes.NewReader(f.Photo.Bytes()))
						if err != nil || cfg.Width < 10 {
							return errors.New("the photo must be at least 10 pixels wide")
						}
						return nil
					},
				})
				if pending != nil || err != nil {
					return pending, nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(ans.Value.Photo.Size())}}}, nil, nil
			})
			a := &answerer{answers: []*mcp.ElicitResult{accept(small), accept(large)}}
			cs := mcptest.Connect(t, s, &mcp.ClientOptions{ElicitationHandler: a.handle}, version)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "checked", Arguments: map[string]any{"displayName": "Mona"}})
			if err != nil {
				t.Fatal(err)
			}
			if text := mcptest.Text(t, res); res.IsError || len(a.messages) != 2 || !strings.Contains(a.messages[1], "That was not accepted: the photo must be at least 10 pixels wide") {
				t.Errorf("isError=%v %q, messages %q", res.IsError, text, a.messages)
			}
		})
	}
}
