// Package transfer is SEP-2631 out-of-band file transfer for MCP servers
// built with mcpfile: the HTTP side of files/authorizeUpload, through
// which a client sends a file's bytes beside the MCP connection instead of
// inline as a base64 data URI, so that a tool can take a file of any size
// with the server's memory flat.
//
// Server authors mount what this package returns beside their MCP
// endpoint; clients reach it through the upload descriptor that
// files/authorizeUpload hands them. It builds on two packages: store,
// where uploaded files live (a directory on disk by default, memory in
// tests), and token, which signs and checks the stateless, single-file
// capabilities that authorize each transfer, so that any replica holding
// the keys and the store serves an upload any other replica authorized.
//
// # What exists so far
//
// [UploadHandler], the upload endpoint. It accepts the SEP's descriptor (a
// multipart/form-data POST with the token in the form field "token" and
// the bytes in the file field "file") and a plain PUT of the bytes with
// the token in an Authorization: Bearer header, and runs every upload
// through one pipeline: method, token, owner, declared size, single use,
// then a streaming copy into the store that enforces the size exactly,
// sniffs the first bytes against the declared media type and lets the
// store check the SHA-256, and finally commit. Every rejection has its own
// status and reason (see [UploadHandler]) and leaves nothing in the store,
// and a rejected attempt does not use up the token.
//
// Next: the files/authorizeUpload method, which checks a request against
// the server's upload-capable fields and issues the token and file URI,
// and the resolution of mcp-file:// URIs by the runtime's decoder in
// tools/call and elicitation answers.
package transfer
