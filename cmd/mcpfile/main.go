// Command mcpfile checks MCP servers' handling of file arguments.
//
//	mcpfile conform [flags] (-url URL | -- COMMAND [ARGS...])
//
// conform connects to a server over streamable HTTP (-url) or stdio (the
// command it starts), on protocol 2025-11-25 and 2026-07-28 where the
// server speaks them, reads every x-mcp-file argument of its tools
// (SEP-2356), sends each files it makes in code (valid ones of every
// accepted type, base64 and percent-encoded, maxSize exactly and one byte
// more, other types, contradicting bytes, https:, http:, file: and path
// values pointing where it sees any fetch, malformed URIs, arrays out of
// bounds) and reports each check by its stable id, with the requirement it
// tests and its level. A check that does not apply is a skip. SEP-2631's
// checks (uploads, downloads) are not built yet: upload-only arguments are
// skipped. cmd/mcpfile/internal/conform/REQUIREMENTS.md maps every MUST and
// SHOULD of SEP-2356 to the checks.
//
// -json prints {"checks":[{"id","requirement","level","status","detail"}]}
// instead of the table. -junit FILE writes JUnit XML as well. -big sends
// files larger than 64 MiB where maxSize calls for them. -protocol
// 2025-11-25 checks one protocol version only.
//
// The exit status is 0 when no MUST check failed (failed SHOULD checks are
// warnings), 1 when one did, and 2 when the server could not be checked or
// the command line is wrong.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
