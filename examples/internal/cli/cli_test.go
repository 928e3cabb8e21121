package cli_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/examples/compare_documents/comparedocs"
	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/examples/internal/cli"
	"github.com/mcpfile/mcpfile/examples/profile/profile"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// TestLimits: each example command serves with the request limit its
// package declares (MaxRequestBytes), computed by runtime/serve from the
// server's tools and the options the command passes.
func TestLimits(t *testing.T) {
	analyze, _, err := analyzedoc.NewServer(analyzedoc.Options{PublicURL: "http://127.0.0.1:8080/files/", Store: memstore.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		s       *mcp.Server
		o       serve.Options
		declare func() (int64, error)
	}{
		{"analyze_document", analyze, serve.Options{Path: analyzedoc.MCPPath}, analyzedoc.MaxRequestBytes},
		{"compare_documents", comparedocs.NewServer(), serve.Options{}, comparedocs.MaxRequestBytes},
		{"describe_image", describeimage.NewServer(describeimage.Options{}), serve.Options{}, describeimage.MaxRequestBytes},
		{"profile", profile.NewServer(), profile.ServeOptions(), profile.MaxRequestBytes},
	} {
		want, err := tt.declare()
		if err != nil {
			t.Fatal(err)
		}
		if got := serve.RequestLimit(tt.s, tt.o); got != want {
			t.Errorf("%s: served with a request limit of %d bytes, want %d (MaxRequestBytes)", tt.name, got, want)
		}
	}
}

// TestUsage: bad flags and arguments are usage errors, exit code 2,
// before anything is served.
func TestUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
	} {
		var stderr strings.Builder
		served := false
		code := cli.Main("example", tt.args, &stderr, func() *mcp.Server { served = true; return nil }, serve.Options{})
		if code != 2 || served || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("Main(%q) = %d (built a server: %v), stderr %q; want 2 and %q", tt.args, code, served, stderr.String(), tt.want)
		}
	}
}
