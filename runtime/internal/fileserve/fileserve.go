// Package fileserve is where an SDK adapter outside package transfer (the
// mcp-go adapter, runtime/mcpgo, a module of its own) serves SEP-2631 with
// the transfer layer's own code: files/authorizeUpload and
// files/authorizeDownload, the resolution of the file URIs in a tool
// call's arguments, file outputs (transfer.Save finds the Resolver this
// package puts in a call's context) and what stands in for them for a
// client without files.download, and the upload and download endpoints.
// The adapter tells who sent each request ([Sender]); nothing here depends
// on an SDK. Package transfer keeps it unexported, so that a go-sdk
// server's API stays transfer.Register, and sets [New] when it is
// initialised; the adapter imports transfer (for its Options and Save), so
// it always has.
package fileserve

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/observe"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// A Sender is who sent one request, as the adapter's SDK tells it.
type Sender struct {
	// Principal returns the principal the request's auth names; nil for a
	// request without auth, whose files belong to its session. A
	// Principal that returns "" is auth that names none: refused.
	Principal func() string
	// Session is the ID of the request's session where the protocol has
	// sessions with IDs (2025-11-25 over streamable HTTP); "" where it has
	// none (stdio, 2026-07-28).
	Session string
	// Files is the files capability the client declared, as decoded JSON
	// (the "files" member of its capabilities); nil for none.
	Files any
}

// Config is what New makes a Service of.
type Config struct {
	// Options is the server's transfer.Options.
	Options any
	// Schemas returns the schemas whose files the server takes (its tools'
	// arguments, and the forms it elicited), for files/authorizeUpload.
	Schemas func() []*descriptor.Schema
	// Declare records one more: a form about to be elicited.
	Declare func(*descriptor.Schema)
	// HTTPPrincipal returns the principal of a request to the upload and
	// download endpoints, and whether it came with auth.
	HTTPPrincipal func(*http.Request) (principal string, ok bool)
	// ServerName returns the name an upload page shows as the server
	// asking (its title, or else its name); nil: none.
	ServerName func() string
}

// A Service is the transfer layer of one server.
type Service interface {
	// Handler is the HTTP handler of the upload and download endpoints,
	// to mount at the Options' PublicURL.
	Handler() http.Handler

	// Authorize answers files/authorizeUpload or files/authorizeDownload
	// (method) with params (its JSON-RPC params) sent by from: a result to
	// write as JSON, or the JSON-RPC error, which says what was wrong.
	// Each answer is recorded as on a go-sdk server.
	Authorize(ctx context.Context, from Sender, method string, params json.RawMessage) (result any, err *Error)

	// Call returns ctx with the Resolver of a call of tool sent by from,
	// which resolves the call's file URIs (upload pages' too) and lets its
	// handler Save files and ask for upload pages, and the function to
	// call when the call has ended. progress, nil when the call gave no
	// progress token, sends a notifications/progress of the call, of the
	// bytes of an upload it waits for, with ProgressMessage; the
	// Resolver's Progress method throttles it and keeps it growing.
	Call(ctx context.Context, from Sender, tool string, progress func(received, total int64)) (context.Context, func())

	// ProgressMessage is the message of those notifications/progress.
	ProgressMessage() string

	// Downloads reports whether from takes file content blocks: it
	// declared files.download over a transport the server hands out.
	Downloads(from Sender) bool

	// Embed returns the bytes of the file output v of from, to embed in a
	// result for a client that does not take file blocks, when they fit
	// in what is left of budget (which it then lessens); false when they
	// do not, and the client gets TooLarge(v) and a link instead.
	Embed(ctx context.Context, from Sender, v wire.FileValue, budget *int64) ([]byte, bool)

	// TooLarge is the text that stands, with a resource link, for a file
	// output not embedded.
	TooLarge(v wire.FileValue) string

	// MaxEmbedded is the budget of the bytes embedded in one result.
	MaxEmbedded() int64

	// Observer is the observer of the server's records and measurements.
	Observer() *observe.Observer
}

// An Error is a JSON-RPC error.
type Error struct {
	Code    int64
	Message string
	Data    json.RawMessage // nil for none
}

// New returns the Service of c. It is an error when c's Options cannot be
// used, with the text transfer.Register gives. Package transfer sets it.
var New func(c Config) (Service, error)

// KeepFiles returns the initialize request msg with the client's
// capabilities.files copied to capabilities.experimental.files, where an
// SDK that drops capabilities it does not know keeps it; false when msg is
// no initialize request with such a member. Package transfer sets it.
var KeepFiles func(msg []byte) ([]byte, bool)
