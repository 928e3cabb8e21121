package interop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// mcpGoTools are the tools of the describe_image example on mcp-go that
// the go-sdk example does not have: one that takes its image uploaded only
// (SEP-2631), one that asks for it through an upload page, and one that
// hands back a file.
var mcpGoTools = []string{"describe_image_upload", "describe_image_page", "sample_image"}

var (
	mcpGoOnce     sync.Once
	mcpGoBin      string
	mcpGoBuildErr error
)

// buildMCPGoExample builds the describe_image example on
// mark3labs/mcp-go (runtime/mcpgo/examples/describe_image, in a module of
// its own) into binDir, once.
func buildMCPGoExample(t *testing.T) string {
	t.Helper()
	buildExamples(t) // makes binDir, which TestMain removes
	mcpGoOnce.Do(func() {
		mcpGoBin = filepath.Join(binDir, "describe_image_mcpgo")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		build := exec.CommandContext(ctx, "go", "-C", filepath.Join("..", "runtime", "mcpgo"), "build", "-o", mcpGoBin, "./examples/describe_image")
		if out, err := build.CombinedOutput(); err != nil {
			mcpGoBuildErr = fmt.Errorf("%s: %v\n%s", build, err, out)
		}
	})
	if mcpGoBuildErr != nil {
		t.Fatal(mcpGoBuildErr)
	}
	return mcpGoBin
}

// TestTypeScriptSDKMCPGo drives the describe_image example on
// mark3labs/mcp-go with the TypeScript clients and the checks of
// TestTypeScriptSDK: tools/list carries each tool's inputSchema as the
// go-sdk example declares it, valid files are answered, and every
// violation comes back as isError with the go-sdk server's text.
func TestTypeScriptSDKMCPGo(t *testing.T) {
	node := requireNode(t)
	declared := declaredTools(t, buildExamples(t)["describe_image"])
	bin := buildMCPGoExample(t)
	for _, c := range tsClients {
		t.Run(c.name, func(t *testing.T) {
			base := plan{SDK: c.sdk, Negotiate: c.negotiate, Transport: c.transport}
			if c.transport == "stdio" {
				base.Command = bin
			} else {
				base.URL = startHTTP(t, bin) + "mcp"
			}
			tools, version := checkToolsList(t, node, base, declared, mcpGoTools...)
			if c.negotiate == "2026-07-28" && version != c.negotiate {
				t.Fatalf("negotiated protocol %q, want %q", version, c.negotiate)
			}
			for _, tool := range tools {
				if _, ok := declared[tool.Name]; !ok {
					continue // TestTypeScriptUploadMCPGo
				}
				if fs := fileArgs(tool.InputSchema); len(fs) > 0 {
					checkCalls(t, node, base, tool, fs[0])
				}
			}
		})
	}
}

// TestTypeScriptUploadMCPGo: the official TypeScript SDK clients upload an
// image to the describe_image example on mcp-go the SEP-2631 way
// (files/authorizeUpload as a custom request, the bytes POSTed with fetch
// and FormData, tools/call with the file URI), over both protocol
// generations, and get the refusals a go-sdk server gives: a declared
// size past every field's maxSize as -32602 maxSizeExceeded, a data: URI
// to the upload-only field as an isError result naming transferModes.
func TestTypeScriptUploadMCPGo(t *testing.T) {
	node := requireNode(t)
	url := startHTTP(t, buildMCPGoExample(t), "-store", t.TempDir()) + "mcp"
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdacd\xf8\xcf\xd0\x0f\x00\x03\x86\x01\x80Z4}k\x00\x00\x00\x00IEND\xaeB`\x82")
	path := filepath.Join(t.TempDir(), "pixel.png")
	if err := os.WriteFile(path, png, 0o600); err != nil {
		t.Fatal(err)
	}
	const maxSize = 20 << 20 // describe_image_upload's; describe_image's is 5 MiB
	steps := []uploadStep{
		{Op: "upload", Label: "png", File: path, Name: "pixel.png", MimeType: "image/png", Tool: "describe_image_upload", Argument: "image"},
		{Op: "authorize", Label: "too big", Params: map[string]any{"name": "huge.png", "mimeType": "image/png", "size": maxSize + 1}},
		{Op: "callTool", Label: "inline", Name: "describe_image_upload", Arguments: map[string]any{"image": mcptest.DataURI("image/png", png)}},
	}
	for _, c := range []struct{ name, sdk, negotiate, version string }{
		{"sdk-v1", "v1", "", "2025-11-25"},
		{"client-v2-2026-07-28", "v2", "2026-07-28", "2026-07-28"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runUpload(t, node, uploadPlan{SDK: c.sdk, Negotiate: c.negotiate, URL: url, Steps: steps})
			if out.ProtocolVersion != c.version {
				t.Errorf("negotiated %q, want %q", out.ProtocolVersion, c.version)
			}
			up := out.Steps[0]
			if up.Authorize == nil || up.Authorize.Result == nil || up.Upload == nil || up.Upload.Status != 201 || up.Call == nil || up.Call.Result == nil {
				t.Fatalf("png: %s", js(up))
			}
			var d struct {
				Format, MediaType, SHA256 string
				Size                      int64
			}
			sum := sha256.Sum256(png)
			if json.Unmarshal(up.Call.Result.StructuredContent, &d) != nil || up.Call.Result.IsError || d.Format != "png" ||
				d.MediaType != "image/png" || d.Size != int64(len(png)) || d.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("describe_image_upload of the uploaded PNG: %s", js(up.Call))
			}

			big := out.Steps[1]
			if a := big.Authorize; a == nil || a.Error == nil || fmt.Sprint(a.Error.Code) != "-32602" || a.Error.Data == nil ||
				a.Error.Data.Reason != "maxSizeExceeded" || a.Error.Data.MaxSize != maxSize || a.Error.Data.ActualSize != maxSize+1 {
				t.Errorf("too big: %s, want error -32602 with data {reason: maxSizeExceeded, maxSize: %d, actualSize: %d}", js(big.Authorize), maxSize, maxSize+1)
			}

			inline := out.Steps[2].Call
			const want = "Argument 'image' is a data: URI, but it takes uploaded files only (transferModes: upload)"
			if inline == nil || inline.Result == nil || !inline.Result.IsError || !strings.HasPrefix(inline.Result.text(), want) {
				t.Errorf("data: URI to describe_image_upload: %s, want isError %q…", js(inline), want)
			}
		})
	}
}
