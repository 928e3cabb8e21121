package interop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/examples/profile/profile"
	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

// TestTypeScriptServeHandler serves, in this process, a server of a user's
// own built as the README says (runtime.AddTool, then serve.Handler with
// nothing but the form its tool elicits) to the TypeScript clients: client
// 2.x pinned to 2026-07-28 and in its legacy mode (2025-11-25; it pins
// only 2026-07-28 and later), and sdk 1.x (2025-11-25).
// Each negotiates the version it was pinned to; an image whose request is
// larger than the go-sdk's default body limit reaches its tool; and a file
// elicitation is answered, as an input request on 2026-07-28 and as
// elicitation/create on 2025-11-25, which needs the session the handler
// keeps for that generation.
func TestTypeScriptServeHandler(t *testing.T) {
	node := requireNode(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "own", Version: "v1.0.0"}, nil)
	runtime.AddTool(s, describeimage.Tool, describeimage.Describe)
	runtime.AddTool(s, profile.Tool, profile.CreateProfile)
	o := serve.Options{Forms: []json.RawMessage{profile.PhotoForm{}.MCPSchema()}}
	srv := httptest.NewServer(serve.Handler(s, o))
	defer srv.Close()

	image := mcptest.PNG(t, 1100, 1100, true) // 4.8 MB: 6.4 MB of base64, over the go-sdk's default 4 MiB
	if len(mcptest.DataURI("image/png", image)) <= mcp.DefaultMaxRequestBodyBytes {
		t.Fatal("the image's request fits the go-sdk's default limit")
	}
	sum := sha256.Sum256(image)
	photo := mcptest.DataURI("image/png", mcptest.PNG(t, 32, 32, false))
	for _, c := range []struct {
		name, sdk, negotiate, version string
	}{
		{"client-v2-2026-07-28", "v2", "2026-07-28", "2026-07-28"},
		{"client-v2-legacy", "v2", "legacy", "2025-11-25"},
		{"sdk-v1", "v1", "", "2025-11-25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runNode(t, node, plan{
				SDK: c.sdk, Negotiate: c.negotiate, Transport: "http", URL: srv.URL + serve.DefaultPath,
				Elicit: []answer{{Action: "accept", File: photo}},
				Steps: []step{
					{Op: "listTools"},
					{Op: "callTool", Label: "image", Name: describeimage.Tool.Name, Arguments: map[string]any{"image": mcptest.DataURI("image/png", image)}},
					{Op: "callTool", Label: "elicit", Name: profile.Tool.Name, Arguments: map[string]any{"displayName": "Mona"}},
				},
			})
			if out.ProtocolVersion != c.version {
				t.Errorf("negotiated %q, want %q", out.ProtocolVersion, c.version)
			}
			results := map[string]callResult{}
			for _, st := range out.Steps {
				if st.Error != nil {
					t.Fatalf("%s: %s", st.Label, st.Error.Message)
				}
				var r callResult
				json.Unmarshal(st.Result, &r)
				results[st.Label] = r
			}
			if r := results["image"]; r.IsError || !strings.Contains(string(r.StructuredContent), hex.EncodeToString(sum[:])) {
				t.Errorf("describe_image of a %d-byte PNG: isError=%v %s %s, want its SHA-256", len(image), r.IsError, r.text(), r.StructuredContent)
			}
			if r := results["elicit"]; r.IsError || !strings.Contains(r.text(), `"photoFrom":"user"`) || !strings.Contains(r.text(), `"width":32`) {
				t.Errorf("create_profile with the photo elicited: isError=%v %s", r.IsError, r.text())
			}
			wantVia := "elicitation/create"
			if c.version >= serve.StatelessSince {
				wantVia = "inputRequests"
			}
			if len(out.Elicitations) != 1 || out.Elicitations[0].Via != wantVia {
				t.Errorf("elicitations %+v, want one via %s", out.Elicitations, wantVia)
			}
		})
	}
}
