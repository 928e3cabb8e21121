package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/fileserve"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// HTTP returns h, mcp-go's *server.StreamableHTTPServer of the server
// given to [ServeFiles], with files/authorizeUpload and
// files/authorizeDownload answered in front of it, for clients of both
// protocol generations: 2025-11-25, whose requests carry the session's
// Mcp-Session-Id, and 2026-07-28, whose requests stand alone.
//
// Such a request is first handed to h as a ping with the same ID, _meta,
// session and headers, so that mcp-go checks it as it checks every
// request of its transport (the session ID, the protocol version header
// and its agreement with _meta, Mcp-Method, the DNS rebinding protection):
// a request mcp-go refuses gets mcp-go's answer. (mcp-go's hooks see the
// ping.) One it accepts is answered here, as a JSON response; on
// 2026-07-28 an invalid-params error (-32602) has status 400, as mcp-go
// gives its own. Every other request goes on to h unchanged, but for the
// files capability of an initialize request, which is copied where
// mcp-go keeps it (capabilities.experimental.files), so that a file output
// reaches a client that declared files.download as a file block, and the
// mark by which a tool call over HTTP is told from one on stdio, and the
// request's address (transfer.KeepCallerAddress): callers without auth
// hold the quota per address (an IPv6 /48), all the sessions of one
// address together, as on a go-sdk server.
//
// HTTP reads the first 64 KiB of a POST's body to tell what it is, and
// passes a longer one on unread; mcp-go reads a body whole: put
// [LimitBody] in front of both.
func (f *Files) HTTP(h http.Handler) http.Handler {
	// The address of each request, by which callers without auth are
	// bounded, as for a go-sdk server.
	return transfer.KeepCallerAddress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(context.WithValue(r.Context(), httpKey{}, true))
		if r.Method != http.MethodPost || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		// The requests answered or changed here are small: a longer body
		// goes on as it comes, its head read once more, not the whole of
		// it copied (mcp-go reads it whole itself).
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
		switch {
		case err != nil:
			// Pass the failure on: mcp-go answers it as for any request.
			r.Body = readCloser{io.MultiReader(bytes.NewReader(body), errReader{err}), r.Body}
			h.ServeHTTP(w, r)
			return
		case len(body) > maxPeekBytes:
			r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
			h.ServeHTTP(w, r)
			return
		}
		switch m, ok := authorizeRequest(body); {
		case ok:
			f.serveAuthorize(w, r, h, m)
			return
		case bytes.Contains(body, []byte(`"initialize"`)):
			if nb, ok := fileserve.KeepFiles(body); ok {
				body = nb
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	}))
}

// maxPeekBytes bounds the requests HTTP reads to tell what they are:
// files/authorizeUpload, files/authorizeDownload and initialize requests
// are far smaller; a longer one goes to mcp-go as it is (an authorize
// request that long is answered as mcp-go answers a method it does not
// know).
const maxPeekBytes = 64 << 10

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// A rpcRequest is a JSON-RPC request of files/authorizeUpload or
// files/authorizeDownload.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// authorizeRequest returns the request in msg when it is one of
// files/authorizeUpload or files/authorizeDownload with an ID (a
// notification of either goes on, to be ignored as any unknown one).
// Only a message that names either method is decoded.
func authorizeRequest(msg []byte) (rpcRequest, bool) {
	var m rpcRequest
	if !bytes.Contains(msg, []byte(`files/authorize`)) || json.Unmarshal(msg, &m) != nil {
		return m, false
	}
	if m.Method != transfer.MethodAuthorizeUpload && m.Method != transfer.MethodAuthorizeDownload {
		return m, false
	}
	return m, len(m.ID) > 0 && string(m.ID) != "null"
}

// meta returns the _meta of the request's params, nil for none.
func (m rpcRequest) meta() json.RawMessage {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil || string(p.Meta) == "null" {
		return nil
	}
	return p.Meta
}

// serveAuthorize answers m, the request r whose transport mcp-go's h
// accepted as a ping.
func (f *Files) serveAuthorize(w http.ResponseWriter, r *http.Request, h http.Handler, m rpcRequest) {
	meta := m.meta()
	// The generation, as mcp-go tells it: by the header or _meta (which
	// mcp-go then holds to agree), read as mcp-go reads it (its exact key,
	// not a struct field's any case).
	var mv *mcp.Meta
	if meta != nil && json.Unmarshal(meta, &mv) != nil {
		mv = nil
	}
	modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) || mcp.IsModernProtocol(mv.ProtocolVersion())
	if !pingAccepted(w, r, h, m, modern) {
		return
	}
	var sid string
	if !modern {
		sid = r.Header.Get("Mcp-Session-Id") // mcp-go has just checked it
	}
	from := f.sender(r.Context(), sid, metaFiles(meta))
	res, rerr := f.svc.Authorize(r.Context(), from, m.Method, m.Params)
	msg, status := response(m.ID, res, rerr)
	if modern && rerr != nil && rerr.Code == mcp.INVALID_PARAMS {
		status = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(msg)
}

// response is the JSON-RPC response with id of res, or of the error rerr,
// as a line, with its HTTP status.
func response(id json.RawMessage, res any, rerr *fileserve.Error) ([]byte, int) {
	type rpcError struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}
	out := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *rpcError       `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id, Result: res}
	if rerr != nil {
		out.Result = nil
		out.Error = &rpcError{rerr.Code, rerr.Message, rerr.Data}
	}
	b, err := json.Marshal(out)
	if err != nil { // a result is the transfer layer's own types
		b, _ = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   rpcError        `json:"error"`
		}{"2.0", id, rpcError{Code: mcp.INTERNAL_ERROR, Message: "internal error"}})
	}
	return append(b, '\n'), http.StatusOK
}

// metaFiles returns the files capability in the client capabilities of
// a request's _meta (2026-07-28), nil for none.
func metaFiles(meta json.RawMessage) any {
	if meta == nil {
		return nil
	}
	var m mcp.Meta
	if json.Unmarshal(meta, &m) != nil {
		return nil
	}
	return clientFiles(context.Background(), &m)
}

// pingAccepted hands r, the request m, to mcp-go's h as a ping with m's
// ID and _meta (on 2026-07-28, which has no ping, as server/discover, its
// like), and reports whether h accepted it; when it did not, h's answer
// is written to w.
func pingAccepted(w http.ResponseWriter, r *http.Request, h http.Handler, m rpcRequest, modern bool) bool {
	method := mcp.MethodPing
	if modern {
		method = mcp.MethodServerDiscover
	}
	ping := map[string]any{"jsonrpc": "2.0", "id": m.ID, "method": method}
	if meta := m.meta(); meta != nil {
		ping["params"] = map[string]any{"_meta": meta}
	}
	body, err := json.Marshal(ping)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return false
	}
	pr := r.Clone(r.Context())
	pr.Body = io.NopCloser(bytes.NewReader(body))
	pr.ContentLength = int64(len(body))
	if pr.Header.Get(mcp.HeaderMethod) == m.Method { // else mcp-go refuses the mismatch
		pr.Header.Set(mcp.HeaderMethod, string(method))
	}
	pr.Header.Del(mcp.HeaderName)
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, pr)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if rec.status == http.StatusOK && pingResult(rec.body.Bytes()) {
		// The headers mcp-go's CORS option set for the request hold for
		// the answer too.
		for k, v := range rec.header {
			if strings.HasPrefix(k, "Access-Control-") || k == "Vary" {
				w.Header()[k] = v
			}
		}
		return true
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	w.Write(rec.body.Bytes())
	return false
}

// pingResult reports whether b, mcp-go's answer to a ping, as JSON or as
// one server-sent event, is a result.
func pingResult(b []byte) bool {
	if i := bytes.Index(b, []byte("data:")); i >= 0 && !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		b = b[i+len("data:"):]
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			b = b[:j]
		}
	}
	var res struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(b, &res) == nil && res.Result != nil && res.Error == nil
}

// recorder is the http.ResponseWriter of the ping.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

func (r *recorder) Flush() {}
