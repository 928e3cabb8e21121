// Package mcpgo lets servers written with github.com/mark3labs/mcp-go take
// files as tool arguments, as package runtime does for the official go-sdk:
// the same mcpfile tags, the same generated MCPSchema and UnmarshalJSON,
// the same checks and the same texts when a file breaks a rule.
//
//	type DescribeArgs struct {
//		Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg,maxSize=5MiB"`
//	}
//
//	s := server.NewMCPServer("images", "v1.0.0")
//	mcpgo.AddTool(s, mcp.Tool{Name: "describe_image"}, func(ctx context.Context, req mcp.CallToolRequest, in DescribeArgs) (*mcp.CallToolResult, error) {
//		// in.Image is a checked PNG or JPEG of at most 5 MiB.
//		return mcp.NewToolResultText(fmt.Sprintf("%d bytes of %s", in.Image.Size(), in.Image.MediaType)), nil
//	})
//	limit, err := mcpgo.MaxRequestBytesFor(s)
//	…
//	server.NewStdioServer(s).Listen(ctx, mcpgo.LimitLines(os.Stdin, limit), os.Stdout)
//
// [AddTool] publishes the generated schema as the tool's raw input schema
// and answers a call whose files break a rule with an isError result
// holding the text a go-sdk server gives (see runtime.Error); the handler
// sees checked files only. Files that arrive in a host's shape work as
// with runtime.AddTool: a field tagged form=filedata takes Odeus FileData
// objects, and one tagged form=openai ChatGPT's file objects, which the
// server fetches with the fetcher given by [UseFetcher] and lists in the
// tool's _meta["openai/fileParams"].
//
// mcp-go reads a request whole and sets no limit on its size, on stdio or
// over HTTP. [MaxRequestBytesFor] computes the limit the server's tools
// need, as runtime.MaxRequestBytes does for a go-sdk server, and
// [LimitBody] and [LimitLines] hold mcp-go's streamable HTTP server and
// its stdio server to it.
//
// [Elicit] asks the user for a form of files, as runtime.Elicit does, the
// way protocol 2026-07-28 asks (mcp-go bridges it to elicitation/create for
// older clients).
//
// [ServeFiles] is transfer.Register for an mcp-go server: SEP-2631
// uploads, downloads and file outputs, with the same transfer.Options,
// stores, tokens, checks, texts and records, done by the same code. mcp-go
// has no API for methods of one's own, so files/authorizeUpload and
// files/authorizeDownload are answered in front of its transports:
// [Files.HTTP] wraps its StreamableHTTPServer (both protocol generations),
// [Files.Stdio] the reader and writer of its StdioServer, and
// [Files.Handler] is the upload and download endpoints:
//
//	files, err := mcpgo.ServeFiles(s, mcpgo.FilesOptions{Options: transfer.Options{Keys: keys, PublicURL: "https://example.com/files/"}})
//	…
//	mux.Handle("/mcp", mcpgo.LimitBody(files.HTTP(server.NewStreamableHTTPServer(s)), limit))
//	mux.Handle("/files/", files.Handler())
//
// On such a server, [AddTool] resolves the uploaded files' URIs (mcp-file:)
// a call names and checks each against the argument it arrives in, takes
// fields of uploaded files only (transfer=upload), [Elicit] asks for forms
// of them, and a handler can save a file with transfer.Save and return it
// with [NewFileContent]. Without it, AddTool refuses a field that takes
// uploaded files only, and a field that takes both refuses an uploaded
// file's URI with the go-sdk server's text for a server that serves no
// uploads.
//
// On such a server, [ElicitUpload] asks the person for a file through an
// upload page, as runtime.ElicitUpload does: the page sent to a client
// with URL-mode elicitation (an input request on 2026-07-28,
// elicitation/create before it), or handed to one without as a link (or
// the -32042 error), with progress notifications while the upload runs.
//
// This package is a module of its own, so that servers on the go-sdk never
// download mcp-go.
package mcpgo
