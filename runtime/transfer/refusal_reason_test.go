package transfer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestFileURIRefusalReasons: a server that refuses arguments as JSON-RPC
// errors (runtime.RefuseWithError) says in data.reason why a file URI
// names no file the caller may use, in the transfer layer's words
// (SEP-2631 §10's machine-readable details): expired, unauthorized
// (altered, another server's, another caller's), notFound (never
// uploaded), malformed, digestMismatch (replaced in the store). The
// message is the isError form's text, unchanged.
func TestFileURIRefusalReasons(t *testing.T) {
	st := memstore.New(nil)
	keys := testKeys(t)
	s := newSite(t, st, keys, true)
	runtime.SetRefusalForm(s.server, runtime.RefuseWithError)
	cs := s.connect(t)
	png := mcptest.PNG(t, 4, 4, false)
	anon := transfer.SessionOwner(cs.ID())
	host := strings.TrimPrefix(s.url, "http://")

	upload := func(cs *mcp.ClientSession, b []byte) string {
		t.Helper()
		res, err := authorize(t.Context(), cs, declare("f.png", "image/png", b))
		if err != nil {
			t.Fatal(err)
		}
		if code := send(t, res.Upload, b); code != http.StatusCreated {
			t.Fatalf("upload: %d", code)
		}
		return res.File.URI
	}
	good := upload(cs, png)
	altered := []byte(good)
	if altered[len(altered)-10] = 'A'; good[len(good)-10] == 'A' {
		altered[len(altered)-10] = 'B'
	}
	foreign, _ := keys.FileURI(token.FileRef{Host: "elsewhere.example", FileID: "file_X", Owner: anon, Expires: time.Now().Add(time.Hour)})
	authorized, err := authorize(t.Context(), cs, declare("never.png", "image/png", png))
	if err != nil {
		t.Fatal(err)
	}
	otherCaller := upload(s.connect(t), png)

	// A file replaced in the store behind the server's back: same id and
	// size, other bytes.
	replaced := upload(cs, png)
	ref, err := keys.ParseFileURI(replaced, anon, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(t.Context(), ref.FileID); err != nil {
		t.Fatal(err)
	}
	other := bytes.Clone(png)
	other[len(other)-1] ^= 0xff
	w, err := st.Create(t.Context(), ref.FileID, store.Meta{Size: int64(len(png)), MediaType: "image/png", Owner: anon})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(other)
	if err := w.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, uri, reason, text string
	}{
		{"altered", string(altered), transfer.ReasonUnauthorized, "this server did not issue it to this caller, or it was altered"},
		{"garbage", "mcp-file:garbage", transfer.ReasonMalformed, "it is not a file URI this server issued"},
		{"too long", "mcp-file://" + host + "/" + strings.Repeat("x", 600), transfer.ReasonMalformed, "bytes long, and the file URIs this server hands out are at most"},
		{"another server's", foreign, transfer.ReasonUnauthorized, "it was issued by another server"},
		{"another caller's", otherCaller, transfer.ReasonUnauthorized, "this server did not issue it to this caller"},
		{"never uploaded", authorized.File.URI, transfer.ReasonNotFound, "no upload has completed under it"},
		{"replaced", replaced, transfer.ReasonDigestMismatch, "the file stored under it is not the one it was issued for"},
	}
	call := func(uri string) (*jsonrpc.Error, transfer.ErrorData) {
		t.Helper()
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe", Arguments: map[string]any{"image": uri}})
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.Fatalf("describe: %v, want a JSON-RPC error", err)
		}
		var d transfer.ErrorData
		if err := json.Unmarshal(je.Data, &d); err != nil {
			t.Fatalf("data %s: %v", je.Data, err)
		}
		return je, d
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			je, d := call(c.uri)
			if je.Code != jsonrpc.CodeInvalidParams || d.Reason != c.reason {
				t.Errorf("code %d, data %s; want -32602 with reason %q", je.Code, je.Data, c.reason)
			}
			if !strings.HasPrefix(je.Message, "Argument 'image' is not a usable file URI: ") || !strings.Contains(je.Message, c.text) {
				t.Errorf("message %q, want the refusal's text, with %q", je.Message, c.text)
			}
		})
	}

	// Expired: two days later the URI is past its expiry.
	s.clock.Add(int64((48 * time.Hour).Seconds()))
	if je, d := call(good); d.Reason != transfer.ReasonExpired || !strings.Contains(je.Message, "it has expired") {
		t.Errorf("an expired URI: %q, data %s; want reason %q", je.Message, je.Data, transfer.ReasonExpired)
	}
}
