// Command describe_image is an MCP server that describes an image file
// (PNG, JPEG, GIF or WebP, up to 5 MiB): its format, dimensions and SHA-256.
// It has one tool for each shape a file arrives in: describe_image takes a
// data: URI, describe_image_filedata an Odeus FileData object, and
// describe_image_chatgpt a ChatGPT file object, whose download_url it
// fetches from the hosts -fetch-host allows.
//
//	go run ./examples/describe_image                      # stdio
//	go run ./examples/describe_image -http 127.0.0.1:8080 # streamable HTTP at http://127.0.0.1:8080/mcp
//	go run ./examples/describe_image -fetch-host files.example.com
//
// -fetch-host host allows describe_image_chatgpt to fetch files from host,
// over https, and from no other: repeat the flag or separate hosts with
// commas; "*.example.com" matches the names under example.com. Hosts that
// resolve to loopback, private, link-local or metadata addresses are
// refused all the same. Without it the tool fetches nothing and says so.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/examples/internal/cli"
	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

func main() {
	os.Exit(cli.MainFlags("describe_image", os.Args[1:], os.Stderr, flags, serve.Options{}))
}

// flags adds -fetch-host to fs and returns the function that builds the
// server from it.
func flags(fs *flag.FlagSet) func() (*mcp.Server, error) {
	var hosts hostList
	fs.Var(&hosts, "fetch-host", "let describe_image_chatgpt fetch files from `host` (repeat, or separate with commas; *.example.com for its subdomains; host:port for a port other than 443); without it nothing is fetched")
	return func() (*mcp.Server, error) {
		var opts describeimage.Options
		if len(hosts) > 0 {
			f, err := fetch.New(fetch.Options{AllowHosts: hosts})
			if err != nil {
				return nil, fmt.Errorf("-fetch-host: %s", strings.TrimPrefix(err.Error(), "fetch.New: AllowHosts: "))
			}
			opts.Fetcher = f
		}
		return describeimage.NewServer(opts), nil
	}
}

// hostList is the value of -fetch-host: every host of every use of the
// flag, in order.
type hostList []string

func (l *hostList) String() string { return strings.Join(*l, ",") }

func (l *hostList) Set(v string) error {
	for h := range strings.SplitSeq(v, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return errors.New("empty host name")
		}
		*l = append(*l, h)
	}
	return nil
}
