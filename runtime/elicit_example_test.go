package runtime_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
)

// A tool asks the user for a photo with a form generated from photoForm. A
// file that breaks the form's rules is asked for again, with the reason; the
// handler only ever sees a valid photo, a decline or a cancel.
func ExampleElicit() {
	s := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "set_photo"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ profileArgs) (*mcp.CallToolResult, any, error) {
			ans, pending, err := runtime.Elicit[photoForm](ctx, req, "Please select a profile photo.", nil)
			if pending != nil || err != nil {
				return pending, nil, err // ask the client (2026-07-28), or fail the call
			}
			text := string(ans.Action)
			if ans.Action == runtime.Accept {
				text += fmt.Sprintf(": %s, %d bytes", ans.Value.Photo.MediaType, ans.Value.Photo.Size())
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})

	// The user first picks a text file, then a PNG.
	answers := []string{
		"data:text/plain,not a photo",
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg==",
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Printf("asked: %q\n", req.Params.Message)
			photo := answers[0]
			answers = answers[1:]
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"photo": photo}}, nil
		},
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := client.Connect(ctx, ct, nil) // protocol 2026-07-28: the SDK client retries the call with each answer
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "set_photo", Arguments: map[string]any{"displayName": "Mona"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: "Please select a profile photo."
	// asked: "Please select a profile photo.\n\nThat was not accepted: Argument 'photo' has a media type that accept does not allow: received \"text/plain\", allowed are image/*.\nPlease try again (try 2 of 3)."
	// accept: image/png, 70 bytes
}
