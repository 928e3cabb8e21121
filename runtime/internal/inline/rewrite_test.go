package inline_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	_ "github.com/mcpfile/mcpfile/runtime/mcpfileimpl" // sets inline.Decode
)

// files is a connection with a tool "t" whose argument "f" takes a text
// file of up to 1 MiB, and "h" an array of them.
func files(t testing.TB) inline.Conn {
	const file = `{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain"],"maxSize":1048576}}`
	d, err := descriptor.For(json.RawMessage(`{"type":"object","properties":{"f":` + file + `,"h":{"type":"array","items":` + file + `}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return inline.Conn{Files: func(tool string) map[string]*descriptor.Prop {
		if tool == "t" {
			return d.Props
		}
		return nil
	}}
}

var (
	bigURI = `"data:text/plain;base64,` + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("text\n"), 2000)) + `"`
	// Large enough to be decoded in several blocks, padded, refused for its content.
	hugeURI    = `"data:text/plain;base64,` + base64.StdEncoding.EncodeToString(append(bytes.Repeat([]byte("text\n"), 20000), 'x')) + `"`
	refusedURI = strings.Replace(hugeURI, "text/plain", "image/png", 1)
	// Bad base64 in its last block.
	badURI = hugeURI[:len(hugeURI)-100] + "!" + hugeURI[len(hugeURI)-99:]
)

// metaKeys returns the values of MetaKey in the params._meta of the
// message (or of each message of a batch) b.
func metaKeys(t *testing.T, b []byte) []any {
	t.Helper()
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(b, &msgs); err != nil {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return nil // not a message
		}
		msgs = append(msgs, m)
	}
	var keys []any
	for _, m := range msgs {
		// Exact keys, as the go-sdk matches them.
		var p map[string]json.RawMessage
		_ = json.Unmarshal(m["params"], &p)
		var meta map[string]any
		_ = json.Unmarshal(p["_meta"], &meta)
		if v, ok := meta[inline.MetaKey]; ok {
			keys = append(keys, v)
		}
	}
	return keys
}

// TestRewriteCleans: a scope key a client wrote into a params._meta is
// removed from any message, wherever it is in _meta and however its key
// is escaped, and the rest of the message is kept; a message without
// one, which the fast path does not take, is returned as it is.
func TestRewriteCleans(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"only member", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.mcpfile/inline":"k"}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}`},
		{"first", `{"id":1,"method":"x","params":{"_meta":{"io.mcpfile/inline":"k","a":1}}}`, `{"id":1,"method":"x","params":{"_meta":{"a":1}}}`},
		{"last", `{"id":1,"method":"x","params":{"_meta":{"a":1, "io.mcpfile/inline":"k"}}}`, `{"id":1,"method":"x","params":{"_meta":{"a":1}}}`},
		{"escaped", `{"id":1,"method":"x","params":{"_meta":{"a":[1],"io.mcpfile\/inline":"k","b":{}}}}`, `{"id":1,"method":"x","params":{"_meta":{"a":[1],"b":{}}}}`},
		{"unicode escape", `{"id":1,"method":"x","params":{"_meta":{"io.mcpfile\u002finline":"k"}}}`, `{"id":1,"method":"x","params":{"_meta":{}}}`},
		{"repeated", `{"id":1,"method":"x","params":{"_meta":{"io.mcpfile/inline":"k","io.mcpfile/inline":"j"}}}`, `{"id":1,"method":"x","params":{"_meta":{}}}`},
		{"repeated _meta", `{"id":1,"method":"x","params":{"_meta":{"io.mcpfile/inline":"k"},"_meta":{"io.mcpfile/inline":"j"}}}`,
			`{"id":1,"method":"x","params":{"_meta":{},"_meta":{}}}`},
		{"repeated params", `{"id":1,"params":{"_meta":{"io.mcpfile/inline":"k"}},"method":"tools/call","params":{"_meta":{"io.mcpfile/inline":"j"}}}`,
			`{"id":1,"params":{"_meta":{}},"method":"tools/call","params":{"_meta":{}}}`},
		{"batch", `[{"id":1,"method":"x","params":{"_meta":{"io.mcpfile/inline":"k"}}},{"method":"y"}]`, `[{"id":1,"method":"x","params":{"_meta":{}}},{"method":"y"}]`},
		{"tools/call declined", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":"https://x"},"_meta":{"io.mcpfile/inline":"k"}}}`,
			`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":"https://x"},"_meta":{}}}`},
		{"elsewhere", `{"id":1,"method":"x","params":{"a":{"_meta":{"io.mcpfile/inline":"k"}}}}`, ""},
		{"malformed", `{"id":1,"method":"x","params":{"_meta":{"io.mcpfile/inline":"k"}}`, ""},
		{"not an object", `"io.mcpfile/inline"`, ""},
	} {
		out, sc, _ := inline.Rewrite([]byte(tt.in), files(t))
		sc.Close()
		want := tt.want
		if want == "" {
			want = tt.in
			if &out[0] != &[]byte(tt.in)[0] && string(out) != tt.in {
				t.Errorf("%s: Rewrite(%s) = %s, want it unchanged", tt.name, tt.in, out)
			}
			continue
		}
		if string(out) != want || sc != nil {
			t.Errorf("%s: Rewrite(%s) = %s (scope %v), want %s", tt.name, tt.in, out, sc != nil, want)
		}
	}
}

// TestRewriteCall: a tools/call whose file decodes reaches the SDK with a
// reference in its place and its scope key in _meta, beside the members
// the client wrote there, a key of its own removed; one the fast path
// does not take is left alone.
func TestRewriteCall(t *testing.T) {
	held := inline.Held()
	for _, tt := range []struct {
		name, in string
		take     bool
	}{
		{"no _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `}}}`, true},
		{"_meta", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"_meta":{"progressToken":3,"io.mcpfile/inline":"k"},"name":"t","arguments":{"f":` + bigURI + `,"g":1}}}`, true},
		{"white space", " {\"id\" : 1 ,\n\"method\":\"tools/call\",\"params\":{ \"name\":\"t\",\"arguments\":{ \"f\" : " + bigURI + " } } }\r\n", true},
		{"small file", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":"data:,x"}}}`, false},
		{"other tool", `{"id":1,"method":"tools/call","params":{"name":"u","arguments":{"f":` + bigURI + `}}}`, false},
		{"escaped key", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"\u0066":` + bigURI + `}}}`, false},
		{"repeated key", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `,"f":` + bigURI + `}}}`, false},
		{"refused", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + strings.Replace(bigURI, "text/plain", "image/png", 1) + `}}}`, false},
		{"no id", `{"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `}}}`, false},
		{"null id", `{"id":null,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `}}}`, false},
		{"repeated method", `{"id":1,"method":"tools/call","method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `}}}`, false},
		{"escaped method", `{"id":1,"method":"tools\/call","params":{"name":"t","arguments":{"f":` + bigURI + `}}}`, false},
		{"_meta not an object", `{"id":1,"method":"tools/call","params":{"_meta":null,"name":"t","arguments":{"f":` + bigURI + `}}}`, false},
		{"batch", `[{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `}}}]`, false},
		{"array", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"h":[` + hugeURI + `,` + bigURI + `]}}}`, true},
		// Files decoded in place, then another refused: the message goes
		// to the SDK as it came.
		{"refused after", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + hugeURI + `,"h":[` + bigURI + `,` + refusedURI + `]}}}`, false},
		{"refused item", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"h":[` + hugeURI + `,` + bigURI + `,"data:,x",1]}}}`, false},
		{"refused before", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"h":[` + refusedURI + `],"f":` + hugeURI + `}}}`, false},
		{"bad base64 after", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `,"h":[` + badURI + `]}}}`, false},
		// Escapes and bytes the quick walk leaves to the base64 decoder:
		// what the careful walk takes is taken, what it declines declined.
		{"escaped header", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + strings.Replace(bigURI, "text/plain", `text\/plain`, 1) + `}}}`, true},
		{"escaped slash in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, 100, `\/`) + `}}}`, false},
		{"unicode escape in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + strings.Replace(bigURI, "dAp0", `d\u0041p0`, 3) + `}}}`, true},
		{"escaped line break in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, 76, `\r\n`) + `}}}`, true},
		{"backslash in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, 100, `\\`) + `}}}`, false},
		{"escaped quote in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, 100, `\"`) + `}}}`, false},
		{"escaped quote at the end", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, -1, `\"`) + `}}}`, false},
		{"escaped backslash at the end", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, -1, `\\`) + `}}}`, false},
		{"control byte in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, 100, "\x01") + `}}}`, false},
		// Raw line breaks are control bytes, which JSON text may not hold:
		// the message goes to the SDK as it came, which refuses it.
		{"raw line break in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, 76, "\r\n\r\n") + `}}}`, false},
		{"raw line break late in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(hugeURI, 100000, "\n") + `}}}`, false},
		{"non-ASCII in payload", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(bigURI, 100, "é") + `}}}`, false},
		{"control byte in another argument", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `,"g":"a\x01b"}}}`, false},
		{"control byte in another argument first", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"g":"a\tb","f":` + bigURI + `}}}`, true},
		{"escaped quote in another argument", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"g":"a\"b\\","f":` + bigURI + `,"k":"\\"}}}`, true},
		{"bad escape in another argument", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `,"g":"\x"}}}`, false},
	} {
		in := []byte(tt.in)
		out, sc, _ := inline.Rewrite(in, files(t))
		keys := metaKeys(t, out)
		if !tt.take {
			if sc != nil || strings.Contains(string(out), inline.Scheme) || len(keys) != 0 {
				t.Errorf("%s: taken: %.300s", tt.name, out)
			}
			if string(in) != tt.in || string(out) != tt.in {
				t.Errorf("%s: declined, but the message changed", tt.name)
			}
			continue
		}
		if sc == nil || len(keys) != 1 || strings.Count(string(out), inline.Scheme) != strings.Count(tt.in, "data:") || len(out) > 500 {
			t.Errorf("%s: not taken: scope %v, keys %v, %.300s", tt.name, sc != nil, keys, out)
		}
		if keys[0] == "k" || !json.Valid(out) || (strings.Contains(tt.in, "progressToken") && !strings.Contains(string(out), `"progressToken":3`)) {
			t.Errorf("%s: %s", tt.name, out)
		}
		if n := strings.Count(tt.in, "data:"); inline.Held() != held+n {
			t.Errorf("%s: %d references held, want %d", tt.name, inline.Held(), held+n)
		}
		sc.Close()
		if inline.Held() != held {
			t.Errorf("%s: %d references held after Close, want %d", tt.name, inline.Held(), held)
		}
	}
}

// withPayload returns the JSON string uri with s inserted at byte i of
// its base64 payload (i < 0: at its end).
func withPayload(uri string, i int, s string) string {
	at := strings.IndexByte(uri, ',') + 1 + i
	if i < 0 {
		at = len(uri) - 1
	}
	return uri[:at] + s + uri[at:]
}

// TestRewriteQuick: the quick walk, which leaves the checks of a file's
// base64 text to the decoder, reads every message as the careful walk
// does (see rewriteBoth), whatever escape or byte a data: URI holds, in
// a call's arguments or in the answers of its inputResponses.
func TestRewriteQuick(t *testing.T) {
	c := files(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v"}, nil)
	inline.RecordForm(inline.Bind(context.Background(), s, nil, "t"), "file", formSchema, formFiles(t))
	c.Forms = inline.ToolForms(s)
	inserts := []string{`\/`, `\u0041`, `\\`, `\"`, `\n`, "\x00", "\x1f", "\n", "é", "\xff", `"`, `=`, `!`, " "}
	for _, uri := range []string{bigURI, hugeURI} {
		for _, ins := range inserts {
			for _, at := range []int{0, 1, 100, 75000, -1} {
				if at > len(uri)-30 {
					continue
				}
				u := withPayload(uri, at, ins)
				rewriteBoth(t, []byte(`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":`+u+`}}}`), c)
				rewriteBoth(t, []byte(`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":`+bigURI+`,"h":[`+u+`]}}}`), c)
				rewriteBoth(t, []byte(`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"g":"`+ins+`","f":`+uri+`}}}`), c)
				rewriteBoth(t, []byte(`{"id":2,"method":"tools/call","params":{"name":"t","arguments":{},"inputResponses":{"file":{"action":"accept","content":{"f":`+u+`,"n":1}}}}}`), c)
			}
			h := strings.Replace(uri, "text/plain", "text/pl"+ins+"ain", 1)
			rewriteBoth(t, []byte(`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":`+h+`}}}`), c)
		}
	}
}

// rewriteBoth checks that Rewrite reads msg, from a connection without
// elicitations, as it does when every walk is careful: the same message
// for the SDK (references and keys aside), the same scope made or not,
// the same id, and msg left the same.
func rewriteBoth(t testing.TB, msg []byte, c inline.Conn) {
	t.Helper()
	c.Asked = nil
	quick, careful := bytes.Clone(msg), bytes.Clone(msg)
	outQ, scQ, idQ := inline.Rewrite(quick, c)
	defer scQ.Close()
	restore := inline.SetCareful(true)
	outC, scC, idC := inline.Rewrite(careful, c)
	restore()
	defer scC.Close()
	mask := func(b []byte) string { return tokens.ReplaceAllString(string(b), "T") }
	if (scQ == nil) != (scC == nil) || mask(outQ) != mask(outC) || !bytes.Equal(idQ, idC) || !bytes.Equal(quick, careful) {
		t.Fatalf("Rewrite(%.300q):\nquick   (scope %v) %.300q\ncareful (scope %v) %.300q", msg, scQ != nil, outQ, scC != nil, outC)
	}
	// Read in pieces, its long runs of base64 decoded as they came: the
	// same again, and the same files.
	for _, whole := range []bool{true, false} {
		small, sp := splice(msg, whole)
		if len(sp) == 0 {
			break
		}
		outS, scS, idS := inline.RewriteSpliced(small, sp, c)
		if (scQ == nil) != (scS == nil) || mask(outQ) != mask(outS) || !bytes.Equal(idQ, idS) {
			t.Fatalf("RewriteSpliced(%.300q, %d splices):\n%.300q (scope %v)\nRewrite: %.300q (scope %v)", small, len(sp), outS, scS != nil, outQ, scQ != nil)
		}
		if scS != nil && scopeFiles(scS) != scopeFiles(scQ) {
			t.Fatalf("RewriteSpliced(%.300q): not the files Rewrite took", small)
		}
		scS.Close()
	}
}

// splice returns msg as if read in pieces, each run of base64 after
// ";base64," of 8 characters or more decoded as it came (see
// inline.Reading): its whole groups, or when not whole all but the last
// one or two.
func splice(msg []byte, whole bool) (small []byte, sp []inline.Splice) {
	at := 0
	for {
		i := bytes.Index(msg[at:], []byte(";base64,"))
		if i < 0 {
			return append(small, msg[at:]...), sp
		}
		start := at + i + len(";base64,")
		end := start
		for end < len(msg) && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", msg[end]) >= 0 {
			end++
		}
		n := (end - start) / 4 * 4
		if !whole {
			n -= 4 * ((end - start) % 3)
		}
		small = append(small, msg[at:start]...)
		at = start
		if n < 8 {
			continue
		}
		b, err := base64.RawStdEncoding.DecodeString(string(msg[start : start+n]))
		if err != nil {
			panic(err)
		}
		sp = append(sp, inline.Splice{At: len(small), Bytes: append(make([]byte, 0, len(b)+3), b...)})
		at = start + n
	}
}

// scopeFiles returns the arguments and bytes of the files of sc's
// references, in the order they were made.
func scopeFiles(sc *inline.Scope) string {
	var b strings.Builder
	for _, f := range inline.ScopeFiles(sc) {
		fmt.Fprintf(&b, "%s=%x;", f.Arg, f.File.(interface{ Bytes() []byte }).Bytes())
	}
	return b.String()
}

// tokens matches the random part of references and scope keys.
var tokens = regexp.MustCompile(`[A-Z2-7]{26}`)

// FuzzRewrite: whatever a client sends, Rewrite returns well-formed JSON
// for well-formed JSON, and no scope key but the one it made reaches the
// SDK; it makes references only for a call's scope or the answer to the
// elicitation asked (request id 1), which the answer's do not outlive;
// and a message from which it takes no file is left as it came (a file
// is decoded in place only in a message taken).
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `},"_meta":{"io.mcpfile/inline":"k"}}}`,
		`{"id":1,"method":"x","params":{"_meta":{"a":1,"io.mcpfile\/inline":"k"}}}`,
		`[{"id":1,"method":"x","params":{"_meta":{"io.mcpfile/inline":"k"}}},{}]`,
		`{"id":"a","method":"tools/call","params":{"name":"t","arguments":{"f":"data:,x"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{},"inputResponses":{"file":` + accepted + `}}}`,
		`{"jsonrpc":"2.0","id":1,"result":` + accepted + `}`,
		`{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"f":"data:,x"}}}`,
		`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `,"h":[` + bigURI + `,"data:,x"]}}}`,
		`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"h":[` + bigURI + `,` + strings.Replace(bigURI, "dGV4", "dGV=", 1) + `]}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"f":` + bigURI + `,"n":1,"f":1}}}`,
	} {
		f.Add([]byte(s))
	}
	tools := files(f)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v"}, nil)
	inline.RecordForm(inline.Bind(context.Background(), s, nil, "t"), "file", formSchema, formFiles(f))
	tools.Forms = inline.ToolForms(s)
	tools.Asked = inline.NewAsked()
	f.Fuzz(func(t *testing.T, b []byte) {
		held := inline.Held()
		el := inline.Ask(formFiles(t))
		tools.Asked.Sent("", request(el, "1"))
		in := bytes.Clone(b)
		out, sc, _ := inline.Rewrite(b, tools)
		defer sc.Close()
		taken := inline.Held() > held
		el.Close()
		if n := inline.Held() - held; (sc == nil && n != 0) || (sc != nil && n == 0) {
			t.Fatalf("Rewrite(%.300s): %d references held once the elicitation is closed, scope made: %v", in, n, sc != nil)
		}
		// A file is decoded in place only in a message taken.
		if !taken && !bytes.Equal(b, in) {
			t.Fatalf("Rewrite(%.300s) took nothing, but changed the message", in)
		}
		rewriteBoth(t, in, tools)
		if !json.Valid(in) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Rewrite(%s) = %s: not JSON", in, out)
		}
		if keys := metaKeys(t, out); len(keys) > 1 || (len(keys) == 1) != (sc != nil) {
			t.Fatalf("Rewrite(%s) = %s: scope keys %v, scope made: %v", in, out, keys, sc != nil)
		}
	})
}

// BenchmarkRewrite times Rewrite alone on a tools/call with a text file
// of 1 and 20 MiB (the walk, the checks and the decoding in place; the
// copy of the message each call decodes into is not timed): walk=quick
// as Rewrite walks, walk=careful as it walks again when the quick walk
// may have read a string wrong, scanning every string to its end, its
// escapes and characters checked, before the decoder reads it (to
// compare: benchstat -col /walk).
func BenchmarkRewrite(b *testing.B) {
	c := files(b)
	for _, mib := range []int{1, 20} {
		data := bytes.Repeat([]byte("text\n"), mib<<20/5)
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":"data:text/plain;base64,` + base64.StdEncoding.EncodeToString(data) + `","g":"x"}}}`)
		for _, walk := range []string{"quick", "careful"} {
			b.Run(fmt.Sprintf("size=%dMiB/walk=%s", mib, walk), func(b *testing.B) {
				defer inline.SetCareful(walk == "careful")()
				c := c
				c.Files = func(string) map[string]*descriptor.Prop {
					p := *files(b).Files("t")["f"]
					p.File.MaxSize = 32 << 20
					return map[string]*descriptor.Prop{"f": &p}
				}
				buf := make([]byte, len(msg))
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					b.StopTimer()
					copy(buf, msg)
					b.StartTimer()
					_, sc, _ := inline.Rewrite(buf, c)
					if sc == nil {
						b.Fatal("not taken")
					}
					sc.Close()
				}
			})
		}
	}
}

// TestRewriteSplicedTakes: a message read through a Reading, in pieces of
// any size, whose long files were decoded as it came, is taken as it is:
// each file's bytes are its splice's, not those of the message expanded
// again, and they are the file's. A message whose splices the fast path
// cannot take is taken, or declined, as it came.
func TestRewriteSplicedTakes(t *testing.T) {
	c := files(t)
	c.Files = func(tool string) map[string]*descriptor.Prop {
		if tool != "t" {
			return nil
		}
		ps := files(t).Files("t")
		for _, p := range ps {
			p.File.MaxSize = 8 << 20
		}
		return ps
	}
	long := bytes.Repeat([]byte("text\n"), 100000)
	longURI := func(b []byte) string { return `"data:text/plain;base64,` + base64.StdEncoding.EncodeToString(b) + `"` }
	for _, tt := range []struct {
		name, in string
		take     bool
		splices  int // taken as they were read
	}{
		{"one file", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + longURI(long) + `}}}`, true, 1},
		{"padded", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + longURI(long[1:]) + `,"g":"x"}}}`, true, 1},
		{"array", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"h":[` + longURI(long) + `,` + bigURI + `,` + longURI(long[2:]) + `]}}}`, true, 2},
		{"answer", `{"id":2,"method":"tools/call","params":{"name":"t","arguments":{},"inputResponses":{"file":{"action":"accept","content":{"f":` + longURI(long) + `}}}}}`, true, 1},
		{"another tool", `{"id":1,"method":"tools/call","params":{"name":"u","arguments":{"f":` + longURI(long) + `}}}`, false, 0},
		{"not a file", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + bigURI + `,"g":` + longURI(long) + `}}}`, true, 0},
		{"refused after", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + longURI(long) + `,"h":[` + refusedURI + `]}}}`, false, 0},
		{"escape after", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + withPayload(longURI(long), 200000, `\/`) + `}}}`, false, 0},
		{"unicode escape after", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + escapeAt(longURI(long), 200000) + `}}}`, true, 0},
		{"too large", `{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":` + longURI(bytes.Repeat(long, 20)) + `}}}`, false, 0},
	} {
		for _, piece := range []int{1000, 1 << 20} {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v"}, nil)
			inline.RecordForm(inline.Bind(context.Background(), s, nil, "t"), "file", formSchema, formFiles(t))
			c.Forms = inline.ToolForms(s)
			m := inline.NewReading()
			for in := []byte(tt.in); len(in) > 0; {
				k := min(piece, len(in))
				m.Write(in[:k])
				in = in[k:]
			}
			msg, sp := m.Done()
			if len(sp) == 0 {
				t.Fatalf("%s: %d splices, a message of %d bytes", tt.name, len(sp), len(msg))
			}
			out, sc, _ := inline.RewriteSpliced(msg, sp, c)
			if (sc != nil) != tt.take {
				t.Errorf("%s: taken %v, want %v: %.300s", tt.name, sc != nil, tt.take, out)
			}
			if !tt.take && string(out) != tt.in {
				t.Errorf("%s: declined, but not as it came", tt.name)
			}
			if !tt.take {
				continue
			}
			// The files are those the message as it came gives, and as many
			// of them as want are the splices' own bytes.
			want, scW, _ := inline.Rewrite([]byte(tt.in), c)
			if tokens.ReplaceAllString(string(out), "T") != tokens.ReplaceAllString(string(want), "T") || scopeFiles(sc) != scopeFiles(scW) {
				t.Errorf("%s: not what the message as it came gives: %.300s", tt.name, out)
			}
			scW.Close()
			own := 0
			for _, f := range inline.ScopeFiles(sc) {
				b := f.File.(interface{ Bytes() []byte }).Bytes()
				for _, s := range sp {
					if len(b) > 0 && &b[0] == &s.Bytes[0] {
						own++
					}
				}
			}
			if own != tt.splices {
				t.Errorf("%s, pieces of %d: %d files are their splice's bytes, want %d", tt.name, piece, own, tt.splices)
			}
			sc.Close()
		}
	}
}

// escapeAt returns the JSON string uri with byte i of its payload written
// as a \u escape.
func escapeAt(uri string, i int) string {
	at := strings.IndexByte(uri, ',') + 1 + i
	return uri[:at] + fmt.Sprintf(`\u%04X`, uri[at]) + uri[at+1:]
}

// TestRewriteSplicedDeclinesAsItCame: a message read through a Reading
// that the fast path does not walk as a message (not an object, or a batch
// it cannot walk) goes on as it came, its splices expanded: else the SDK
// would get the message without the base64 it decoded.
func TestRewriteSplicedDeclinesAsItCame(t *testing.T) {
	run := strings.Repeat("QUJD", inline.SpliceMin/4+10)
	for _, in := range []string{
		`"data:text/plain;base64,` + run + `"`,
		`x;base64,` + run,
		`[{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":"data:text/plain;base64,` + run + `"}}}`,
		`[{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":"data:text/plain;base64,` + run + `"}}}]x`,
	} {
		m := inline.NewReading()
		m.Write([]byte(in))
		msg, sp := m.Done()
		if len(sp) == 0 {
			t.Fatalf("%.40q: no splice", in)
		}
		out, sc, _ := inline.RewriteSpliced(msg, sp, files(t))
		sc.Close()
		if string(out) != in {
			t.Errorf("RewriteSpliced(%.40q...): %d bytes, not the %d that came", in, len(out), len(in))
		}
	}
}
