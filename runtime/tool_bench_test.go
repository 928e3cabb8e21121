package runtime_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
)

// sdkBigArgs is bigArgs as a server without this package declares it: the
// data: URI as a plain string, decoded by the handler.
type sdkBigArgs struct {
	Blob string `json:"blob"`
}

// BenchmarkToolCall5MiB measures a whole tools/call carrying a 5 MiB file
// over in-memory transports, client and server in one process:
//
//   - floor: a low-level Server.AddTool handler that does nothing, what
//     the SDK costs to move the request;
//   - mcpfile: runtime.AddTool with the generated decoder (bigArgs);
//   - sdk: mcp.AddTool with the URI as a string, decoded by the handler.
//
// Compare with
//
//	benchstat -col .name bench.txt
func BenchmarkToolCall5MiB(b *testing.B) {
	data := make([]byte, 5<<20)
	_, _ = rand.NewChaCha8([32]byte{2}).Read(data)
	args, _ := json.Marshal(map[string]string{"blob": mcptest.DataURI("application/octet-stream", data)})

	s := newServer()
	runtime.AddTool(s, &mcp.Tool{Name: "mcpfile"}, func(_ context.Context, _ *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, any, error) {
		if in.Blob.Size() != int64(len(data)) {
			b.Fatalf("got %d bytes", in.Blob.Size())
		}
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sdk"}, func(_ context.Context, _ *mcp.CallToolRequest, in sdkBigArgs) (*mcp.CallToolResult, any, error) {
		d, err := mcptest.DecodeByHand(in.Blob)
		if err != nil || len(d) != len(data) {
			b.Fatalf("got %d bytes: %v", len(d), err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "floor", InputSchema: bigSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(b.Context(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(b.Context(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()

	for _, name := range []string{"floor", "mcpfile", "sdk"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
				if err != nil || res.IsError {
					b.Fatalf("CallTool: %v %+v", err, res)
				}
			}
		})
	}
}

// BenchmarkToolHandler5MiB times what runtime.AddTool's handler adds to
// the floor of BenchmarkToolCall5MiB, without the transport: checking the
// arguments against the schema and decoding them with the generated
// UnmarshalJSON.
func BenchmarkToolHandler5MiB(b *testing.B) {
	data := make([]byte, 5<<20)
	_, _ = rand.NewChaCha8([32]byte{2}).Read(data)
	args, _ := json.Marshal(map[string]string{"blob": mcptest.DataURI("application/octet-stream", data)})
	h := runtime.HandlerFor(&mcp.Tool{Name: "mcpfile"}, func(_ context.Context, _ *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, any, error) {
		if in.Blob.Size() != int64(len(data)) {
			b.Fatalf("got %d bytes", in.Blob.Size())
		}
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
	})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "mcpfile", Arguments: args}}
	b.Run("mcpfile", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			res, err := h(b.Context(), req)
			if err != nil || res.IsError {
				b.Fatalf("handler: %v %+v", err, res)
			}
		}
	})
}
