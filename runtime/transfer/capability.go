package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SEP-2631's client capability, {"files": {"upload": true, "download":
// true, "transports": ["https"]}}, is a member of the client's
// capabilities that go-sdk v1.8's typed ClientCapabilities drops: only its
// experimental and extensions maps keep members the SDK does not know.
// So the capability is read where it survives:
//
//   - the request's own _meta["io.modelcontextprotocol/clientCapabilities"]
//     (protocol 2026-07-28 clients send their capabilities with every
//     request), read raw from the params' _meta map;
//   - the session's initialize capabilities, under experimental.files:
//     where a client may put it itself, and where [KeepFilesCapability]
//     and [KeepFilesCapabilityTransport] copy a top-level "files" member
//     before the SDK decodes the initialize request.

// FilesCapability is SEP-2631's client capability.
type FilesCapability struct {
	Upload     bool     `json:"upload,omitempty"`
	Download   bool     `json:"download,omitempty"`
	Transports []string `json:"transports,omitempty"`
}

// ClientFiles returns the files capability the client that sent req
// declared: in the request's _meta capabilities, or in its session's
// initialize capabilities (see [KeepFilesCapability]); the zero value when
// it declared none.
func ClientFiles(req *mcp.CallToolRequest) FilesCapability {
	if req == nil {
		return FilesCapability{}
	}
	if req.Params != nil {
		if caps, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			if f, ok := filesOf(caps["files"]); ok {
				return f
			}
			if exp, ok := caps["experimental"].(map[string]any); ok {
				if f, ok := filesOf(exp["files"]); ok {
					return f
				}
			}
		}
	}
	if req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil && ip.Capabilities != nil {
			if f, ok := filesOf(ip.Capabilities.Experimental["files"]); ok {
				return f
			}
		}
	}
	return FilesCapability{}
}

// downloads reports whether f lets the server send file blocks: download,
// over a transport this package hands out (https; no transports listed
// means the SEP's only one).
func (f FilesCapability) downloads() bool {
	return f.Download && (len(f.Transports) == 0 || slices.Contains(f.Transports, TransportHTTPS))
}

// filesOf reads a files capability from its decoded JSON.
func filesOf(v any) (FilesCapability, bool) {
	if v == nil {
		return FilesCapability{}, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return FilesCapability{}, false
	}
	var f FilesCapability
	if json.Unmarshal(b, &f) != nil {
		return FilesCapability{}, false
	}
	return f, true
}

// maxInitializeBytes bounds the bodies KeepFilesCapability reads to look
// for an initialize request: initialize requests are small, and larger
// bodies pass through unread.
const maxInitializeBytes = 64 << 10

// KeepFilesCapability wraps a streamable HTTP MCP handler so that the
// files capability a client declares in initialize survives the SDK's
// decoding, for [ClientFiles]: it copies capabilities.files to
// capabilities.experimental.files in the body of an initialize request
// (a POST of at most 64 KiB whose JSON-RPC method is "initialize"). It
// reads the first 64 KiB of a POST whose length is at most that, or
// unknown, to tell; a longer body, and every other request, goes on
// unchanged.
func KeepFilesCapability(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.ContentLength <= maxInitializeBytes {
			// A known small length, or none (chunked, HTTP/2): read up to
			// the bound, and pass a longer body on as it comes.
			head, err := io.ReadAll(io.LimitReader(r.Body, maxInitializeBytes+1))
			switch {
			case err != nil:
				// Pass the failure on: the handler reads the same error.
				r.Body = readCloser{io.MultiReader(bytes.NewReader(head), errReader{err}), r.Body}
			case len(head) > maxInitializeBytes:
				r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
			default:
				if nb, ok := keepFiles(head); ok {
					head = nb
				}
				r.Body = readCloser{bytes.NewReader(head), r.Body}
				r.ContentLength = int64(len(head))
			}
		}
		h.ServeHTTP(w, r)
	})
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// keepFiles returns the initialize request msg with capabilities.files
// copied to capabilities.experimental.files, or false when msg is not an
// initialize request with such a member (or already has the copy).
func keepFiles(msg []byte) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil, false
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil || method != "initialize" {
		return nil, false
	}
	params, ok := copyFiles(m["params"])
	if !ok {
		return nil, false
	}
	m["params"] = params
	b, err := json.Marshal(m)
	return b, err == nil
}

// copyFiles returns initialize params with capabilities.files copied to
// capabilities.experimental.files.
func copyFiles(raw json.RawMessage) (json.RawMessage, bool) {
	var params map[string]json.RawMessage
	if json.Unmarshal(raw, &params) != nil {
		return nil, false
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(params["capabilities"], &caps) != nil || caps["files"] == nil {
		return nil, false
	}
	var exp map[string]json.RawMessage
	if e := caps["experimental"]; e != nil && json.Unmarshal(e, &exp) != nil {
		return nil, false
	}
	if exp == nil { // absent, or null
		exp = map[string]json.RawMessage{}
	}
	if exp["files"] != nil {
		return nil, false
	}
	exp["files"] = caps["files"]
	var err error
	if caps["experimental"], err = json.Marshal(exp); err != nil {
		return nil, false
	}
	if params["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, false
	}
	b, err := json.Marshal(params)
	return b, err == nil
}

// KeepFilesCapabilityTransport is [KeepFilesCapability] for the other
// transports (stdio, in memory): it wraps t so that the initialize request
// read from it has capabilities.files copied to
// capabilities.experimental.files.
func KeepFilesCapabilityTransport(t mcp.Transport) mcp.Transport {
	return keepingTransport{t}
}

type keepingTransport struct{ mcp.Transport }

func (k keepingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := k.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return keepingConn{c}, nil
}

type keepingConn struct{ mcp.Connection }

func (k keepingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := k.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "initialize" {
		if p, ok := copyFiles(req.Params); ok {
			req.Params = p
		}
	}
	return msg, err
}
