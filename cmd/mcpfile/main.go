// Command mcpfile checks MCP servers' handling of file arguments, and
// calls their tools with local files.
//
//	mcpfile conform [flags] (-url URL | -- COMMAND [ARGS...])
//	mcpfile call [flags] (-url URL TOOL [ARG...] | TOOL [ARG...] -- COMMAND [ARGS...])
//
// # conform
//
// conform connects to a server over streamable HTTP (-url) or stdio (the
// command it starts), on protocol 2025-11-25 and 2026-07-28 where the
// server speaks them, reads every x-mcp-file argument of its tools
// (SEP-2356), sends each files it makes in code (valid ones of every
// accepted type, base64 and percent-encoded, maxSize exactly and one byte
// more, other types, contradicting bytes, https:, http:, file: and path
// values pointing where it sees any fetch, malformed URIs, arrays out of
// bounds) and reports each check by its stable id, with the requirement it
// tests and its level. A check that does not apply is a skip.
//
// When the server answers files/authorizeUpload (SEP-2631), each argument
// that takes uploads gets a file uploaded as the descriptor says (through
// runtime/transfer/client) and its URI in tools/call, then uploads that
// break one rule each: one byte short or long, another digest, a
// descriptor used twice, altered credentials, a type outside accept or
// maxSize + 1 bytes, a URI the server never issued, a file uploaded for
// one argument sent to another that refuses it, a data: URI to an
// upload-only argument. Tools whose output schema declares a file, and
// that take none, are called as a client with and without files.download,
// and their files authorized, downloaded, verified, asked for a Range and
// fetched with altered credentials. Tools whose file arguments are all
// optional are called without them as a client that answers forms: a form
// with a file field gets a valid file, then files that break its accept,
// maxSize and content, which the server must refuse (asking again, or
// with an isError result).
// cmd/mcpfile/internal/conform/REQUIREMENTS.md maps every MUST and SHOULD
// of both SEPs to the checks.
//
// -json prints {"checks":[{"id","requirement","level","status","detail"}]}
// instead of the table. -junit FILE writes JUnit XML as well. -big sends
// files larger than 64 MiB where maxSize calls for them. -protocol
// 2025-11-25 checks one protocol version only.
//
// The exit status is 0 when no MUST check failed (failed SHOULD checks are
// warnings), 1 when one did, and 2 when the server could not be checked or
// the command line is wrong.
//
// # call
//
// call calls one tool. Each ARG is name=@path (a local file for a file
// argument; repeat it for an array; name=@path;type=M declares media type
// M, which is otherwise the extension's or the one the first bytes show),
// name=value (a string, or a number or boolean where the schema says so)
// or name:=json (any JSON value). Over stdio the tool and its arguments
// come before -- and the server's command after it.
//
// Every file is checked against its argument's accept and maxSize before
// anything is sent, then goes inline as a data: URI or is uploaded with
// files/authorizeUpload, as transferModes allows: -mode auto (the default)
// sends files up to -inline-max bytes (1 MiB) inline where an upload is
// allowed too, larger ones are uploaded, and a server without uploads gets
// them inline where the argument allows; -mode inline and -mode upload
// force one. An argument in a host's shape (x-mcpfile-form filedata) gets
// a FileData object with the file's base64, inline; one that takes a
// ChatGPT file object (openai) names a URL the server fetches, and takes
// name:='{"download_url": …, "file_id": …}' rather than a local file.
// The result is printed (-json: as JSON). With -o DIR, the files the tool
// returns (file blocks, FileValues in structuredContent, resource links
// of file URIs, embedded resources) are downloaded with
// files/authorizeDownload, verified against their declared size and
// digest, and saved in DIR (made if missing) under their names, never
// over an existing file. Without -o they are listed. Uploads and
// downloads use plain http:// URLs only with -allow-http, or when -url is
// http:// on a loopback address. -max-download bounds a file whose size
// is not declared.
//
// A form the tool asks for during the call (elicitation) is answered from
// -answer arguments, of the same grammar (-answer photo=@me.png), with the
// same checks; a form asked again after the server refused the answer, and
// one the arguments do not fill, are declined, with the server's message
// on standard error. A page to open in a browser (URL mode, such as an
// upload page) is printed with the server's message and accepted, and the
// call waits until the server has what it asked for; call never opens it.
// A call refused with -32042 (URL elicitation required) gets its pages
// printed the same way, and is made again once the server says they are
// done (notifications/elicitation/complete) or Enter is pressed.
//
// The checks, the choice of inline or upload and the saving of outputs are
// runtime/transfer/client's (client.CallTool, client.Save): a Go program
// does what call does with that package.
//
// The exit status is 0 when the tool answered, 1 when it answered an error
// (isError) or a file could not be sent or saved, and 2 when the command
// line does not fit the tool or the server could not be reached.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
