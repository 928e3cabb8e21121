package serve_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/serve/internal/inlinetypes"
)

// TestInlineReplacedTool: over stdio and HTTP, a tool added with
// runtime.AddTool and then replaced with a handler of the go-sdk's own
// gets its data: URI as sent when runtime.RemoveTools removed it first;
// replaced without it, the new handler sees a reference in the first call
// it answers and the data: URI from then on.
func TestInlineReplacedTool(t *testing.T) {
	sent := uri("image/png", mcptest.PNG(t, 64, 64, true))
	addFiles := func(s *mcp.Server) {
		runtime.AddTool(s, &mcp.Tool{Name: "files"}, func(_ context.Context, _ *mcp.CallToolRequest, in inlinetypes.Files) (*mcp.CallToolResult, any, error) {
			return text(describe(in.Image)), nil, nil
		})
	}
	type image struct {
		Image string `json:"image"`
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			for _, removed := range []bool{true, false} {
				s := mcp.NewServer(&mcp.Implementation{Name: "replaced", Version: "v1"}, nil)
				addFiles(s)
				if removed {
					runtime.RemoveTools(s, "files")
				}
				var mu sync.Mutex
				var got []string
				mcp.AddTool(s, &mcp.Tool{Name: "files"}, func(_ context.Context, _ *mcp.CallToolRequest, in image) (*mcp.CallToolResult, any, error) {
					mu.Lock()
					got = append(got, in.Image)
					mu.Unlock()
					return text("seen"), nil, nil
				})
				cs := tr.connect(t, s, true)
				for i := range 2 {
					if res := call(t, cs, "files", map[string]any{"image": sent}, nil); !strings.Contains(res, "seen") {
						t.Fatalf("removed %v, call %d: %s", removed, i, short(res))
					}
				}
				mu.Lock()
				if len(got) != 2 {
					t.Fatalf("removed %v: the handler saw %d calls, want 2", removed, len(got))
				}
				if got[1] != sent {
					t.Errorf("removed %v: the second call's handler got %s, want the data: URI as sent", removed, short(got[1]))
				}
				if first := got[0]; removed && first != sent {
					t.Errorf("removed: the first call's handler got %s, want the data: URI as sent", short(first))
				} else if !removed && !strings.HasPrefix(first, inline.Scheme) {
					t.Errorf("replaced: the first call's handler got %s, want a reference (the fast path learns from it)", short(first))
				}
				mu.Unlock()
			}

		})
	}
}

// TestInlineRefusedCall: a middleware inside the runtime's that refuses
// a call, with an error or with an isError result as policy and
// rate-limiting middlewares commonly do, has run no handler: a client it
// refuses must not turn the fast path off for the tool for every other
// client, and the refused call's references are forgotten.
func TestInlineRefusedCall(t *testing.T) {
	sent := uri("image/png", mcptest.PNG(t, 64, 64, true))
	refusals := map[string]func() (mcp.Result, error){
		"error": func() (mcp.Result, error) { return nil, errors.New("not allowed") },
		"result": func() (mcp.Result, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not allowed"}}}, nil
		},
	}
	for _, tr := range transports {
		for how, refuse := range refusals {
			t.Run(tr.name+"/"+how, func(t *testing.T) {
				s := mcp.NewServer(&mcp.Implementation{Name: "refusing", Version: "v1"}, nil)
				var refused sync.Once
				s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
						if method == "tools/call" {
							deny := false
							refused.Do(func() { deny = true })
							if deny {
								return refuse()
							}
						}
						return next(ctx, method, req)
					}
				})
				runtime.AddTool(s, &mcp.Tool{Name: "files"}, func(_ context.Context, _ *mcp.CallToolRequest, in inlinetypes.Files) (*mcp.CallToolResult, any, error) {
					return text(describe(in.Image)), nil, nil
				})
				rec := &seen{}
				s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
						if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
							rec.mu.Lock()
							rec.args = append(rec.args, string(p.Arguments))
							rec.meta = append(rec.meta, nil)
							rec.mu.Unlock()
						}
						return next(ctx, method, req)
					}
				})
				cs := tr.connect(t, s, true)
				if res := call(t, cs, "files", map[string]any{"image": sent}, nil); !strings.Contains(res, "not allowed") {
					t.Fatalf("refused call: %s", short(res))
				}
				if res := call(t, cs, "files", map[string]any{"image": sent}, nil); !strings.Contains(res, "image/png") {
					t.Fatalf("call after the refusal: %s", short(res))
				}
				if args, _ := rec.last(); !strings.Contains(args, inline.Scheme) {
					t.Errorf("after a refused call, the SDK saw %s, want a reference: the fast path was turned off", short(args))
				}
			})
		}
	}
	if n := inline.Held(); n != 0 {
		t.Errorf("%d references held after the calls (the refused ones' too)", n)
	}
}
