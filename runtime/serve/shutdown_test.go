package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// pageWaiter is a server whose ask tool waits for a file through an upload
// page, and a channel that receives once a call has its page answered
// (elicitation/create came back, or the 2026-07-28 retry arrived): from
// then on the call waits for the upload, which never comes.
func pageWaiter(t *testing.T, publicURL string) (*mcp.Server, <-chan struct{}) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "pages", Version: "v1"}, nil)
	keys, err := token.NewKeyring(token.RandomKey())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Register(s, transfer.Options{Keys: keys, Store: memstore.New(nil), PublicURL: publicURL}); err != nil {
		t.Fatal(err)
	}
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ans, pending, err := runtime.ElicitUpload[testtypes.PageForm](ctx, req, "Please choose a file.", nil)
		if pending != nil || err != nil {
			return pending, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(ans.Action)}}}, nil
	})
	waiting := make(chan struct{}, 1)
	signal := func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}
	s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r, err := next(ctx, method, req)
			if method == "elicitation/create" {
				signal()
			}
			return r, err
		}
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if c, ok := req.(*mcp.CallToolRequest); ok && len(c.Params.InputResponses) > 0 {
				signal()
			}
			return next(ctx, method, req)
		}
	})
	return s, waiting
}

// pageClient is a client that declares URL-mode elicitation and accepts
// every page without uploading anything.
func pageClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
}

// An answer is how a call ended.
type answer struct {
	res *mcp.CallToolResult
	err error
}

// callAsk calls the ask tool in the background.
func callAsk(cs *mcp.ClientSession) <-chan answer {
	out := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) { // the tool's error, as a low-level tool's is
			res, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: rpc.Message}}}, nil
		}
		out <- answer{res, err}
	}()
	return out
}

// awaitWaiting returns once the call waits for its page's upload.
func awaitWaiting(t *testing.T, waiting <-chan struct{}, out <-chan answer) {
	t.Helper()
	select {
	case <-waiting:
	case a := <-out:
		t.Fatalf("the call ended before it waited for an upload: %+v %v", a.res, a.err)
	case <-time.After(time.Minute):
		t.Fatal("the call did not come to wait for an upload")
	}
}

// wantShutdownAnswer checks that the call waiting for a page answered
// that the server is shutting down, well before the grace period ends.
func wantShutdownAnswer(t *testing.T, out <-chan answer) {
	t.Helper()
	select {
	case a := <-out:
		if a.err != nil {
			t.Fatalf("the waiting call failed instead of answering: %v", a.err)
		}
		var text string
		if len(a.res.Content) == 1 {
			text = a.res.Content[0].(*mcp.TextContent).Text
		}
		if !a.res.IsError || !strings.Contains(text, "the server is shutting down") || !strings.Contains(text, "call the tool again") {
			t.Errorf("the waiting call answered isError=%v %q, want an error that the server is shutting down", a.res.IsError, text)
		}
	case <-time.After(time.Minute):
		t.Fatal("a minute after the shutdown began, the call still waits for its upload page")
	}
}

// TestServeShutdownEndsPageWaits: a call waiting for a person's upload
// through an upload page does not hold up a shutdown until the page
// expires: when Serve's context ends, the call answers that the server is
// shutting down, and Serve returns, on both protocol generations. The
// grace period is long, so that only the end of the wait ends the call.
func TestServeShutdownEndsPageWaits(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s, waiting := pageWaiter(t, "http://"+l.Addr().String()+"/files/")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- Serve(ctx, l, s, Options{ShutdownTimeout: 2 * time.Minute}) }()
			cs, err := pageClient().Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + l.Addr().String() + DefaultPath}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			out := callAsk(cs)
			awaitWaiting(t, waiting, out)
			cancel()
			wantShutdownAnswer(t, out)
			cs.Close() // its stream of server messages, which the shutdown waits for
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve = %v, want nil", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("Serve did not return a minute after its calls ended")
			}
		})
	}
}

// TestStdioShutdownEndsPageWaits: over stdio, a call waiting for an upload
// page does not keep the session (whose close waits for its calls) from
// ending when the context does. (The go-sdk closes the connection as the
// call ends, so its answer may not reach the client.)
func TestStdioShutdownEndsPageWaits(t *testing.T) {
	s, waiting := pageWaiter(t, "http://127.0.0.1:1/files/")
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serveIO(ctx, s, toServer, fromServer, Options{}) }()
	cs, err := pageClient().Connect(t.Context(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		out <- err
	}()
	select {
	case <-waiting:
	case err := <-out:
		t.Fatalf("the call ended before it waited for an upload: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the call did not come to wait for an upload")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("serving stdio did not end a minute after its context: the call waiting for its page holds the session")
	}
	select {
	case <-out:
	case <-time.After(time.Minute):
		t.Fatal("the call still waits after the session ended")
	}
}
