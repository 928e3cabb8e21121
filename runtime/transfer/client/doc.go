// Package client uploads and downloads files of MCP servers out of band,
// as SEP-2631 (File Objects and Transfer) describes, for hosts and agents
// written in Go with the MCP Go SDK. Given a client session and a file,
// it asks the server for an upload with files/authorizeUpload, sends the
// bytes as the returned descriptor says, checks every answer on the way,
// and returns the file URI (mcp-file:…) to put in a tool argument or an
// elicitation answer where a data: URI would otherwise go. Given a file
// URI a tool returned, it asks for a download with files/authorizeDownload
// and fetches the bytes, verifying their size and digest.
//
//	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
//	if err := client.Enable(c); err != nil { // before Connect
//		return err
//	}
//	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
//	…
//	f, err := client.UploadPath(ctx, cs, "report.pdf", "application/pdf", nil)
//	…
//	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "analyze_document",
//		Arguments: map[string]any{"document": f.URI}})
//
// [UploadPath] uploads a file on disk; [Upload] a [File] read from any
// io.Reader of known size.
//
// # Calling a tool with local files
//
// [CallTool] is the whole call, schema-driven: given a tool (from
// tools/list; [FindTool] finds one by name), values for its other
// arguments and [LocalFile]s for its file fields, it checks each file
// against its field's x-mcp-file before anything is sent (a media type
// accept allows, at most maxSize bytes, a transfer mode transferModes
// lists, at most maxItems files), sends each one inline as a data: URI or
// uploads it as [CallOptions.Mode] and the file's size decide, calls the
// tool and returns the result. A file that does not fit is
// [ErrArguments], saying which rule and why, and nothing was sent.
// [ToolArguments] builds the arguments without calling; [FormContent]
// answers an elicitation form's file fields the same way. A field in a
// host's shape (x-mcpfile-form "filedata") gets an Odeus FileData object
// with the file's base64, inline, after the same checks; a ChatGPT file
// object ("openai") names a URL the server fetches, and takes no local
// file.
//
//	tool, err := client.FindTool(ctx, cs, "analyze_document")
//	…
//	res, err := client.CallTool(ctx, cs, tool, map[string]any{"title": "Q3"},
//		map[string][]client.LocalFile{"document": {{Path: "report.pdf"}}}, nil)
//
// [Outputs] lists the files a result holds (file blocks, FileValues in
// structuredContent, resource links of file URIs, embedded resources),
// and [Save] writes one to a directory, downloaded and verified against
// its declared size and digest, under its name made safe, never over an
// existing file.
//
// # Downloads and file blocks
//
// [AuthorizeDownload] asks for a download of a file URI; [Download]
// fetches it whole, with the descriptor's headers, and fails with
// [ErrVerify] when the bytes have another size or SHA-256 than the server
// declared; [DownloadRange] fetches a byte range (Range, with the answer's
// Content-Range checked). Both check the descriptor first, like uploads
// ([CheckDownload]: https, GET, not expired), follow no redirect, and read
// at most [DownloadOptions.MaxSize] bytes.
//
// Servers send a tool's file outputs as {"type": "file"} content blocks
// only to clients that declared {"files": {"download": true}}. go-sdk
// v1.8 can neither declare that (its ClientCapabilities has no files
// member) nor read such a block (a content block of a type it does not
// know fails the whole CallTool). [WrapTransport] wraps the client's
// transport to do both: declare [FilesCapability] under experimental.files
// and it is sent where SEP-2631 puts it, and each file block arrives as a
// resource link whose FileValue [FileOf] returns (a
// *mcp.StreamableClientTransport is wrapped in its HTTP client, so that
// the SDK still opens the standalone stream a server's messages outside a
// call arrive on):
//
//	c := mcp.NewClient(impl, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
//		Experimental: map[string]any{"files": client.FilesCapability()}}})
//	cs, err := c.Connect(ctx, client.WrapTransport(transport, nil), nil)
//	…
//	for _, b := range res.Content {
//		if l, ok := b.(*mcp.ResourceLink); ok {
//			if fv, ok := client.FileOf(l); ok {
//				d, err := client.AuthorizeDownload(ctx, cs, fv.URI)
//				…
//				_, err = client.Download(ctx, d, w, nil)
//
// # What it checks
//
// Descriptors are bearer capabilities handed out by the server, so the
// client treats them as input: each check below is one step of [Upload],
// and a failure is an error that says which member broke which rule
// ([ErrBadAnswer] for the server's answers).
//
//   - files/authorizeUpload: a JSON-RPC error (such as -32602 with reason
//     maxSizeExceeded) is returned wrapped, so that [wire.ErrorDataOf]
//     reads its data. The result's file.uri is present and mcp-file:, and
//     its size, mimeType and digest, when present, are those declared.
//   - The upload descriptor: transport "https", method POST or PUT (a
//     GET is a download), a multipart member with a fileField, a URL that
//     is absolute, https (see [Options.AllowHTTP]) and without user info,
//     an expiresAt that has not passed, and headers that do not touch the
//     connection (Transfer-Encoding, Connection, …) and whose Host and
//     Content-Length, if given, are those of the request.
//   - The body: exactly File.Size bytes. The last bytes are held back
//     until the reader has ended there and, for a hashed file, until the
//     bytes sent have the declared SHA-256: a file that is shorter,
//     longer, or changed since it was hashed is never uploaded whole.
//   - The upload answer: 2xx, after the whole file was sent. A redirect is
//     refused, never followed; another status is a [*StatusError] with
//     the endpoint's reason. A reported size or sha-256 digest ({"size":
//     …, "digest": …} in a JSON answer) must be that of the bytes sent.
//
// No error holds a byte of the file, the upload token, or the upload URL
// beyond its scheme and host (a presigned URL carries its signature).
//
// # Decisions
//
// Streaming: the file is never held in memory. A multipart body is three
// readers in a row (the form fields and the file part's header, then the
// file, then the closing boundary), so the request has an exact
// Content-Length, which S3 and other servers want, without a pipe or a
// goroutine; a PUT sends the file as the body with Content-Length set to
// its size. The fields go in name order, all before the file part, as the
// upload endpoint of package transfer requires of the token.
//
// Digest: a seekable body (a file, a bytes.Reader) is read twice, once to
// declare its SHA-256 so that the server refuses other bytes, then to
// send it. Other readers are read once: no digest is declared, the
// SHA-256 is computed as the bytes go, and it is checked against the
// digest the endpoint reports. Either way the returned FileValue carries
// the digest of the bytes sent.
//
// Media type: when none is given it is detected from the first 512 bytes
// with http.DetectContentType (without parameters), for a seekable body
// during hashing, for another by reading them first and sending them
// back in front; a server that checks content would refuse a declared
// type the bytes do not have anyway.
//
// Transport: plain http:// is refused unless [Options.AllowHTTP] is set,
// loopback addresses included (see there for why); redirects are refused
// with any HTTP client, since a POST redirected with 302 becomes a GET
// whose 200 would look like a success.
//
// Capability: SEP-2631 clients advertise {"files": {"upload": true,
// "transports": ["https"]}} in their capabilities. go-sdk v1.8's
// mcp.ClientCapabilities has no member for it, so [Enable] cannot add it
// (servers built with package transfer do not ask for it for uploads);
// [WrapTransport] can, and is needed to receive file blocks.
//
// The package imports the SEP's wire types (package wire), never the
// server: a program that only uploads and downloads links none of the
// server's stores, pages or checks (TestLinksNoServer holds it to that).
package client
