package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/examples/compare_documents/comparedocs"
	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/examples/profile/profile"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// The test binary doubles as the example servers over stdio: run with this
// variable set to an example's name, it serves that example as its command
// does (serve.Stdio).
const serveEnv = "MCPFILE_CONFORM_TEST_SERVE"

// stdioExamples are the examples that serve stdio, with their options.
var stdioExamples = map[string]func() (*mcp.Server, serve.Options){
	"describe_image": func() (*mcp.Server, serve.Options) {
		return describeimage.NewServer(describeimage.Options{}), serve.Options{}
	},
	"compare_documents": func() (*mcp.Server, serve.Options) { return comparedocs.NewServer(), serve.Options{} },
	"profile":           func() (*mcp.Server, serve.Options) { return profile.NewServer(), profile.ServeOptions() },
}

func TestMain(m *testing.M) {
	if name := os.Getenv(serveEnv); name != "" {
		f := stdioExamples[name]
		if name == "accepts-anything" {
			f = acceptsAnything
		}
		s, o := f()
		if err := serve.Stdio(context.Background(), s, o); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type report struct {
	Checks []struct {
		ID, Requirement, Level, Status, Detail string
	}
}

// conformJSON runs mcpfile conform -json with args and decodes its report.
func conformJSON(t *testing.T, args ...string) (int, report, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"conform", "-json"}, args...), nil, &stdout, &stderr)
	var r report
	if code != 2 {
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout.String())
		}
	}
	return code, r, stderr.String()
}

// wantAllPass requires exit 0 and no failed check, and that the checks of
// inline files ran (passed) rather than skipped; for profile, which asks
// for its photo in a form, the elicitation checks too.
func wantAllPass(t *testing.T, name string, code int, r report, stderr string) {
	t.Helper()
	if name == "profile" {
		for _, c := range r.Checks {
			if strings.HasPrefix(c.ID, "elicit.") && c.Status != "pass" {
				t.Errorf("%s = %s (%s), want pass", c.ID, c.Status, c.Detail)
			}
		}
	}
	if code != 0 {
		t.Errorf("exit %d, want 0; stderr %s", code, stderr)
	}
	for _, c := range r.Checks {
		if c.Status == "fail" {
			t.Errorf("%s failed: %s", c.ID, c.Detail)
		}
		if strings.HasPrefix(c.ID, "inline.") && c.Status != "pass" {
			t.Errorf("%s = %s (%s), want pass", c.ID, c.Status, c.Detail)
		}
	}
}

// TestExamplesOverStdio: every example that serves stdio passes, started
// as a command.
func TestExamplesOverStdio(t *testing.T) {
	for name := range stdioExamples {
		t.Run(name, func(t *testing.T) {
			t.Setenv(serveEnv, name)
			code, r, stderr := conformJSON(t, "--", os.Args[0])
			wantAllPass(t, name, code, r, stderr)
		})
	}
}

// TestExamplesOverHTTP: every example passes over streamable HTTP, served
// by runtime/serve as the commands serve it.
func TestExamplesOverHTTP(t *testing.T) {
	servers := map[string]func(url string) (*mcp.Server, serve.Options){}
	for name, f := range stdioExamples {
		servers[name] = func(string) (*mcp.Server, serve.Options) { return f() }
	}
	servers["analyze_document"] = func(url string) (*mcp.Server, serve.Options) {
		s, _, err := analyzedoc.NewServer(analyzedoc.Options{PublicURL: url + "/files/", Store: memstore.New(nil)})
		if err != nil {
			t.Fatal(err)
		}
		return s, serve.Options{Path: analyzedoc.MCPPath}
	}
	for name, f := range servers {
		t.Run(name, func(t *testing.T) {
			var h serveHandler
			srv := httptest.NewServer(&h)
			defer srv.Close()
			s, o := f(srv.URL)
			h.Handler = serve.Handler(s, o)
			code, r, stderr := conformJSON(t, "-url", srv.URL+serve.DefaultPath)
			wantAllPass(t, name, code, r, stderr)
			if name != "analyze_document" {
				return
			}
			// It serves uploads and downloads: SEP-2631's checks run.
			for _, c := range r.Checks {
				if (strings.HasPrefix(c.ID, "upload.") || strings.HasPrefix(c.ID, "download.")) && c.Status != "pass" {
					t.Errorf("%s = %s (%s), want pass", c.ID, c.Status, c.Detail)
				}
			}
		})
	}
}

// TestRefusalsAsRPCErrors: a server set to answer refusals with JSON-RPC
// error -32602 (runtime.RefuseWithError, SEP-2631's form) passes, and the
// report says every refusal came in that form.
func TestRefusalsAsRPCErrors(t *testing.T) {
	for _, name := range []string{"describe_image", "compare_documents"} {
		t.Run(name, func(t *testing.T) {
			s, o := stdioExamples[name]()
			runtime.SetRefusalForm(s, runtime.RefuseWithError)
			srv := httptest.NewServer(serve.Handler(s, o))
			defer srv.Close()
			code, r, stderr := conformJSON(t, "-url", srv.URL+serve.DefaultPath)
			wantAllPass(t, name, code, r, stderr)
			for _, c := range r.Checks {
				if c.ID != "refusal.form" {
					continue
				}
				t.Logf("refusal.form: %s", c.Detail)
				if c.Status != "pass" || !strings.Contains(c.Detail, "as -32602") || strings.Contains(c.Detail, "isError") {
					t.Errorf("refusal.form = %s (%s), want pass with every refusal as -32602", c.Status, c.Detail)
				}
			}
		})
	}
}

// serveHandler is the handler of a test server, set once its URL is
// known, before any request.
type serveHandler struct{ http.Handler }

// acceptsAnything is a server whose file argument takes any value: it
// breaks every refusal rule.
func acceptsAnything() (*mcp.Server, serve.Options) {
	s := mcp.NewServer(&mcp.Implementation{Name: "accepts-anything", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "take", InputSchema: json.RawMessage(`{"type":"object","properties":{"file":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png"],"maxSize":1000}}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "thanks"}}}, nil
		})
	return s, serve.Options{}
}

// TestFailingServer: a failed MUST makes the exit status 1, the table says
// which, and -junit writes the failures.
func TestFailingServer(t *testing.T) {
	t.Setenv(serveEnv, "accepts-anything")
	junit := filepath.Join(t.TempDir(), "report.xml")
	var stdout, stderr bytes.Buffer
	code := run([]string{"conform", "-junit", junit, "--", os.Args[0]}, nil, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "fail    MUST    inline.refuse.maxsize") {
		t.Errorf("table:\n%s", stdout.String())
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `<testcase name="inline.refuse.type" classname="conform.MUST">`) || !strings.Contains(string(b), "<failure") {
		t.Errorf("JUnit has no failure of inline.refuse.type:\n%s", b)
	}
}

// TestTableAndJUnit: the table and -junit of a passing run.
func TestTableAndJUnit(t *testing.T) {
	t.Setenv(serveEnv, "describe_image")
	dir := t.TempDir()
	junit := filepath.Join(dir, "report.xml")
	var stdout, stderr bytes.Buffer
	code := run([]string{"conform", "-junit", junit, "--", os.Args[0]}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, v := range []string{"2025-11-25: 3 tool(s), 1 file argument(s): describe_image.image", "2026-07-28: 3 tool(s)"} {
		if !strings.Contains(stdout.String(), v) {
			t.Errorf("the table does not say %q: both protocol generations are checked", v)
		}
	}
	if !strings.Contains(stdout.String(), "pass    MUST    inline.refuse.maxsize") {
		t.Errorf("table:\n%s", stdout.String())
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b, &suite); err != nil {
		t.Fatalf("JUnit: %v\n%s", err, b)
	}
	if suite.Tests == 0 || suite.Failures != 0 || suite.Skipped == 0 {
		t.Errorf("JUnit tests=%d failures=%d skipped=%d, want failures 0 and some skipped", suite.Tests, suite.Failures, suite.Skipped)
	}
	// describe_image requires one file, not an array, asks for none in a
	// form, serves no uploads and returns no file.
	for _, c := range suite.Cases {
		if skip := c.Skipped != nil; skip != slices.ContainsFunc([]string{"array.", "elicit.", "upload.", "download."}, func(p string) bool { return strings.HasPrefix(c.Name, p) }) {
			t.Errorf("JUnit: %s skipped=%v; want only the array, elicitation, upload and download checks skipped", c.Name, skip)
		}
	}
}

// TestUsage: command lines that name no server, or two, exit 2.
func TestUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "usage: mcpfile conform"},
		{[]string{"serve"}, `unknown command "serve"`},
		{[]string{"conform"}, "name the server"},
		{[]string{"conform", "-url", "http://127.0.0.1:1/mcp", "--", "x"}, "name one server"},
		{[]string{"conform", "-nope"}, "flag provided but not defined: -nope"},
		{[]string{"conform", "-url", "http://127.0.0.1:1/mcp"}, "could not be checked"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestServerThatExits: a command that is no MCP server cannot be checked:
// exit 2, with its standard error.
func TestServerThatExits(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"conform", "--", "sh", "-c", "echo no MCP here >&2; exit 3"}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "could not be checked") || !strings.Contains(stderr.String(), "no MCP here") {
		t.Errorf("exit %d, stderr %q; want 2, could not be checked, and the server's stderr", code, stderr.String())
	}
}
