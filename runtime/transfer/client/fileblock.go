package client

// File content blocks: SEP-2631's files capability and {"type": "file"}
// blocks, which go-sdk v1.8 knows neither of: its typed
// ClientCapabilities has no files member, and a tool result holding a
// content block of a type it does not know fails the whole CallTool.
//
// [WrapTransport] wraps the client's transport. Going out, it copies the
// files capability the client declares under experimental.files (see
// [FilesCapability]) to the top-level files member SEP-2631 names, in the
// initialize request and in the capabilities a 2026-07-28 request carries
// in its _meta. Coming in, it rewrites each file block of a result into a
// resource_link of the same file, marked with [FileBlockMetaKey] in its
// _meta, where [FileOf] finds the FileValue again, and reports the block
// to an observer.

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// FileBlockMetaKey is the _meta member of a resource_link that was a file block:
// the block's FileValue.
const FileBlockMetaKey = "io.mcpfile/fileBlock"

// FilesCapability is SEP-2631's client capability for a client that
// uploads and downloads over https, for
// ClientCapabilities.Experimental["files"] of a client whose transport
// [WrapTransport] wraps (go-sdk's ClientCapabilities has no files member).
func FilesCapability() map[string]any {
	return map[string]any{"upload": true, "download": true, "transports": []any{wire.TransportHTTPS}}
}

// WrapTransport returns t with the files capability copied where
// SEP-2631 puts it and file blocks made resource links, so that a go-sdk
// client can declare files.download and read the results it then gets.
// seen, when not nil, is called with each file block's FileValue as it
// arrives (from the connection's reading goroutine).
//
// A *mcp.StreamableClientTransport is wrapped under the SDK, in a copy
// whose HTTP client rewrites the messages (request bodies, JSON answers,
// the events of SSE streams): wrapping its connection would keep the SDK
// from opening the standalone stream that carries what a server sends
// outside a call (see fileblock_http.go). Other transports have their
// connection wrapped.
func WrapTransport(t mcp.Transport, seen func(wire.FileValue)) mcp.Transport {
	if st, ok := t.(*mcp.StreamableClientTransport); ok && st != nil {
		return wrapStreamable(st, &fileBlockConn{seen: seen})
	}
	return &fileBlockTransport{t: t, seen: seen}
}

// FileOf returns the FileValue of a resource link that was a file block.
func FileOf(l *mcp.ResourceLink) (wire.FileValue, bool) {
	v, ok := l.Meta[FileBlockMetaKey]
	if !ok {
		return wire.FileValue{}, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return wire.FileValue{}, false
	}
	var fv wire.FileValue
	if json.Unmarshal(b, &fv) != nil || fv.URI == "" {
		return wire.FileValue{}, false
	}
	return fv, true
}

type fileBlockTransport struct {
	t    mcp.Transport
	seen func(wire.FileValue)
}

func (t *fileBlockTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &fileBlockConn{Connection: c, seen: t.seen}, nil
}

type fileBlockConn struct {
	mcp.Connection
	seen func(wire.FileValue)
}

func (c *fileBlockConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && len(r.Params) > 0 {
		if p, ok := withFiles(r.Params); ok {
			cp := *r
			cp.Params = p
			m = &cp
		}
	}
	return c.Connection.Write(ctx, m)
}

func (c *fileBlockConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err != nil {
		return m, err
	}
	if r, ok := m.(*jsonrpc.Response); ok && bytes.Contains(r.Result, []byte(`"file"`)) {
		if res, ok := c.rewrite(r.Result); ok {
			cp := *r
			cp.Result = res
			m = &cp
		}
	}
	return m, nil
}

// withFiles copies experimental.files to files in the capabilities of an
// initialize request's params and of params' _meta.
func withFiles(params json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(params, []byte(`"files"`)) {
		return nil, false
	}
	var p map[string]any
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	changed := copyFiles(p["capabilities"])
	if meta, ok := p["_meta"].(map[string]any); ok {
		changed = copyFiles(meta[mcp.MetaKeyClientCapabilities]) || changed
	}
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, false
	}
	return b, true
}

func copyFiles(caps any) bool {
	m, ok := caps.(map[string]any)
	if !ok {
		return false
	}
	exp, _ := m["experimental"].(map[string]any)
	f, ok := exp["files"]
	if !ok || m["files"] != nil {
		return false
	}
	m["files"] = f
	return true
}

// rewrite makes the file blocks of a result's content resource links.
func (c *fileBlockConn) rewrite(result json.RawMessage) (json.RawMessage, bool) {
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return nil, false
	}
	var content []map[string]any
	if json.Unmarshal(res["content"], &content) != nil {
		return nil, false
	}
	changed := false
	for i, block := range content {
		if block["type"] != "file" {
			continue
		}
		b, _ := json.Marshal(block["file"])
		var fv wire.FileValue
		if json.Unmarshal(b, &fv) != nil || fv.URI == "" {
			continue // not a file block the client can read: left for the SDK to refuse
		}
		if c.seen != nil {
			c.seen(fv)
		}
		link := map[string]any{"type": "resource_link", "uri": fv.URI, "name": fv.Name, "_meta": map[string]any{FileBlockMetaKey: fv}}
		if link["name"] == "" {
			link["name"] = fv.URI
		}
		if fv.MimeType != "" {
			link["mimeType"] = fv.MimeType
		}
		if fv.Size != nil {
			link["size"] = *fv.Size
		}
		content[i] = link
		changed = true
	}
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(content)
	if err != nil {
		return nil, false
	}
	res["content"] = b
	out, err := json.Marshal(res)
	if err != nil {
		return nil, false
	}
	return out, true
}
