package mcpgo_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/mcpgo"
)

// profileServer serves create_profile, a tool that elicits a photo
// (testtypes.PhotoForm: any image of at most 2 KiB) and answers with what
// it got; calls counts its handler's invocations.
func profileServer(calls *atomic.Int32, check func(testtypes.PhotoForm) error) *server.MCPServer {
	s := server.NewMCPServer("profiles", "v1.0.0")
	s.AddTool(mcp.NewTool("create_profile"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		ans, pending, err := mcpgo.Elicit[testtypes.PhotoForm](ctx, req, "Please select a profile photo.", &runtime.ElicitOptions[testtypes.PhotoForm]{ID: "profile_photo", Check: check})
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if pending != nil {
			return pending, nil
		}
		text := string(ans.Action)
		if ans.Action == runtime.Accept {
			text += fmt.Sprintf(" %s %d bytes", ans.Value.Photo.MediaType, ans.Value.Photo.Size())
		}
		return mcp.NewToolResultText(text), nil
	})
	return s
}

// answerer is a client's elicitation handler that gives scripted answers
// and records what it was asked.
type answerer struct {
	mu       sync.Mutex
	answers  []mcp.ElicitationResponse
	messages []string
	schemas  []string
}

func (a *answerer) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.messages = append(a.messages, req.Params.Message)
	schema, _ := json.Marshal(req.Params.RequestedSchema)
	a.schemas = append(a.schemas, string(schema))
	if len(a.answers) == 0 {
		return nil, errors.New("asked more often than scripted")
	}
	r := a.answers[0]
	a.answers = a.answers[1:]
	return &mcp.ElicitationResult{ElicitationResponse: r}, nil
}

func acceptPhoto(uri string) mcp.ElicitationResponse {
	return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"photo": uri}}
}

// TestElicit: over each of mcp-go's transports and both protocol
// generations, Elicit asks for the form, checks the answer as
// runtime.Elicit does, asks again with what was wrong, and ends with the
// go-sdk server's texts.
func TestElicit(t *testing.T) {
	png := "data:image/png;base64," + onePixelPNG
	tooBig := "data:image/png;base64," + base64.StdEncoding.EncodeToString(append(mustPNG(t), make([]byte, 2048)...))
	notImage := "data:text/plain,hello"
	tests := []struct {
		name      string
		answers   []mcp.ElicitationResponse
		want      string   // the result's text, or a prefix of it
		isError   bool     // the result is an error
		reasks    []string // substrings of the messages of the second, third… asks
		wantAsked int
	}{
		{"accept", []mcp.ElicitationResponse{acceptPhoto(png)}, "accept image/png 70 bytes", false, nil, 1},
		{"bad then good", []mcp.ElicitationResponse{acceptPhoto(tooBig), acceptPhoto(png)}, "accept image/png", false,
			[]string{"Argument 'photo' exceeds maxSize: received 2118 bytes, limit is 2048."}, 2},
		{"wrong type, https, then good", []mcp.ElicitationResponse{acceptPhoto(notImage), acceptPhoto("https://example.com/me.png"), acceptPhoto(png)}, "accept image/png", false,
			[]string{`received "text/plain"`, `scheme "https:"`}, 3},
		{"bad three times", []mcp.ElicitationResponse{acceptPhoto(tooBig), acceptPhoto(notImage), acceptPhoto(tooBig)},
			"the user's answer was not accepted after 3 tries: Argument 'photo' exceeds maxSize", true,
			[]string{"exceeds maxSize", "text/plain"}, 3},
		{"decline", []mcp.ElicitationResponse{{Action: mcp.ElicitationResponseActionDecline}}, "decline", false, nil, 1},
		{"bad then cancel", []mcp.ElicitationResponse{acceptPhoto(notImage), {Action: mcp.ElicitationResponseActionCancel}}, "cancel", false, []string{"text/plain"}, 2},
	}
	for _, version := range []string{mcp.LATEST_PROTOCOL_VERSION, "2025-11-25"} {
		for _, tr := range transports {
			for _, tt := range tests {
				t.Run(version+"/"+tr.name+"/"+tt.name, func(t *testing.T) {
					a := &answerer{answers: tt.answers}
					var calls atomic.Int32
					c := tr.start(t, profileServer(&calls, nil), client.WithElicitationHandler(a))
					connectVersion(t, c, version)
					text, isError := callText(t, c, "create_profile")
					if isError != tt.isError || !strings.HasPrefix(text, tt.want) {
						t.Errorf("result isError=%v %q, want isError=%v starting %q", isError, text, tt.isError, tt.want)
					}
					if strings.Contains(text, "base64,") || strings.Contains(text, onePixelPNG[:16]) {
						t.Errorf("result %q echoes the file", text)
					}
					if len(a.messages) != tt.wantAsked {
						t.Fatalf("asked %d times, want %d: %q", len(a.messages), tt.wantAsked, a.messages)
					}
					// Each answer comes back in a new invocation of the
					// handler: the client's retry (2026-07-28) or mcp-go's own.
					if got := int(calls.Load()); got != tt.wantAsked+1 {
						t.Errorf("handler invoked %d times, want %d", got, tt.wantAsked+1)
					}
					if a.messages[0] != "Please select a profile photo." {
						t.Errorf("first message = %q", a.messages[0])
					}
					for i, want := range tt.reasks {
						if m := a.messages[i+1]; !strings.Contains(m, want) || !strings.HasPrefix(m, "Please select a profile photo.") {
							t.Errorf("ask %d: message %q, want the original message and %q", i+2, m, want)
						}
					}
					if !strings.Contains(a.schemas[0], "x-mcp-file") {
						t.Errorf("requestedSchema %s: want the form's generated schema, with x-mcp-file", a.schemas[0])
					}
				})
			}
		}
	}
}

// TestElicitCheck: the server's own check rejects an answer like a broken
// rule: the user is asked again with its text.
func TestElicitCheck(t *testing.T) {
	a := &answerer{answers: []mcp.ElicitationResponse{acceptPhoto("data:image/png;base64," + onePixelPNG), {Action: mcp.ElicitationResponseActionDecline}}}
	var calls atomic.Int32
	check := func(f testtypes.PhotoForm) error {
		return errors.New("the photo must be at least 64×64 pixels; choose a larger one")
	}
	c := transports[0].start(t, profileServer(&calls, check), client.WithElicitationHandler(a))
	connect(t, c)
	if text, isError := callText(t, c, "create_profile"); isError || text != "decline" {
		t.Errorf("result isError=%v %q, want decline", isError, text)
	}
	if len(a.messages) != 2 || !strings.Contains(a.messages[1], "That was not accepted: the photo must be at least 64×64 pixels") {
		t.Errorf("messages %q: want a second ask with the check's text", a.messages)
	}
}

// TestElicitUnsupported: a client that declared no elicitation gets
// runtime.ErrElicitationUnsupported's text as an isError result, on both
// protocol generations.
func TestElicitUnsupported(t *testing.T) {
	for _, version := range []string{mcp.LATEST_PROTOCOL_VERSION, "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			var calls atomic.Int32
			c := transports[1].start(t, profileServer(&calls, nil))
			connectVersion(t, c, version)
			if text, isError := callText(t, c, "create_profile"); !isError || text != runtime.ErrElicitationUnsupported.Error() {
				t.Errorf("result isError=%v %q, want isError and %q", isError, text, runtime.ErrElicitationUnsupported)
			}
		})
	}
}

// TestElicitRefusesForms: forms Elicit cannot ask for end the call with
// an error that says why, before the client is asked anything.
func TestElicitRefusesForms(t *testing.T) {
	s := server.NewMCPServer("forms", "v1.0.0")
	s.AddTool(mcp.NewTool("nested"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, _, err := mcpgo.Elicit[testtypes.NestedForm](ctx, req, "Fill in.", nil)
		return mcp.NewToolResultError(fmt.Sprint(err)), nil
	})
	s.AddTool(mcp.NewTool("upload"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, _, err := mcpgo.Elicit[testtypes.UploadForm](ctx, req, "Upload.", nil)
		return mcp.NewToolResultError(fmt.Sprint(err)), nil
	})
	a := &answerer{}
	c := transports[0].start(t, s, client.WithElicitationHandler(a))
	connect(t, c)
	for tool, want := range map[string]string{
		"nested": "mcpgo.Elicit: testtypes.NestedForm cannot be elicited",
		"upload": "mcpgo.Elicit: testtypes.UploadForm: field doc takes uploaded files only (transfer=upload)",
	} {
		if text, _ := callText(t, c, tool); !strings.HasPrefix(text, want) {
			t.Errorf("%s: %q, want it to start %q", tool, text, want)
		}
	}
	if len(a.messages) != 0 {
		t.Errorf("the client was asked %q, want nothing", a.messages)
	}
}

// TestMaxRequestBytesForForms: a form's files count on top of each tool's,
// as runtime.MaxRequestBytesFor counts them for a go-sdk server.
func TestMaxRequestBytesForForms(t *testing.T) {
	s := newServer()
	form := testtypes.ScanForm{}.MCPSchema()
	got, err := mcpgo.MaxRequestBytesFor(s, form)
	if err != nil {
		t.Fatal(err)
	}
	without, err := mcpgo.MaxRequestBytesFor(s)
	if err != nil {
		t.Fatal(err)
	}
	formOnly, err := runtime.RequestBytes(form)
	if err != nil {
		t.Fatal(err)
	}
	if want := without + formOnly - runtime.EnvelopeBytes; got != want {
		t.Errorf("MaxRequestBytesFor(s, form) = %d, want %d (the tools' %d and the form's files %d)", got, want, without, formOnly-runtime.EnvelopeBytes)
	}
	bad := []byte(`{"type":"object","properties":{"f":{"type":"string","x-mcp-file":{"maxSize":"big"}}}}`)
	if _, err := mcpgo.MaxRequestBytesFor(s, bad); err == nil {
		t.Error("MaxRequestBytesFor with a form whose x-mcp-file is malformed: no error")
	}
}

// callText calls tool without arguments and returns its one text block.
func callText(t *testing.T, c *client.Client, tool string) (string, bool) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("CallTool %s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool %s: %d content blocks, want 1", tool, len(res.Content))
	}
	text, _ := mcp.AsTextContent(res.Content[0])
	if text == nil {
		t.Fatalf("CallTool %s: content %T, want text", tool, res.Content[0])
	}
	return text.Text, res.IsError
}

// mustPNG is the bytes of onePixelPNG.
func mustPNG(t *testing.T) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(onePixelPNG)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
