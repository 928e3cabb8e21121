// Package transfer is SEP-2631 out-of-band file transfer for MCP servers
// built with mcpfile: files/authorizeUpload, through which a client sends a
// file's bytes beside the MCP connection instead of inline as a base64 data
// URI, so that a tool can take a file of any size with the server's memory
// flat; and files out, which a tool hands back with [Save] and a client
// fetches through files/authorizeDownload.
//
// Server authors call [Register] and mount the handler it returns beside
// their MCP endpoint; clients reach it through the upload and download
// descriptors the two methods hand them. It builds on two packages: store,
// where uploaded files live (a directory on disk by default, memory in
// tests), and token, which signs and checks the stateless, single-file
// capabilities that authorize each transfer, so that any replica holding
// the keys and the store serves an upload any other replica authorized.
//
// # Setting it up
//
// One call wires a server, before its tools are added:
//
//	key, _ := token.ParseKeyHex(os.Getenv("MCPFILE_TRANSFER_KEY")) // 32 bytes, shared by replicas
//	keys, _ := token.NewKeyring(key)
//	files, err := transfer.Register(server, transfer.Options{
//		Keys:      keys,
//		PublicURL: "https://example.com/files/", // where the handler is mounted
//	})
//	runtime.AddTool(server, &mcp.Tool{Name: "analyze_document"}, analyze)
//	mux.Handle("/files/", files)
//
// [Register] adds files/authorizeUpload, makes [runtime.AddTool] and
// [runtime.Elicit] resolve the file URIs clients send, and returns the
// upload endpoint, [UploadHandler], to mount at PublicURL. The handler
// sees the same runtime.File whatever the transfer mode; an uploaded one
// reads from the store through File.Open, a piece at a time.
//
// # The flow
//
//  1. The client calls files/authorizeUpload with the file's name,
//     mimeType, size and digest. The server checks them against its
//     upload-capable file fields (the tools' and the elicited forms' fields
//     whose transferModes are absent or list "upload") and the owner's
//     quota, and answers with the file URI, mcp-file://<host>/<id>.…, and
//     an upload descriptor: a multipart POST to the upload endpoint with a
//     signed, single-use token (or, for a [store.Presigner], a presigned PUT
//     straight to object storage).
//  2. The client uploads the bytes. The endpoint streams them into the
//     store through one fixed buffer, holding the body to the declared
//     size byte for byte, sniffing the first bytes against the declared
//     media type, and letting the store check the SHA-256; the file becomes
//     visible only when complete and valid.
//  3. The client sends the file URI in tools/call (or in an elicitation
//     answer). The runtime checks the URI's signature for the caller, its
//     expiry and host, that the stored file has the size and SHA-256 the
//     URI says were authorized (a file replaced in the store is refused),
//     then the stored file's media type, size and first bytes against that
//     argument's x-mcp-file, with the same checks and error texts as for a
//     data: URI.
//
// # Files out
//
// A tool handler stores a file it made with [Save] (bytes, a reader of
// known size, or a path it owns) and returns the [FileValue] it gets: in
// structuredContent, and, as [NewFileContent], as a {"type": "file"} block.
// files/authorizeDownload answers a file URI with a signed, expiring GET of
// the download endpoint (one Range at a time, served as an attachment), or
// a presigned GET from a [store.DownloadPresigner]. A client that did not
// declare the files.download capability ([ClientFiles]; wrap the MCP
// handler with [KeepFilesCapability] so that an initialize declaration
// survives the SDK) gets each file block as an embedded resource with its
// bytes, or, past [Options.MaxEmbeddedOutput], as a text and a
// resource_link.
//
// # Files from people: upload pages
//
// [runtime.ElicitUpload] asks the person using a client for one file
// through a page in their browser, for files too big to travel in a
// message: a URL-mode elicitation whose URL is an upload page that the
// handler Register returns serves at PublicURL/page/<token>. The page is
// plain HTML with a form (it works without JavaScript; with it, it shows
// progress and checks the file's type and size before sending) under a
// Content-Security-Policy that runs nothing but its own script and style.
// Its token, in a hidden field of the form, is signed, single use, bound to
// the caller and the elicitation, and expires after [Options.PageTTL]. The
// post runs the upload endpoint's checks (streaming through one buffer, the
// size limit at the first byte past it, the first bytes against the
// accepted types, nothing left behind on failure) and answers a refusal
// with a 4xx page that says why, never a redirect. While the person
// uploads, the tool call reports progress; a browser that goes away
// mid-upload ends the call with an error. The page names who asks: the
// server (its Implementation's Title, else its Name), the tool and the
// message. A client without URL-mode elicitation gets the page as a link
// in an ordinary tool result; its retry may send back the page's file URI
// in an upload-capable argument (runtime.ElicitOptions.Arg), which the
// call resolves like any file URI, waiting for an upload still running,
// and takes once (a marker object beside the file, created only if absent,
// says it was taken).
//
// # Who may use a file
//
// With auth (the SDK's auth token info on the request), a file belongs to
// the principal that authorized it: its URI is signed for that principal,
// and no other may use it. Without auth, the sealed, unguessable file URI
// is itself the capability, as SEP-2631 calls its descriptors bearer-style
// capabilities: any session, on any replica holding the keys and the store,
// that has the URI may use the file until it expires. The upload endpoint
// likewise takes the sealed token as the capability, and, when it is
// mounted behind the server's auth, also refuses a token issued to another
// principal than the request's.
//
// # Refusals
//
// files/authorizeUpload and files/authorizeDownload refuse a file with the
// JSON-RPC error -32602 and an [ErrorData], whose reason is one of the
// Reason constants. The HTTP endpoints (upload, download, upload pages)
// refuse with a status and the JSON body {"error": text, "reason": code}
// (an upload page shows the text to a person instead, unless its script
// asks for JSON): the code is one of the same constants, the same one
// where the meaning is the same (maxSizeExceeded, quotaExceeded, expired,
// unauthorized, notFound, malformed, mimeTypeNotAccepted,
// digestMismatch), and stable, for programs; the text is for people and
// may change. Neither ever holds a token or a byte of a file. A failure of
// the server's own (its store, its keys) is logged (an "internal" record
// to [Options.Logger], and a line to [Options.ErrorLog] when one is set)
// and answered as internal, with nothing of its cause.
//
// # Logs and metrics
//
// Each upload, download, upload page, authorization, sweep and refusal is
// one log/slog record to [Options.Logger] (slog.Default() when nil), with
// its reason code, sizes and duration, an owner only as a short keyed
// hash ([token.Keyring.Pseudonym]), and never a byte of a file, a token or
// a URL or file URI that holds one; and it is measured through
// OpenTelemetry's metric API ([Options.MeterProvider], or the global
// provider, a no-op until the program sets one): uploads, downloads and
// rejections by reason, bytes, durations, uploads in progress, store
// usage. The README lists every record and instrument.
//
// # The wire types
//
// The SEP's types ([FileValue], [FileTransferDescriptor], the params and
// results of the two methods, [ErrorData]) are declared in package wire,
// a leaf that the Go client (package client) imports without this one:
// a program that only uploads and downloads links none of the server.
// This package's names for them are aliases, the same types.
//
// # Replicas and storage
//
// Tokens and file URIs are stateless, sealed (AES-256-GCM) under the
// shared keys, so every replica that holds the same keys opens them; single use comes from the
// store's create-if-absent commit, not from a shared database. Replicas
// share a store: a directory on shared disk (package diskstore), or object
// storage (the S3 store, its own module under runtime/transfer/store/s3store).
// Uploaded files expire after [Options.FileTTL]; a sweeper deletes them,
// and a restart loses no completed upload.
package transfer
