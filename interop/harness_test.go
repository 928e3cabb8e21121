package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/internal/prereq"
)

// examples are the example servers under test, by directory name under
// examples/. Each is stdio by default and streamable HTTP with -http ADDR.
var examples = []string{"describe_image", "compare_documents", "profile"}

// requireNode returns the node binary, and requires (prereq.Require: a
// failure under CI=true, else a skip that is reported) that it and the
// npm packages pinned by package-lock.json are installed.
func requireNode(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	prereq.Require(t, err == nil, "node",
		"install node 20 or later and put it on PATH; the TypeScript SDK and Inspector interop tests run it")
	for _, pkg := range []string{"@modelcontextprotocol/sdk", "@modelcontextprotocol/client", "@modelcontextprotocol/inspector-cli"} {
		_, err := os.Stat(filepath.Join("node_modules", pkg, "package.json"))
		prereq.Require(t, err == nil, "interop/node_modules/"+pkg, "run `npm ci --prefix interop` in the repository root")
	}
	return node
}

// The example servers, built once per test binary into binDir, which
// TestMain removes.
var (
	buildOnce sync.Once
	binDir    string
	bins      map[string]string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildExamples builds every example server (once) and returns their paths by name.
func buildExamples(t *testing.T) map[string]string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "mcpfile-interop-")
		if buildErr != nil {
			return
		}
		args := []string{"build", "-o", binDir + string(os.PathSeparator)}
		bins = map[string]string{}
		for _, name := range examples {
			args = append(args, "github.com/mcpfile/mcpfile/examples/"+name)
			bins[name] = filepath.Join(binDir, name)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bins
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// startHTTP starts bin with -http on a free loopback port and args, waits
// (at most 10 s) until it accepts connections and returns its URL. The
// process is killed when the test ends.
func startHTTP(t *testing.T, bin string, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, append([]string{"-http", addr}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("%s stderr:\n%s", filepath.Base(bin), stderr.String())
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr + "/"
		}
		select {
		case <-done:
			t.Fatalf("%s -http %s exited: %s", bin, addr, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s -http %s: not listening after 10s", bin, addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// plan is what client.mjs reads.
type plan struct {
	SDK       string   `json:"sdk"`                 // v1 or v2
	Negotiate string   `json:"negotiate,omitempty"` // v2: legacy, auto or a pinned version
	Transport string   `json:"transport"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	Elicit    []answer `json:"elicit,omitempty"`
	Steps     []step   `json:"steps"`
}

type answer struct {
	Action string `json:"action"`
	File   string `json:"file,omitempty"`
}

type step struct {
	Op        string         `json:"op"`
	Label     string         `json:"label,omitempty"`
	Name      string         `json:"name,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// nodeOut is what client.mjs prints.
type nodeOut struct {
	OK              bool
	Error           string
	Server          struct{ Name, Version string }
	ProtocolVersion string
	Steps           []struct {
		Label, Op string
		Result    json.RawMessage
		Error     *struct {
			Message string
			Code    any
		}
	}
	Elicitations []struct {
		Via    string // "elicitation/create" or "inputRequests"
		Raw    elicitParams
		Parsed elicitParams
	}
}

type elicitParams struct {
	Message         string
	RequestedSchema schema
}

// schema is the part of a JSON Schema these tests read.
type schema struct {
	Type       any                `json:"type"`
	Format     string             `json:"format"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	MaxItems   *int               `json:"maxItems"`
	File       *struct {
		Accept  []string `json:"accept"`
		MaxSize int64    `json:"maxSize"`
	} `json:"x-mcp-file"`
	Form json.RawMessage `json:"x-mcpfile-form"` // a file in a host's object
}

func (s *schema) is(typ string) bool {
	switch v := s.Type.(type) {
	case string:
		return v == typ
	case []any:
		for _, x := range v {
			if x == typ {
				return true
			}
		}
	}
	return false
}

type toolInfo struct {
	Name        string
	InputSchema schema
	Raw         json.RawMessage `json:"-"`
}

type callResult struct {
	Content []struct {
		Type, Text string
	}
	StructuredContent json.RawMessage
	IsError           bool
}

func (r callResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// runNode runs client.mjs with p and returns what it printed; it fails the
// test when the client could not run its plan.
func runNode(t *testing.T, node string, p plan) nodeOut {
	t.Helper()
	out, stderr := tryNode(t, node, p)
	if !out.OK {
		t.Fatalf("node client.mjs failed: %s\nstderr: %.4000s", out.Error, stderr)
	}
	return out
}

// tryNode runs client.mjs with p and returns what it printed and its stderr.
func tryNode(t *testing.T, node string, p plan) (nodeOut, string) {
	t.Helper()
	var out nodeOut
	stderr := runScript(t, node, "client.mjs", p, &out)
	return out, stderr
}

// runScript runs the node script with the plan p (written to a file, its
// one argument), decodes the JSON object it prints into out, and returns
// its stderr. Output that is not JSON fails t.
func runScript(t *testing.T, node, script string, p, out any) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "plan.json")
	b, _ := json.Marshal(p)
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, f)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if jerr := json.Unmarshal(stdout.Bytes(), out); jerr != nil {
		t.Fatalf("node %s: %v; output not JSON (%v):\nstdout: %.2000s\nstderr: %.4000s", script, err, jerr, stdout.String(), stderr.String())
	}
	return stderr.String()
}

// fileArg is one file argument of a tool, as tools/list shows it.
type fileArg struct {
	Name     string
	Array    bool
	MaxItems int
	Accept   []string
	MaxSize  int64
}

// fileArgs returns the tool's file arguments, sorted by name.
func fileArgs(s schema) []fileArg {
	var fs []fileArg
	for name, p := range s.Properties {
		switch {
		case p.File != nil:
			fs = append(fs, fileArg{Name: name, Accept: p.File.Accept, MaxSize: p.File.MaxSize})
		case p.Items != nil && p.Items.File != nil:
			f := fileArg{Name: name, Array: true, Accept: p.Items.File.Accept, MaxSize: p.Items.File.MaxSize}
			if p.MaxItems != nil {
				f.MaxItems = *p.MaxItems
			}
			fs = append(fs, f)
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	return fs
}

// arguments builds a tools/call argument object for a tool: the file
// argument f gets uris (the first, or the array), every other required
// argument gets a plain value of its type (strings "notes.txt", string
// arrays one name per file).
func arguments(s schema, f fileArg, uris ...string) map[string]any {
	args := map[string]any{}
	if f.Array {
		args[f.Name] = uris
	} else {
		args[f.Name] = uris[0]
	}
	for _, name := range s.Required {
		if _, ok := args[name]; ok {
			continue
		}
		p := s.Properties[name]
		if p == nil || p.File != nil || (p.Items != nil && p.Items.File != nil) {
			continue
		}
		switch {
		case p.is("string"):
			args[name] = "notes.txt"
		case p.is("array"):
			names := make([]string, len(uris))
			for i := range names {
				names[i] = fmt.Sprintf("file%d.txt", i)
			}
			args[name] = names
		case p.is("integer"), p.is("number"):
			args[name] = 1
		case p.is("boolean"):
			args[name] = false
		}
	}
	return args
}
