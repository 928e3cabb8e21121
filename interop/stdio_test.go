package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

// stdioServer is an example server on the other end of two pipes, spoken to
// line by line.
type stdioServer struct {
	in    io.WriteCloser
	lines chan []byte // stdout, a line at a time; closed at EOF
	next  int
}

func startStdio(t *testing.T, bin string) *stdioServer {
	t.Helper()
	cmd := exec.Command(bin)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	s := &stdioServer{in: in, lines: make(chan []byte, 16)}
	go func() {
		defer close(s.lines)
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			b, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			s.lines <- b
		}
	}()
	if o := s.send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`, rawProtocol), true); o.rpcErr != nil || o.raw == nil {
		t.Fatalf("stdio initialize: %s", o)
	}
	s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), false)
	s.next = 1
	return s
}

// send writes one line and, if wait, reads the next response line (at most 10 s).
func (s *stdioServer) send(line []byte, wait bool) outcome {
	done := make(chan error, 1)
	go func() {
		_, err := s.in.Write(append(line, '\n'))
		done <- err
	}()
	if !wait {
		return outcome{err: <-done}
	}
	select {
	case b, ok := <-s.lines:
		if !ok {
			return outcome{err: fmt.Errorf("the server closed stdout (session over)")}
		}
		var o outcome
		o.parse(bytes.TrimSpace(b))
		return o
	case <-time.After(10 * time.Second):
		return outcome{err: fmt.Errorf("no answer in 10 s")}
	}
}

func (s *stdioServer) call(tool string, args []byte) []byte {
	s.next++
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, s.next, tool, args)
}

// TestHostileStdio sends malformed and oversized lines to describe_image
// over stdio, each on a fresh process and followed by a valid call, and
// prints what came back (go test -v). A framing error ends a go-sdk stdio
// session; that is recorded, not judged.
func TestHostileStdio(t *testing.T) {
	bin := buildExamples(t)["describe_image"]
	png := pngFile(20, 20)
	valid := func(s *stdioServer) []byte {
		b, _ := json.Marshal(map[string]string{"image": dataURI("image/png", png)})
		return s.call(describeimage.Tool.Name, b)
	}
	// The command's line limit: its request limit, at least the go-sdk's default.
	limit := int(max(serve.RequestLimit(describeimage.NewServer(describeimage.Options{}), serve.Options{}), mcp.DefaultMaxLineLength))

	type row struct{ name, got, after string }
	var rows []row
	for _, c := range []struct {
		name string
		line func(s *stdioServer) []byte
	}{
		{"malformed JSON line (a stray bracket)", func(*stdioServer) []byte { return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{]}`) }},
		{"deeply nested JSON (100000 arrays) as the file argument", func(s *stdioServer) []byte {
			return s.call(describeimage.Tool.Name, []byte(`{"image":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`))
		}},
		{"invalid UTF-8 in the media type", func(s *stdioServer) []byte {
			return s.call(describeimage.Tool.Name, []byte(`{"image":"data:image/p`+"\xff"+`ng;base64,iVBORw0KGgo="}`))
		}},
		{fmt.Sprintf("line over the limit (%d bytes + 1 MiB)", limit), func(s *stdioServer) []byte {
			return s.call(describeimage.Tool.Name, []byte(`{"image":"data:image/png;base64,`+strings.Repeat("A", limit+1<<20)+`"}`))
		}},
	} {
		s := startStdio(t, bin)
		o := s.send(c.line(s), true)
		after := s.send(valid(s), true)
		afterText := after.String()
		if after.result != nil && !after.result.IsError && bytes.Contains(after.raw, []byte(sha256Hex(png))) {
			afterText = "served correctly"
		}
		rows = append(rows, row{c.name, o.String(), afterText})
		if strings.HasPrefix(c.name, "invalid UTF-8") && (o.result == nil || !o.result.IsError || afterText != "served correctly") {
			t.Errorf("%s: want an isError result and the session going on; got %s, then %s", c.name, o, afterText)
		}
	}
	var b strings.Builder
	b.WriteString("\n| stdio case | what came back | the next valid call on the same session |\n| --- | --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.name, strings.ReplaceAll(r.got, "|", `\|`), strings.ReplaceAll(r.after, "|", `\|`))
	}
	t.Log(b.String())
}
