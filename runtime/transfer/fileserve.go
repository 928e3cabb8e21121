package transfer

// The transfer layer for servers on another SDK (runtime/mcpgo): the same
// config, checks, stores and records as Register's, behind package
// fileserve, which the adapter calls with who sent each request.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpfile/mcpfile/runtime/internal/fileserve"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/observe"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

func init() {
	fileserve.KeepFiles = keepFiles
	fileserve.New = func(fc fileserve.Config) (fileserve.Service, error) {
		o, ok := fc.Options.(Options)
		if !ok {
			return nil, errors.New("fileserve: Config.Options is not a transfer.Options")
		}
		c, err := newConfig(o)
		if err != nil {
			return nil, err
		}
		c.schemas, c.declare, c.nameOf = fc.Schemas, fc.Declare, fc.ServerName
		if fc.HTTPPrincipal != nil {
			hp := fc.HTTPPrincipal
			c.httpOwner = func(r *http.Request) (string, bool) {
				p, ok := hp(r)
				if ok && p == "" {
					c.obs.internal(r.Context(), "auth", "owner", errNoPrincipal)
					return "\x00no principal", true // matches no token's owner: refused
				}
				return p, ok
			}
		} else {
			c.httpOwner = func(*http.Request) (string, bool) { return "", false }
		}
		return service{c}, nil
	}
}

// service is a config as a fileserve.Service.
type service struct{ c *config }

func (s service) Handler() http.Handler { return s.c.handler() }

func (s service) Observer() *observe.Observer { return s.c.obs.Observer }

func (s service) MaxEmbedded() int64 { return s.c.MaxEmbeddedOutput }

func (s service) ProgressMessage() string { return progressMessage }

func (s service) TooLarge(v wire.FileValue) string { return tooLargeText(v) }

func (s service) Downloads(from fileserve.Sender) bool { return senderOf(from).files.downloads() }

func (s service) Embed(ctx context.Context, from fileserve.Sender, v wire.FileValue, budget *int64) ([]byte, bool) {
	return s.c.embedOutput(ctx, senderOf(from), v, budget)
}

func (s service) Call(ctx context.Context, from fileserve.Sender, tool string, progress func(received, total int64)) (context.Context, func()) {
	res := &resolver{c: s.c, from: senderOf(from), tool: tool, notify: progress}
	end := res.callReads()
	return hook.WithResolver(ctx, res, nil), end
}

func (s service) Authorize(ctx context.Context, from fileserve.Sender, method string, params json.RawMessage) (any, *fileserve.Error) {
	c, who := s.c, senderOf(from)
	ctx = hook.WithResolver(ctx, &resolver{c: c, from: who}, nil)
	var res any
	var err error
	switch method {
	case MethodAuthorizeUpload:
		var p AuthorizeUploadParams
		if err = decodeParams(method, params, &p); err == nil {
			res, err = c.authorizeUpload(ctx, who, &p)
		}
	case MethodAuthorizeDownload:
		var p AuthorizeDownloadParams
		if err = decodeParams(method, params, &p); err == nil {
			res, err = c.authorizeDownload(ctx, who, &p)
		}
	default:
		return nil, &fileserve.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
	}
	c.recordAuthorize(ctx, method, who, res, err)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, &fileserve.Error{Code: je.Code, Message: je.Message, Data: je.Data}
		}
		return nil, &fileserve.Error{Code: jsonrpc.CodeInternalError, Message: method + ": internal error"}
	}
	return res, nil
}

// decodeParams decodes the params of method into p: absent params are
// empty ones, as the go-sdk reads them.
func decodeParams(method string, params json.RawMessage, p any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	if err := json.Unmarshal(params, p); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": invalid params: " + err.Error()}
	}
	return nil
}

// senderOf is the sender an adapter told of.
func senderOf(from fileserve.Sender) sender {
	s := sender{principal: from.Principal, session: from.Session}
	s.files, _ = filesOf(from.Files)
	return s
}
