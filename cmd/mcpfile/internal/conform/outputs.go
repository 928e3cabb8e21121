package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// SEP-2631's download checks. They call the tools whose output schema
// declares a file (a property with the members of a FileValue: uri, and
// size or digest) and that take no file, with their required arguments
// filled in, once as a client without files.download and once as one
// with it, then fetch each file the results name.

var downloadIDs = []string{"download.fallback", "download.authorize", "download.verify", "download.range", "download.refuse.token", "download.refuse.unknown"}

// declaresFile reports whether an output schema has a property (at its top
// level, or one level down) shaped as a FileValue.
func declaresFile(schema json.RawMessage) bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return false
	}
	for _, p := range s.Properties {
		var q struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		json.Unmarshal(p, &q)
		_, uri := q.Properties["uri"]
		_, size := q.Properties["size"]
		_, digest := q.Properties["digest"]
		if uri && (size || digest) {
			return true
		}
	}
	return false
}

// downloads runs the download checks on the tools whose output schemas
// (by name, with their input schemas) declare a file.
func (r *runner) downloads(ctx context.Context, inputs map[string]json.RawMessage) error {
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	ran := false
	for _, n := range names {
		args, ok := fillAll(inputs[n])
		if !ok {
			continue
		}
		ran = true
		if err := r.downloadTool(ctx, n, args); err != nil {
			return err
		}
	}
	if !ran {
		for _, id := range downloadIDs {
			r.res.add(id, "skip", "", "no tool declares a file in its output schema and takes no file")
		}
	}
	return nil
}

// fillAll fills the required arguments of an input schema; false when
// one is a file.
func fillAll(schema json.RawMessage) (map[string]any, bool) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, n := range s.Required {
		if bytes.Contains(s.Properties[n], []byte(`"x-mcp-file"`)) {
			return nil, false
		}
		args[n] = fill(s.Properties[n])
	}
	return args, true
}

// callAs calls a tool on cs and returns its result.
func (r *runner) callAs(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil && res.IsError {
		err = fmt.Errorf("the tool answered an error: %s", answer{res: res}.brief())
	}
	return res, err
}

// downloadTool runs the download checks on one tool.
func (r *runner) downloadTool(ctx context.Context, name string, args map[string]any) error {
	tg := r.version + " " + name
	// As a client without files.download: no file block.
	before := r.fileBlocks.Load()
	res, err := r.callAs(ctx, r.cs, name, args)
	if err != nil {
		r.res.add("download.fallback", "fail", tg, "tools/call: "+err.Error())
		return nil
	}
	switch {
	case r.fileBlocks.Load() != before:
		r.res.add("download.fallback", "fail", tg, "a file content block went to a client that did not declare files.download")
	case len(client.Outputs(res)) == 0:
		r.res.add("download.fallback", "fail", tg, "the result names no file in a form a client without files.download reads (a FileValue in structuredContent, a resource_link, an embedded resource)")
	default:
		r.res.add("download.fallback", "pass", tg, "")
	}

	// As a client with files.download: the file, to fetch.
	cs, err := r.session(ctx, true)
	if err != nil {
		return fmt.Errorf("connecting as a client with files.download: %v", err)
	}
	defer cs.Close()
	res, err = r.callAs(ctx, cs, name, args)
	if err != nil {
		for _, id := range downloadIDs[1:] {
			r.res.add(id, "fail", tg, "tools/call as a client with files.download: "+err.Error())
		}
		return nil
	}
	n := 0
	for _, out := range client.Outputs(res) {
		if out.Data != nil || out.File.URI == "" {
			continue
		}
		n++
		r.fetch(ctx, cs, tg, out.File)
	}
	if n == 0 {
		for _, id := range downloadIDs[1:] {
			r.res.add(id, "skip", "", tg+": the result names no file to download")
		}
	}
	return nil
}

// fetch runs the checks of one file output.
func (r *runner) fetch(ctx context.Context, cs *mcp.ClientSession, tg string, f wire.FileValue) {
	actx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	res, err := client.AuthorizeDownload(actx, cs, f.URI)
	if err != nil {
		r.res.add("download.authorize", "fail", tg, "files/authorizeDownload of the file the tool returned: "+err.Error())
		return
	}
	var bad []string
	if _, err := client.CheckDownload(res.Download, true, time.Now()); err != nil {
		bad = append(bad, err.Error())
	} else if u, _ := url.Parse(res.Download.URL); u.Scheme == "http" && !loopback(u.Hostname()) {
		bad = append(bad, "download.url is plain http to "+u.Host+": descriptors MUST be transport-protected")
	}
	if res.Download.ExpiresAt.IsZero() {
		bad = append(bad, "download has no expiresAt: descriptors MUST be time-limited")
	}
	if res.File.URI != "" && res.File.URI != f.URI {
		bad = append(bad, "file.uri is not the URI asked for")
	}
	if len(bad) > 0 {
		r.res.add("download.authorize", "fail", tg, strings.Join(bad, "; "))
		return
	}
	r.res.add("download.authorize", "pass", tg, "")

	// The bytes, verified against what the result and the authorization
	// declare.
	if res.File.Size == nil {
		res.File.Size = f.Size
	}
	if res.File.Digest == nil {
		res.File.Digest = f.Digest
	}
	var buf bytes.Buffer
	gctx, gcancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer gcancel()
	limit := int64(BigSize)
	if r.o.Big {
		limit = 1 << 40
	}
	switch {
	case f.Size != nil && res.File.Size != nil && *f.Size != *res.File.Size:
		r.res.add("download.verify", "fail", tg, fmt.Sprintf("the result says %d bytes, files/authorizeDownload %d", *f.Size, *res.File.Size))
		return
	case f.Digest != nil && res.File.Digest != nil && *f.Digest != *res.File.Digest:
		r.res.add("download.verify", "fail", tg, "the result and files/authorizeDownload give different digests")
		return
	}
	if _, err := client.Download(gctx, res, &buf, &client.DownloadOptions{AllowHTTP: true, MaxSize: limit}); err != nil {
		r.res.add("download.verify", "fail", tg, err.Error())
		return
	}
	r.res.add("download.verify", "pass", tg, "")
	data := buf.Bytes()

	r.rangeCheck(ctx, tg, res.Download, data)

	// Altered credentials, and a URI it never issued.
	d, what := tampered(res.Download)
	if a, err := r.get(ctx, d, ""); err != nil {
		r.res.add("download.refuse.token", "fail", tg+" ("+what+" altered)", err.Error())
	} else if a.ok() {
		r.res.add("download.refuse.token", "fail", tg+" ("+what+" altered)", "the download was served: "+fmt.Sprint(a.status))
	} else {
		r.res.add("download.refuse.token", "pass", tg+" ("+what+" altered)", "")
	}
	uctx, ucancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer ucancel()
	_, err = client.AuthorizeDownload(uctx, cs, tamper(f.URI))
	var je *jsonrpc.Error
	switch {
	case err == nil:
		r.res.add("download.refuse.unknown", "fail", tg+" (a file URI it never issued)", "files/authorizeDownload authorized it")
	case !errors.As(err, &je):
		r.res.add("download.refuse.unknown", "fail", tg+" (a file URI it never issued)", "not a JSON-RPC error: "+err.Error())
	default:
		r.res.add("download.refuse.unknown", "pass", tg+" (a file URI it never issued)", "")
	}
}

// rangeCheck asks for bytes 1-2 of the file: a 206 must hold them; a 200
// with the whole file is a server that ignores Range, as HTTP allows.
func (r *runner) rangeCheck(ctx context.Context, tg string, d wire.FileTransferDescriptor, data []byte) {
	if len(data) < 3 {
		r.res.add("download.range", "skip", "", fmt.Sprintf("%s: the file is %d bytes", tg, len(data)))
		return
	}
	a, err := r.get(ctx, d, "bytes=1-2")
	switch {
	case err != nil:
		r.res.add("download.range", "fail", tg, err.Error())
	case a.status == http.StatusPartialContent && a.body == string(data[1:3]):
		r.res.add("download.range", "pass", tg, "")
	case a.status == http.StatusOK && a.body == string(data[:min(len(data), 4<<10)]):
		r.res.add("download.range", "pass", tg+" (Range ignored: 200 with the whole file)", "")
	case a.status == http.StatusPartialContent:
		r.res.add("download.range", "fail", tg, "206 with other bytes than 1-2 of the file")
	default:
		r.res.add("download.range", "fail", tg, fmt.Sprintf("Range: bytes=1-2 answered %d", a.status))
	}
}

// get sends a GET as descriptor d says, with Range rng when not empty.
func (r *runner) get(ctx context.Context, d wire.FileTransferDescriptor, rng string) (endpointAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL, nil)
	if err != nil {
		return endpointAnswer{}, fmt.Errorf("the download request: %v", unwrapURL(err))
	}
	for k, v := range d.Headers {
		req.Header.Set(k, v)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	return do(req)
}
