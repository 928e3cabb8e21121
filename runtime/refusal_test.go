package runtime_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
)

// TestRefusalForms: the same refused calls answered in both forms. The
// default is an isError result; a server set to RefuseWithError answers a
// JSON-RPC error -32602 whose message is the result's text and whose data
// carries the reason and the rule's figures. Neither holds file bytes.
func TestRefusalForms(t *testing.T) {
	marker := []byte("FILEBYTES-")
	big := bytes.Repeat(marker, 110) // 1100 bytes: over the 1 KiB maxSize
	small := bytes.Repeat(marker, 20)
	cases := []struct {
		name string
		args map[string]any
		text string // the refusal's text, both forms
		data string // the -32602 error's data
	}{
		{"maxSize", map[string]any{"image": mcptest.DataURI("image/png", big)},
			"Argument 'image' exceeds maxSize: received 1100 bytes, limit is 1024.",
			`{"reason":"maxSizeExceeded","maxSize":1024,"actualSize":1100}`},
		{"mediaType", map[string]any{"image": mcptest.DataURI("image/gif", small)},
			`Argument 'image' has a media type that accept does not allow: received "image/gif", allowed are image/png, image/jpeg.`,
			`{"reason":"mimeTypeNotAccepted","mimeType":"image/gif","accept":["image/png","image/jpeg"]}`},
		{"content", map[string]any{"image": mcptest.DataURI("image/png", small)},
			"Argument 'image' fails the content check",
			`{"reason":"contentMismatch","mimeType":"image/png"}`},
		{"scheme", map[string]any{"image": "https://example.com/FILEBYTES-.png"},
			`Argument 'image' is not a data: URI: received scheme "https:"`,
			`{"reason":"scheme"}`},
		{"uriForm", map[string]any{"image": "data:image/png;base64,%%%"},
			"Argument 'image' is not a valid data: URI",
			`{"reason":"malformed"}`},
		{"schema", map[string]any{"image": mcptest.DataURI("image/png", mcptest.PNG(t, 1, 1, false)), "detail": "high"},
			`validating /properties/detail: type: high has type "string", want "integer"`,
			`{"reason":"invalid"}`},
	}
	noBytes := func(t *testing.T, what, s string) {
		t.Helper()
		if strings.Contains(s, "FILEBYTES") || strings.Contains(s, base64.StdEncoding.EncodeToString(marker)[:12]) {
			t.Errorf("%s holds file bytes: %s", what, s)
		}
	}

	def := newServer()
	runtime.AddTool(def, &mcp.Tool{Name: "describe"}, describe)
	rpc := newServer()
	runtime.AddTool(rpc, &mcp.Tool{Name: "describe"}, describe)
	runtime.SetRefusalForm(rpc, runtime.RefuseWithError)
	defCS := mcptest.Connect(t, def, nil, "")
	rpcCS := mcptest.Connect(t, rpc, nil, "")

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &mcp.CallToolParams{Name: "describe", Arguments: c.args}
			res, err := defCS.CallTool(t.Context(), p)
			if err != nil {
				t.Fatalf("default form: %v, want an isError result", err)
			}
			text := mcptest.Text(t, res)
			if !res.IsError || !strings.Contains(text, c.text) {
				t.Errorf("default form: isError %v, text %q; want isError with %q", res.IsError, text, c.text)
			}
			noBytes(t, "the isError result", text)

			res, err = rpcCS.CallTool(t.Context(), p)
			var je *jsonrpc.Error
			if !errors.As(err, &je) {
				t.Fatalf("RefuseWithError: %+v, %v; want a JSON-RPC error", res, err)
			}
			if je.Code != jsonrpc.CodeInvalidParams || je.Message != text {
				t.Errorf("RefuseWithError: code %d, message %q; want -32602 and the isError text %q", je.Code, je.Message, text)
			}
			if string(je.Data) != c.data {
				t.Errorf("RefuseWithError: data %s, want %s", je.Data, c.data)
			}
			noBytes(t, "the JSON-RPC error", je.Message+string(je.Data))
		})
	}

	// The server still answers a good call after the refusals.
	res, err := rpcCS.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe", Arguments: map[string]any{"image": mcptest.DataURI("image/png", mcptest.PNG(t, 1, 1, false))}})
	if err != nil || res.IsError {
		t.Errorf("a good call after the refusals: %+v, %v", res, err)
	}
}

// TestRefusalReason: the reasons of the rules, package wire's where the
// meaning is the same.
func TestRefusalReason(t *testing.T) {
	for rule, want := range map[runtime.Rule]string{
		runtime.RuleMaxSize:      "maxSizeExceeded",
		runtime.RuleMediaType:    "mimeTypeNotAccepted",
		runtime.RuleContent:      "contentMismatch",
		runtime.RuleURIForm:      "malformed",
		runtime.RuleScheme:       "scheme",
		runtime.RuleMaxFiles:     "maxFiles",
		runtime.RuleMinFiles:     "minFiles",
		runtime.RuleType:         "type",
		runtime.RuleTransferMode: "transferModes",
		runtime.RuleFileURI:      "fileURI",
		runtime.RuleForm:         "form",
	} {
		if got := runtime.RefusalReason(&runtime.Error{Arg: "f", Rule: rule}); got != want {
			t.Errorf("RefusalReason(%s) = %q, want %q", rule, got, want)
		}
	}
	// A file URI's refusal carries the transfer layer's finer reason.
	if got := runtime.RefusalReason(&runtime.Error{Arg: "f", Rule: runtime.RuleFileURI, Code: "expired"}); got != "expired" {
		t.Errorf("RefusalReason(fileURI, Code expired) = %q, want expired", got)
	}
	if got := runtime.RefusalReason(errors.New("validating /properties/x: …")); got != "invalid" {
		t.Errorf("RefusalReason(a schema error) = %q, want invalid", got)
	}
}

func TestSetRefusalFormPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "RefusalForm(7)") {
			t.Errorf("recover() = %v, want a panic naming the form", r)
		}
	}()
	runtime.SetRefusalForm(newServer(), runtime.RefusalForm(7))
}
