package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// Register makes s serve SEP-2631 file transfers: it adds the
// files/authorizeUpload and files/authorizeDownload methods, makes the
// runtime resolve the file URIs (mcp-file:) that clients send in tools/call
// arguments and elicitation answers, lets handlers return files ([Save],
// [NewFileContent]; a client without the files.download capability gets
// them the standard way), and returns the HTTP handler of the upload and
// download endpoints, to mount at o.PublicURL beside the MCP endpoint:
//
//	keys, _ := token.NewKeyring(key)
//	files, err := transfer.Register(server, transfer.Options{Keys: keys, PublicURL: "https://example.com/files/"})
//	…
//	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(…))
//	mux.Handle("/files/", files)
//
// Call it before adding tools whose files take uploads only (mcpfile tag
// transfer=upload): [runtime.AddTool] refuses them on a server that does
// not serve uploads.
//
// files/authorizeUpload takes the client's declared name, mimeType, size
// and digest and checks them against the upload-capable file fields of
// the server (of the tools added with [runtime.AddTool], and of the forms
// [runtime.Elicit] has sent; a field takes uploads when its transferModes
// are absent or list "upload"): some field must accept the media type,
// with a maxSize (or [runtime.DefaultMaxSize]) of at least the size. The size is
// required (the upload is held to it, byte for byte); a missing mimeType
// means application/octet-stream. A violation is a JSON-RPC error -32602
// with data.reason (see [ErrorData]). The result has the file URI and the
// declared metadata, echoed as given (name sanitized), and an upload
// descriptor: a multipart POST to the upload endpoint, or, when the store
// is a [store.Presigner], a PUT straight to the backend.
//
// A file URI in an argument is checked in this order: its signature (for
// the caller's principal), expiry and host, then the stored file's media
// type, size and first bytes against the argument's x-mcp-file, with the
// texts of a data: URI's errors. An unknown, expired, foreign or malformed
// URI is refused with rule fileURI; nothing in a URI is ever treated as a
// path or fetched.
func Register(s *mcp.Server, o Options) (http.Handler, error) {
	if hook.Serves(s) {
		return nil, errors.New("transfer.Register: the server serves uploads already: call Register once per server")
	}
	c, err := newConfig(o)
	if err != nil {
		return nil, err
	}
	c.server = s
	c.schemas = func() []*descriptor.Schema { return hook.Schemas(s) }
	c.declare = func(d *descriptor.Schema) { hook.AddSchema(s, d) }
	if err := mcp.AddReceivingCustomMethod(s, MethodAuthorizeUpload, c.sdkAuthorizeUpload); err != nil {
		return nil, fmt.Errorf("transfer.Register: %w", err)
	}
	if err := mcp.AddReceivingCustomMethod(s, MethodAuthorizeDownload, c.sdkAuthorizeDownload); err != nil {
		return nil, fmt.Errorf("transfer.Register: %w", err)
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			var from sender
			switch method {
			case "tools/call", MethodAuthorizeUpload, MethodAuthorizeDownload:
				// Where file URIs are resolved (tools/call, elicitation
				// answers included) and files authorized.
				ss, _ := req.GetSession().(*mcp.ServerSession)
				creq, _ := req.(*mcp.CallToolRequest)
				from = c.sdkSender(req.GetExtra(), ss, creq)
				res := &resolver{c: c, from: from, session: ss}
				if method == "tools/call" {
					if creq != nil && creq.Params != nil {
						res.progressToken = creq.Params.GetProgressToken()
						res.tool = creq.Params.Name
					}
					defer res.callReads()()
				}
				ctx = hook.WithResolver(ctx, res, req.GetExtra())
			}
			r, err := next(ctx, method, req)
			if method == MethodAuthorizeUpload || method == MethodAuthorizeDownload {
				c.recordAuthorize(ctx, method, from, r, err)
			}
			if ctr, ok := r.(*mcp.CallToolResult); ok && err == nil && method == "tools/call" && !from.files.downloads() {
				// A copy: the handler may keep its result, for other clients.
				if out := c.fallback(ctx, from, ctr.Content); out != nil {
					r2 := *ctr
					r2.Content = out
					r = &r2
				}
			}
			return r, err
		}
	})
	hook.Serve(s)
	hook.SetObserver(s, c.obs.Observer)
	remember(s, c)
	return c.handler(), nil
}

// config is Register's Options with the defaults filled in.
type config struct {
	Options
	server       *mcp.Server                        // nil for a server on another SDK (runtime/mcpgo)
	schemas      func() []*descriptor.Schema        // the server's upload-capable schemas
	declare      func(*descriptor.Schema)           // records one more (an elicited form)
	httpOwner    func(*http.Request) (string, bool) // the principal of a request to the endpoints
	uploadURL    string
	downloadURL  string // followed by the token
	pageURL      string // followed by the token
	pagePostURL  string // where pages post their form
	publicOrigin string // scheme://host of PublicURL, as browsers send it in Origin
	quota        quota  // the one quota of every upload path
	pages        *pages
	bufs         *bufferPool   // the buffers of uploads, by the endpoint and by pages
	reads        *readFiles    // the files calls read, for ReadFileTTL
	admit        *admission    // the bounds of uploads in progress, likewise
	name         implName      // the server's name, for upload pages
	nameOf       func() string // on a server of another SDK (server nil), its name; nil: none
	obs          *observer     // the records and measurements of every path
}

func newConfig(o Options) (*config, error) {
	if o.Keys == nil {
		return nil, errors.New("transfer.Register: Options.Keys is required")
	}
	u, err := url.Parse(o.PublicURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("transfer.Register: Options.PublicURL %q is not an absolute http(s) URL", o.PublicURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("transfer.Register: Options.PublicURL %q has a query or fragment", o.PublicURL)
	}
	c := &config{Options: o}
	c.httpOwner = c.sdkHTTPOwner
	if c.Host == "" {
		c.Host = u.Host
	}
	c.Host = strings.ToLower(c.Host)
	if _, err := o.Keys.FileURI(token.FileRef{Host: c.Host, FileID: "x", Expires: time.Unix(1, 0)}); err != nil {
		return nil, fmt.Errorf("transfer.Register: Options.Host %q cannot be the host of a file URI: %v", c.Host, err)
	}
	if err := c.Options.fillDefaults(); err != nil {
		return nil, err
	}
	c.obs = newObserver(c.Logger, c.MeterProvider, c.Keys, c.ErrorLog)
	c.pages = newPages(c.MaxPages, c.MaxPagesPerCaller, c.MaxPagesPerAddress, c.MaxPagesPerNetwork)
	c.bufs = newBufferPool(c.Upload.BufferSize)
	c.reads = newReadFiles()
	c.admit = newAdmission(&c.Upload, c.obs)
	if c.Store == nil {
		ds, err := defaultStore(c.Keys, c.obs)
		if err != nil {
			return nil, fmt.Errorf("transfer.Register: the default store: %w (or set Options.Store)", err)
		}
		c.Store = ds
	}
	c.quota = newQuota(c.Store, c.Quota).withAnonymous(c.Store, c.AnonymousQuota)
	c.obs.observeUsage(c.Store, c.Now)
	base := strings.TrimSuffix(o.PublicURL, "/") + "/"
	c.uploadURL, c.downloadURL = base+UploadPath, base+DownloadPath+"/"
	c.pageURL, c.pagePostURL, c.publicOrigin = base+PagePath+"/", base+PagePath, origin(u)
	return c, nil
}

// errNoPrincipal: the request has auth token info that names no principal.
var errNoPrincipal = errors.New("the request's auth token info names no principal: set UserID in the token verifier, or transfer.Options.Owner")

// A sender is who sent a request, as the SDK tells it: what the transfer
// layer needs to know of a caller, whatever the SDK of its server. The
// go-sdk's side is made by [config.sdkSender]; runtime/mcpgo makes its own
// (through package fileserve).
type sender struct {
	// principal returns the principal the request's auth names; nil for
	// a request without auth, whose owner is anonymous. A principal of ""
	// is auth that names none, refused (errNoPrincipal).
	principal func() string
	// session is the ID of the request's session; "" where the protocol
	// has none (stdio, 2026-07-28).
	session string
	// files is the files capability the client declared.
	files FilesCapability
}

// sdkSender is the sender of a go-sdk request whose extra is given, made
// in session ss, and, for a tools/call, creq (nil for others).
func (c *config) sdkSender(extra *mcp.RequestExtra, ss *mcp.ServerSession, creq *mcp.CallToolRequest) sender {
	var s sender
	if extra != nil && extra.TokenInfo != nil {
		ti := extra.TokenInfo
		s.principal = func() string { return c.Owner(ti) }
	}
	if ss != nil {
		s.session = ss.ID()
	}
	if creq != nil {
		s.files = ClientFiles(creq)
	}
	return s
}

// owner is the principal of a request whose extra is given, made in
// session ss (nil when unknown): without auth token info, the anonymous
// owner of ss; an error when the token info names none.
func (c *config) owner(extra *mcp.RequestExtra, ss *mcp.ServerSession) (string, error) {
	return c.ownerOf(c.sdkSender(extra, ss, nil))
}

// ownerOf is the owner of the files of from: the principal of its auth,
// or, without auth, the anonymous owner of its session; an error when its
// auth names no principal.
func (c *config) ownerOf(from sender) (string, error) {
	if from.principal == nil {
		return sessionOwner(from.session), nil
	}
	if p := from.principal(); p != "" {
		return p, nil
	}
	c.obs.internal(context.Background(), "auth", "owner", errNoPrincipal)
	return "", errNoPrincipal
}

// anonymous reports whether owner is that of a caller without auth: "",
// a session's, or an address's (quotaOwner).
func anonymous(owner string) bool {
	return owner == "" || strings.HasPrefix(owner, sessionOwnerPrefix) || isAddressKey(owner)
}

// sessionOwnerPrefix starts the owner of an anonymous session.
const sessionOwnerPrefix = "\x00session "

// The anonymous owner of a caller without auth is one owner per session
// where the protocol has sessions with IDs (2025-11-25 over streamable
// HTTP), so that anonymous clients do not share one quota, and "" where it
// has none (stdio, whose one session is one client; 2026-07-28, where each
// request stands alone). It is a hash of the session ID, which the store
// records and must not hold (whoever has the ID can speak in the session);
// the NUL it starts with keeps it from any principal an auth layer names.

// sessionOwner is the anonymous owner of the session whose ID is sid.
func sessionOwner(sid string) string {
	if sid == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(sid))
	return sessionOwnerPrefix + base64.RawURLEncoding.EncodeToString(sum[:18])
}

// handler is the HTTP side: the upload endpoint at …/upload.
func (c *config) handler() http.Handler {
	uo := c.Upload
	uo.Store, uo.Keys, uo.Now, uo.TTL = c.Store, c.Keys, c.Now, c.FileTTL
	if uo.ErrorLog == nil {
		uo.ErrorLog = c.ErrorLog
	}
	if uo.Logger == nil {
		uo.Logger = c.Logger
	}
	if uo.MeterProvider == nil {
		uo.MeterProvider = c.MeterProvider
	}
	uo.Quota = c.Quota // the one quota (see Options.Upload)
	uo.Owner = c.httpOwner
	uo.fillDefaults()
	up := newUploadHandler(uo, c.bufs, c.admit, c.obs)
	up.quota = c.quota // with the bound on callers without auth
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dir, last := splitLast(r.URL.Path)
		switch {
		case last == UploadPath:
			up.ServeHTTP(w, r)
		case lastSegmentOf(dir) == DownloadPath && last != "":
			c.serveDownload(w, r, last)
		case last == PagePath:
			c.recordPage(opUpload, viaPage, w, r, func(w http.ResponseWriter) { c.servePagePost(w, r) })
		case lastSegmentOf(dir) == PagePath && last != "":
			c.recordPage(opPage, "", w, r, func(w http.ResponseWriter) { c.servePage(w, r, last) })
		default:
			w.Header().Set("Cache-Control", "no-store")
			refuseNotFound.says("not found (uploads go to …/" + UploadPath + ", downloads to …/" + DownloadPath + "/<token>, upload pages are at …/" + PagePath + "/<token>)").write(w)
		}
	})
}

// sdkHTTPOwner is the principal of an HTTP request to the transfer
// endpoints: the go-sdk's auth token info, when the endpoints are mounted
// behind the server's auth.
func (c *config) sdkHTTPOwner(r *http.Request) (string, bool) {
	ti := auth.TokenInfoFromContext(r.Context())
	if ti == nil {
		return "", false
	}
	p, err := c.ownerOf(sender{principal: func() string { return c.Owner(ti) }})
	if err != nil {
		return "\x00no principal", true // matches no token's owner: refused
	}
	return p, true
}

// splitLast splits a path at its last slash.
func splitLast(p string) (dir, last string) {
	i := strings.LastIndexByte(p, '/')
	return p[:max(i, 0)], p[i+1:]
}

func lastSegmentOf(p string) string {
	_, last := splitLast(p)
	return last
}
