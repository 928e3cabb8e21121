// Package call is mcpfile call's command-line side: the name=@path,
// name=value and name:=json grammar of its arguments and of -answer, the
// forms it answers, and what it prints. What it does with files stands on
// runtime/transfer/client: the checks against each field's x-mcp-file
// before anything is sent, inline or upload as transferModes and size
// allow (client.ToolArguments, client.FormContent), and the outputs saved
// with their size and digest verified (client.Outputs, client.Save).
package call

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// Options say how to send the files and fetch the outputs, and where to
// say so.
type Options struct {
	// Call says how files travel (its Sent is set to log).
	Call client.CallOptions
	// Download configures downloads.
	Download client.DownloadOptions
	// Log receives one line per file sent, and the forms' questions (nil:
	// none).
	Log io.Writer
}

// callOptions is o.Call, logging each file sent to o.Log.
func (o *Options) callOptions() *client.CallOptions {
	c := o.Call
	c.Sent = func(s client.SentFile) {
		switch {
		case s.Uploaded:
			logf(o, "uploaded %s (%s, %d bytes) for %q: %s", s.Path, s.MediaType, s.Size, s.Field, s.URI)
		case s.Form != "":
			logf(o, "sending %s (%s, %d bytes) inline as a FileData object for %q", s.Path, s.MediaType, s.Size, s.Field)
		case s.Fallback:
			logf(o, "the server does not serve files/authorizeUpload: sending %s (%s, %d bytes) inline for %q", s.Path, s.MediaType, s.Size, s.Field)
		default:
			logf(o, "sending %s (%s, %d bytes) inline for %q", s.Path, s.MediaType, s.Size, s.Field)
		}
	}
	return &c
}

// NewClient returns a client that can send files/authorizeUpload and
// files/authorizeDownload, and declares SEP-2631's files capability
// (upload and download over https) under experimental.files: connect it
// over a transport client.WrapTransport wraps, which declares it where the SEP
// says and turns the file blocks of results into resource links the SDK
// can read.
//
// With forms, it answers the forms the server asks for (and declares
// elicitation, form and URL mode, and listens for
// notifications/elicitation/complete); without, it declares none, and a
// server that needs one says so.
func NewClient(impl *mcp.Implementation, forms *Forms) (*mcp.Client, error) {
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": client.FilesCapability()}}}
	if forms != nil {
		opts.ElicitationHandler = forms.Handle
		opts.ElicitationCompleteHandler = forms.complete
		opts.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	c := mcp.NewClient(impl, opts)
	if err := client.Enable(c); err != nil {
		return nil, err
	}
	return c, nil
}

// ErrUsage is the error (for errors.Is) of arguments that do not fit the
// tool: an unknown name, a file an argument does not allow, a value of
// the wrong type (client.ErrArguments is one too). Nothing was sent.
var ErrUsage = errors.New("the arguments do not fit the tool")

func usage(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Usage reports whether err is a usage error (ErrUsage or
// client.ErrArguments), and its text for people, without the prefixes.
func Usage(err error) (string, bool) {
	if !errors.Is(err, ErrUsage) && !errors.Is(err, client.ErrArguments) {
		return "", false
	}
	s := strings.TrimPrefix(err.Error(), ErrUsage.Error()+": ")
	return strings.TrimPrefix(s, "transfer/client: "), true
}

// Arguments builds the arguments of a call of tool from args: values
// converted as the schema's types say, files checked, then sent inline or
// uploaded (client.ToolArguments).
func Arguments(ctx context.Context, cs *mcp.ClientSession, tool *mcp.Tool, args []Arg, o *Options) (map[string]any, error) {
	values, files, err := split(tool.InputSchema, args)
	if err != nil {
		return nil, err
	}
	return client.ToolArguments(ctx, cs, tool, values, files, o.callOptions())
}

// split sorts args into values, converted as schema's property types
// say, and local files by name.
func split(schema any, args []Arg) (map[string]any, map[string][]client.LocalFile, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("the schema: %v", err)
	}
	types := propTypes(raw)
	values := map[string]any{}
	files := map[string][]client.LocalFile{}
	for _, a := range args {
		if a.Path != "" {
			files[a.Name] = append(files[a.Name], client.LocalFile{Path: a.Path, MediaType: a.MediaType})
			continue
		}
		if _, dup := values[a.Name]; dup {
			return nil, nil, usage("argument %q is given twice", a.Name)
		}
		v, err := value(types, a)
		if err != nil {
			return nil, nil, usage("%v", err)
		}
		values[a.Name] = v
	}
	return values, files, nil
}

func logf(o *Options, format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}
