package mcpgo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/fileserve"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// FilesOptions configures [ServeFiles]: the transfer.Options of a go-sdk
// server (keys, public URL, store, quotas, lifetimes, logger and meter,
// each with the same default), and who the caller is.
type FilesOptions struct {
	transfer.Options

	// Principal returns the principal (user, tenant) of the caller of a
	// request, from its context: an HTTP request's context as the
	// server's auth middleware left it (for files/authorize* and the
	// upload and download endpoints), the context a tool handler gets
	// (which mcp-go derives from it), or, on stdio, the context given to
	// [Files.Stdio] and Listen. "" means a caller without auth, whose
	// files belong to its session (2025-11-25 over HTTP, a client of
	// mcp-go's SSE transport or in process) or to every caller without
	// auth of the server (stdio, 2026-07-28), as on a go-sdk server. nil: no caller has auth. transfer.Options.Owner,
	// which reads the go-sdk's auth token info, is not used.
	Principal func(ctx context.Context) string
}

// Files is the SEP-2631 side of an mcp-go server that [ServeFiles] set up:
// the upload and download endpoints, and the wrappers that answer
// files/authorizeUpload and files/authorizeDownload in front of mcp-go's
// transports.
type Files struct {
	svc       fileserve.Service
	principal func(ctx context.Context) string
}

// ServeFiles makes the mcp-go server s serve SEP-2631 file transfers, as
// transfer.Register does for a go-sdk server, with the same code, stores,
// tokens, checks and texts:
//
//   - files/authorizeUpload and files/authorizeDownload, answered by the
//     wrappers of mcp-go's transports: [Files.HTTP] in front of its
//     StreamableHTTPServer, [Files.Stdio] around the reader and writer of
//     its StdioServer (mcp-go has no API for methods of one's own);
//   - the upload and download endpoints, [Files.Handler], to mount at
//     o.PublicURL beside the MCP endpoint;
//   - the file URIs (mcp-file:) in the arguments of the tools added with
//     [AddTool], resolved and checked against each argument's x-mcp-file
//     before the handler runs, and fields that take uploaded files only
//     (transfer=upload), which AddTool refuses on a server without files;
//   - file outputs: a handler's [transfer.Save] and [transfer.Release],
//     and [NewFileContent] in its result, which a client that did not
//     declare the files.download capability gets the standard way (an
//     embedded resource, or a text and a resource_link), as from a go-sdk
//     server.
//
// It adds a tool handler middleware to s (s.Use), which puts what a call's
// files need in its context. Call it once per server:
//
//	files, err := mcpgo.ServeFiles(s, mcpgo.FilesOptions{Options: transfer.Options{Keys: keys, PublicURL: "https://example.com/files/"}})
//	…
//	mux.Handle("/mcp", mcpgo.LimitBody(files.HTTP(server.NewStreamableHTTPServer(s)), limit))
//	mux.Handle("/files/", files.Handler())
//	// or, on stdio:
//	in, out := files.Stdio(ctx, mcpgo.LimitLines(os.Stdin, limit), os.Stdout)
//	server.NewStdioServer(s).Listen(ctx, in, out)
func ServeFiles(s *server.MCPServer, o FilesOptions) (*Files, error) {
	if hook.Serves(s) {
		return nil, errors.New("mcpgo.ServeFiles: the server serves files already: call ServeFiles once per server")
	}
	f := &Files{principal: o.Principal}
	svc, err := fileserve.New(fileserve.Config{
		Options:       o.Options,
		Schemas:       func() []*descriptor.Schema { return hook.Schemas(s) },
		Declare:       func(d *descriptor.Schema) { hook.AddSchema(s, d) },
		HTTPPrincipal: func(r *http.Request) (string, bool) { p := f.principalOf(r.Context()); return p, p != "" },
		ServerName:    func() string { return serverName(s) },
	})
	if err != nil {
		return nil, errors.New("mcpgo.ServeFiles: " + strings.TrimPrefix(err.Error(), "transfer.Register: "))
	}
	f.svc = svc
	hook.Serve(s)
	hook.SetObserver(s, svc.Observer())
	s.Use(f.middleware)
	return f, nil
}

// Handler returns the HTTP handler of the upload and download endpoints,
// to mount at the path of the PublicURL given to [ServeFiles].
func (f *Files) Handler() http.Handler { return f.svc.Handler() }

// principalOf is the principal of the caller whose request's context is
// ctx, "" without auth.
func (f *Files) principalOf(ctx context.Context) string {
	if f.principal == nil {
		return ""
	}
	return f.principal(ctx)
}

// sender is who sent a request whose context is ctx, in session sid ("" for
// none), with the files capability caps (nil for none).
func (f *Files) sender(ctx context.Context, sid string, caps any) fileserve.Sender {
	from := fileserve.Sender{Session: sid, Files: caps}
	if p := f.principalOf(ctx); p != "" {
		from.Principal = func() string { return p }
	}
	return from
}

// middleware is the tool handler middleware of a server with files: the
// call's context gets the resolver of its file URIs (and of transfer.Save),
// and a client without files.download gets its file outputs the standard
// way.
func (f *Files) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		from := f.sender(ctx, sessionID(ctx), clientFiles(ctx, req.Params.Meta))
		ctx, end := f.svc.Call(ctx, from, req.Params.Name, f.progress(ctx, req))
		defer end()
		res, err := next(ctx, req)
		if err != nil || res == nil || f.svc.Downloads(from) {
			return res, err
		}
		if out := f.fallback(ctx, from, res.Content); out != nil {
			r2 := *res // a copy: the handler may keep its result, for other clients
			r2.Content = out
			res = &r2
		}
		return res, nil
	}
}

// progress returns what sends notifications/progress for the call req
// whose context is ctx, nil when it gave no progress token.
func (f *Files) progress(ctx context.Context, req mcp.CallToolRequest) func(received, total int64) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	s := server.ServerFromContext(ctx)
	if s == nil {
		return nil
	}
	tok, msg := req.Params.Meta.ProgressToken, f.svc.ProgressMessage()
	return func(received, total int64) {
		s.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
			"progressToken": tok, "progress": float64(received), "total": float64(total), "message": msg,
		})
	}
}

// serverName is the name of s that an upload page shows: its title, or
// else its name. mcp-go does not export them, so they are learned as a
// client learns them, from its answer to initialize, handled in memory
// without a session.
func serverName(s *server.MCPServer) string {
	msg := s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpfile-upload-page","version":"v1"}}}`))
	b, err := json.Marshal(msg)
	if err != nil {
		return ""
	}
	var res struct {
		Result struct {
			ServerInfo struct {
				Name  string `json:"name"`
				Title string `json:"title"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	if json.Unmarshal(b, &res) != nil {
		return ""
	}
	if res.Result.ServerInfo.Title != "" {
		return res.Result.ServerInfo.Title
	}
	return res.Result.ServerInfo.Name
}

// httpKey marks the context of a request that came through [Files.HTTP].
type httpKey struct{}

// sessionID is the ID of the session of the request whose context is ctx:
// mcp-go's session ID of a 2025-11-25 request over streamable HTTP, of a
// client of its SSE transport or in process, each a session of its own;
// "" for a 2026-07-28 one (mcp-go's session for it has none), and on
// stdio, where one session is one client.
func sessionID(ctx context.Context) string {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil || onStdio(ctx) {
		return ""
	}
	return cs.SessionID()
}

// onStdio reports whether the request whose context is ctx came through
// mcp-go's StdioServer, whose one session mcp-go names "stdio".
func onStdio(ctx context.Context) bool {
	cs := server.ClientSessionFromContext(ctx)
	return cs != nil && ctx.Value(httpKey{}) == nil && cs.SessionID() == stdioSessionID
}

// stdioSessionID is the ID of mcp-go's stdio session.
const stdioSessionID = "stdio"

// clientFiles returns the files capability the client declared, as
// decoded JSON: in the request's _meta client capabilities (2026-07-28),
// or in its session's initialize capabilities under experimental.files,
// where the wrappers copy a top-level "files" member before mcp-go reads
// them (mcp-go's ClientCapabilities drops members it does not know); nil
// for none.
func clientFiles(ctx context.Context, meta *mcp.Meta) any {
	if meta != nil {
		if caps, ok := meta.AdditionalFields[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			if v := caps["files"]; v != nil {
				return v
			}
			if exp, ok := caps["experimental"].(map[string]any); ok && exp["files"] != nil {
				return exp["files"]
			}
		}
	}
	if cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if v := cs.GetClientCapabilities().Experimental["files"]; v != nil {
			return v
		}
	}
	return nil
}

// FileContent is a content block {"type": "file", "file": …} of SEP-2631,
// for the Content of an mcp-go tool result: the file a handler saved with
// [transfer.Save]. On a server set up with [ServeFiles], a client that did
// not declare the files.download capability gets the file the standard way
// instead, as from a go-sdk server (see transfer.FileContent).
//
// mcp-go's mcp.Content cannot be implemented outside mcp-go (it has an
// unexported method); FileContent gets that method from an embedded
// mcp.TextContent, which it never uses, and writes its own JSON.
type FileContent struct {
	mcp.TextContent // unused: it makes FileContent an mcp.Content
	File            transfer.FileValue
	Meta            map[string]any
}

// NewFileContent returns the content block of the file v.
func NewFileContent(v transfer.FileValue) *FileContent {
	return &FileContent{File: v}
}

// MarshalJSON writes {"type": "file", "file": c.File} (and "_meta").
func (c FileContent) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type string             `json:"type"`
		File transfer.FileValue `json:"file"`
		Meta map[string]any     `json:"_meta,omitempty"`
	}{"file", c.File, c.Meta})
}

// fallback returns content with its file blocks replaced, for the client
// from that lacks files.download, or nil when it has none: the same
// stand-ins, texts and budget as on a go-sdk server.
func (f *Files) fallback(ctx context.Context, from fileserve.Sender, content []mcp.Content) []mcp.Content {
	var out []mcp.Content
	budget := f.svc.MaxEmbedded()
	for i, b := range content {
		var v transfer.FileValue
		switch fc := b.(type) {
		case *FileContent:
			v = fc.File
		case FileContent:
			v = fc.File
		default:
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		if out == nil {
			out = append(make([]mcp.Content, 0, len(content)+1), content[:i]...)
		}
		if data, ok := f.svc.Embed(ctx, from, v, &budget); ok {
			out = append(out, mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: v.URI, MIMEType: v.MimeType, Blob: base64.StdEncoding.EncodeToString(data)}))
			continue
		}
		name := v.Name
		if name == "" {
			name = "file"
		}
		link := mcp.NewResourceLink(v.URI, name, "", v.MimeType)
		link.Size = v.Size
		out = append(out, mcp.NewTextContent(f.svc.TooLarge(v)), link)
	}
	return out
}
