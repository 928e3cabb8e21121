package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// A RawClient sends JSON-RPC messages built beforehand and reads the
// answers as bytes: a client that costs next to nothing, so that a
// benchmark times the server, whatever it is written in. It speaks
// protocol 2025-11-25, which every server of the benchmarks speaks.
// Calls are made one at a time.
type RawClient struct {
	call  func(msg []byte) ([]byte, error)
	close func() error
}

// RawProtocol is the protocol version a RawClient initializes with.
const RawProtocol = "2025-11-25"

// initialize is the first request of a RawClient, and initialized the
// notification that follows its answer.
const (
	initialize  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + RawProtocol + `","capabilities":{},"clientInfo":{"name":"raw","version":"v1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// initializeEliciting is initialize declaring form elicitation.
var initializeEliciting = strings.Replace(initialize, `"capabilities":{}`, `"capabilities":{"elicitation":{"form":{}}}`, 1)

// A RawAnswer answers every elicitation/create request of the server with
// one result, built beforehand: a RawClient made with it declares form
// elicitation.
type RawAnswer struct {
	result []byte
	buf    []byte
}

// NewRawAnswer returns a RawAnswer whose result is an accepted form with
// content.
func NewRawAnswer(content any) *RawAnswer {
	b, err := json.Marshal(map[string]any{"action": "accept", "content": content})
	if err != nil {
		panic(err)
	}
	return &RawAnswer{result: b}
}

// to returns the response to msg, when it is an elicitation/create
// request, and nil otherwise. The response is valid until the next call.
func (a *RawAnswer) to(msg []byte) []byte {
	if a == nil || !bytes.Contains(msg, []byte(`"method":"elicitation/create"`)) {
		return nil
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &req) != nil || req.ID == nil {
		return nil
	}
	a.buf = append(append(append(append(a.buf[:0], `{"jsonrpc":"2.0","id":`...), req.ID...), `,"result":`...), a.result...)
	a.buf = append(a.buf, '}')
	return a.buf
}

// RawStdio returns a RawClient of the server that reads r (its standard
// output) and writes w (its standard input), initialized.
func RawStdio(r io.Reader, w io.WriteCloser) (*RawClient, error) {
	return RawStdioAnswering(r, w, nil)
}

// RawStdioAnswering is [RawStdio] with the server's elicitation/create
// requests answered with a (nil: none are).
func RawStdioAnswering(r io.Reader, w io.WriteCloser, a *RawAnswer) (*RawClient, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	send := func(msg []byte) error {
		_, err := w.Write(append(msg, '\n'))
		return err
	}
	c := &RawClient{
		call: func(msg []byte) ([]byte, error) {
			if err := send(msg); err != nil {
				return nil, err
			}
			for {
				line, err := br.ReadBytes('\n')
				if err != nil {
					return nil, err
				}
				if ans := a.to(line); ans != nil {
					if err := send(ans); err != nil {
						return nil, err
					}
					continue
				}
				if bytes.Contains(line, []byte(`"id"`)) { // not a notification
					return line, nil
				}
			}
		},
		close: w.Close,
	}
	init := initialize
	if a != nil {
		init = initializeEliciting
	}
	if _, err := c.call([]byte(init)); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := send([]byte(initialized)); err != nil {
		return nil, err
	}
	return c, nil
}

// RawHTTP returns a RawClient of the streamable HTTP endpoint url,
// initialized, in a session when the server makes one.
func RawHTTP(url string) (*RawClient, error) {
	return RawHTTPAnswering(url, nil)
}

// RawHTTPAnswering is [RawHTTP] with the server's elicitation/create
// requests, in the event stream of a call, answered with a (nil: none
// are), each in a request of its own.
func RawHTTPAnswering(url string, a *RawAnswer) (*RawClient, error) {
	var session string
	var post func(msg []byte) ([]byte, *http.Response, error)
	post = func(msg []byte) ([]byte, *http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(msg))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", RawProtocol)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer res.Body.Close()
		if a != nil && res.StatusCode == http.StatusOK && strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			// Read event by event, answering the server's requests, until
			// the response.
			br := bufio.NewReaderSize(res.Body, 1<<20)
			for {
				line, err := br.ReadBytes('\n')
				if err != nil {
					return nil, res, err
				}
				data, ok := bytes.CutPrefix(line, []byte("data: "))
				if !ok {
					continue
				}
				if ans := a.to(data); ans != nil {
					if _, _, err := post(ans); err != nil {
						return nil, res, err
					}
					continue
				}
				if bytes.Contains(data, []byte(`"id"`)) {
					return data, res, nil
				}
			}
		}
		b, err := io.ReadAll(res.Body)
		if err == nil && res.StatusCode >= 300 {
			err = fmt.Errorf("%s: %.200s", res.Status, b)
		}
		return b, res, err
	}
	c := &RawClient{
		call: func(msg []byte) ([]byte, error) {
			b, _, err := post(msg)
			return b, err
		},
		close: func() error {
			http.DefaultClient.CloseIdleConnections()
			return nil
		},
	}
	init := initialize
	if a != nil {
		init = initializeEliciting
	}
	_, res, err := post([]byte(init))
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	session = res.Header.Get("Mcp-Session-Id")
	if _, _, err := post([]byte(initialized)); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return c, nil
}

// Call sends msg, a request, and returns the answer's bytes (over HTTP,
// the whole body, an event stream or JSON).
func (c *RawClient) Call(msg []byte) ([]byte, error) { return c.call(msg) }

// Close ends the client: over stdio, it closes the server's input.
func (c *RawClient) Close() error { return c.close() }

// RawCall returns a tools/call request of tool with args, as a RawClient
// sends it.
func RawCall(tool string, args any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		panic(err)
	}
	return b
}

// RawOK reports whether answer, a RawClient's, is a tool result without
// isError that holds want.
func RawOK(answer []byte, want string) bool {
	s := string(answer)
	return strings.Contains(s, `"result"`) && !strings.Contains(s, `"isError":true`) && strings.Contains(s, want)
}
