package conform

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The elicitation half of the test server: a profile tool whose photo,
// when the call has none, it asks the user for with a form, checks as the
// inline test server does (except for the rule a break turns off), and
// asks for again when it breaks a rule. Written from SEP-2356, without
// mcpfile's runtime.

const (
	profileTool = `{"type":"object","properties":{"name":{"type":"string"},
		"photo":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png","image/jpeg"],"maxSize":4096}}},"required":["name"]}`
	photoForm = `{"type":"object","properties":{"photo":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png","image/jpeg"],"maxSize":4096}}},"required":["photo"]}`
)

func addProfile(s *mcp.Server, b breaks, refuse func(req *mcp.CallToolRequest, name, msg, reason string, payload []byte) (*mcp.CallToolResult, error)) {
	var form map[string]any
	json.Unmarshal([]byte(photoForm), &form)
	ok := func(text string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	}
	s.AddTool(&mcp.Tool{Name: "profile", InputSchema: json.RawMessage(profileTool)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Photo *string }
		json.Unmarshal(req.Params.Arguments, &args)
		if args.Photo != nil {
			if msg, reason, payload := b.check("photo", *args.Photo); msg != "" {
				return refuse(req, "photo", msg, reason, payload)
			}
			return ok("profile made with the photo given"), nil
		}
		message := "Please pick a profile photo."
		for range 3 {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: form})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "cannot ask for a photo: pass one as 'photo'"}}}, nil
			}
			if res.Action != "accept" {
				return ok("profile made without a photo (" + res.Action + ")"), nil
			}
			v, _ := res.Content["photo"].(string)
			msg, reason, payload := b.check("photo", v)
			switch {
			case b.elicitRefuseValid && msg == "":
				msg, reason = "is not wanted here", "unauthorized"
			case b.elicitNoType && reason == "mimeTypeNotAccepted",
				b.elicitNoSize && reason == "maxSizeExceeded",
				b.elicitNoSniff && reason == "contentMismatch":
				msg = ""
			}
			if msg == "" {
				return ok("profile made with the photo picked"), nil
			}
			switch {
			case b.elicitRPC:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Argument 'photo' " + msg}
			case b.elicitIsError:
				return refuse(req, "photo", msg, reason, payload)
			}
			message = "Argument 'photo' " + msg + ". Please pick another."
		}
		return refuse(req, "photo", "was refused three times", "malformed", nil)
	})
}

// TestElicitChecksRun: against a server that asks for a file, the
// elicitation checks run (pass), not skip.
func TestElicitChecksRun(t *testing.T) {
	rep, err := Run(t.Context(), Options{Transport: connector(testServer(t, breaks{elicit: true}))})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.ID, "elicit.") && c.Status != "pass" {
			t.Errorf("%s = %s (%s), want pass", c.ID, c.Status, c.Detail)
		}
	}
}
