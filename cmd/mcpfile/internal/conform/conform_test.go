package conform

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// breaks are the rules a test server can be told to break, one at a time.
type breaks struct {
	acceptAny     bool // accept every media type
	noSniff       bool // believe the declared type
	echo          bool // quote the payload in refusals
	fetch         bool // GET http: and https: URLs before refusing them
	acceptHTTPS   bool // take https: URLs as files, without fetching
	acceptPaths   bool // take paths as files, without opening them
	acceptHTTP    bool // take http: URLs as files, without fetching
	acceptFile    bool // take file: URIs as files, without opening them
	noJPEG        bool // refuse JPEG, which accept names
	noComma       bool // read "data:<type>;base64<data>" without its comma
	offByOne      bool // refuse only above maxSize + 1
	strictSize    bool // refuse maxSize itself
	noPercent     bool // take only ;base64
	caseSensitive bool // match media types case-sensitively
	noParams      bool // refuse media types with parameters
	lenientBase64 bool // skip characters that are not base64
	noMaxItems    bool
	noMinItems    bool
	unnamed       bool // refusals do not name the argument
	rpcReason     bool // refuse with -32602 and data.reason
	rpcNoReason   bool // refuse with -32602 without data.reason
	dies          bool // fail every request of a session after a refusal in it
	badShape      bool // a tool with x-mcp-file on a string without format uri

	// Elicitation: a profile tool asks for its photo when the call has
	// none (elicit_test.go), breaking one rule when asked.
	elicit            bool
	elicitNoType      bool // take an answer of any type
	elicitNoSize      bool // take an answer over maxSize
	elicitNoSniff     bool // believe an answer's declared type
	elicitRPC         bool // refuse an answer with a JSON-RPC error
	elicitIsError     bool // refuse an answer with an isError result, not a new form
	elicitRefuseValid bool // refuse every answer

	// SEP-2631: the server serves uploads and downloads (transfer_test.go),
	// breaking one rule when asked.
	transfer             bool
	usePUT               bool // upload descriptors are PUTs with a bearer token, not multipart POSTs
	noUploads            bool // an upload-only argument, but no files/authorizeUpload
	refuseUploads        bool // refuse every uploaded file in tools/call
	noExpiry             bool // upload descriptors without expiresAt
	authorizeNoReason    bool // a malformed declaration: -32602 without data.reason
	noSizeCheck          bool // take an upload of another size than declared
	noDigestCheck        bool // take an upload whose bytes do not have the declared digest
	digestNoReason       bool // refuse a digest mismatch without saying so
	replay               bool // take a second upload with a used descriptor
	noTokenCheck         bool // take an upload whose token was altered
	noTypeRecheck        bool // take any uploaded file whatever accept says
	noSizeRecheck        bool // take any uploaded file whatever maxSize says
	recheckOnce          bool // take a file URI it accepted once in any argument
	acceptUnknown        bool // take file URIs it never issued
	inlineToUploadOnly   bool // take data: URIs in an upload-only argument
	fileBlockToAll       bool // send file blocks to clients without files.download
	badDownload          bool // serve other bytes than the declared digest's
	badRange             bool // answer a Range with other bytes
	downloadNoTokenCheck bool // serve a download whose token was altered
	downloadUnknown      bool // authorize downloads of file URIs it never issued
	noDownloadExpiry     bool // download descriptors without expiresAt
}

const (
	imageTool = `{"type":"object","properties":{
		"image":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png","image/jpeg"],"maxSize":4096}},
		"caption":{"type":"string"}},"required":["image","caption"]}`
	docsTool = `{"type":"object","properties":{
		"docs":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain","application/pdf"],"maxSize":3000}}}},
		"required":["docs"]}`
	malformedTool = `{"type":"object","properties":{"file":{"type":"string","x-mcp-file":{"maxSize":10}}}}`
)

var accepts = map[string][]string{"photo": {"image/png", "image/jpeg"}, "image": {"image/png", "image/jpeg"}, "docs": {"text/plain", "application/pdf"}, "doc": {"text/plain", "application/pdf"}, "text": {"text/plain"}}

var maxSizes = map[string]int{"photo": 4096, "image": 4096, "docs": 3000, "doc": 3000, "text": 2000}

// testServer is a file-taking server written without mcpfile's runtime:
// hand-written schemas, and a handler that checks each file as SEP-2356
// says, except for the rule b breaks.
func testServer(t *testing.T, b breaks) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	var mu sync.Mutex
	refused := map[*mcp.ServerSession]bool{}
	var fileURI func(req *mcp.CallToolRequest, name, v string) (*mcp.CallToolResult, error) // set with b.transfer
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		name, values := "image", []any{args["image"]}
		if req.Params.Name == "docs" {
			name = "docs"
			values, _ = args["docs"].([]any)
			switch {
			case len(values) > 3 && !b.noMaxItems:
				return b.refuse(refused, &mu, req, name, fmt.Sprintf("holds %d files, at most 3", len(values)), "maxItems", nil)
			case len(values) < 1 && !b.noMinItems:
				return b.refuse(refused, &mu, req, name, "holds no file, at least 1", "minItems", nil)
			}
		}
		for _, v := range values {
			s, _ := v.(string)
			if fileURI != nil && strings.HasPrefix(s, uriPrefix) {
				if res, err := fileURI(req, name, s); res != nil || err != nil {
					return res, err
				}
				continue
			}
			if msg, reason, payload := b.check(name, s); msg != "" {
				return b.refuse(refused, &mu, req, name, msg, reason, payload)
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("got %d file(s)", len(values))}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "image", InputSchema: json.RawMessage(imageTool)}, handler)
	s.AddTool(&mcp.Tool{Name: "docs", InputSchema: json.RawMessage(docsTool)}, handler)
	if b.badShape {
		s.AddTool(&mcp.Tool{Name: "malformed", InputSchema: json.RawMessage(malformedTool)}, handler)
	}
	if b.elicit {
		addProfile(s, b, func(req *mcp.CallToolRequest, name, msg, reason string, payload []byte) (*mcp.CallToolResult, error) {
			return b.refuse(refused, &mu, req, name, msg, reason, payload)
		})
	}
	if b.transfer {
		fileURI = addTransfer(t, s, b, func(req *mcp.CallToolRequest, name, msg, reason string, payload []byte) (*mcp.CallToolResult, error) {
			return b.refuse(refused, &mu, req, name, msg, reason, payload)
		})
	}
	if b.dies {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				ss, _ := req.GetSession().(*mcp.ServerSession)
				mu.Lock()
				dead := refused[ss]
				mu.Unlock()
				if dead {
					return nil, fmt.Errorf("this session is broken")
				}
				return next(ctx, method, req)
			}
		})
	}
	return s
}

// refuse answers a violation in the form b chooses.
func (b breaks) refuse(refused map[*mcp.ServerSession]bool, mu *sync.Mutex, req *mcp.CallToolRequest, name, msg, reason string, payload []byte) (*mcp.CallToolResult, error) {
	mu.Lock()
	refused[req.Session] = true
	mu.Unlock()
	text := fmt.Sprintf("Argument '%s' %s.", name, msg)
	if b.unnamed {
		text = "invalid file: " + msg
	}
	if b.echo && len(payload) > 0 {
		text += " It began " + base64.StdEncoding.EncodeToString(payload[:min(24, len(payload))])
	}
	switch {
	case b.rpcReason:
		data, _ := json.Marshal(map[string]string{"reason": reason})
		return nil, &jsonrpc.Error{Code: -32602, Message: text, Data: data}
	case b.rpcNoReason:
		return nil, &jsonrpc.Error{Code: -32602, Message: text}
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// check returns what is wrong with the file value s of argument name, the
// reason, and the decoded payload; "" when it is a valid file.
func (b breaks) check(name, s string) (string, string, []byte) {
	if !strings.HasPrefix(s, "data:") {
		if b.fetch && (strings.HasPrefix(s, "http:") || strings.HasPrefix(s, "https:")) {
			if res, err := http.Get(s); err == nil {
				res.Body.Close()
			}
		}
		switch {
		case b.acceptHTTPS && strings.HasPrefix(s, "https:"):
			return "", "", nil
		case b.acceptPaths && !strings.Contains(s, ":"):
			return "", "", nil
		case b.acceptHTTP && strings.HasPrefix(s, "http:"):
			return "", "", nil
		case b.acceptFile && strings.HasPrefix(s, "file:"):
			return "", "", nil
		}
		return "is not a data: URI", "scheme", nil
	}
	head, data, ok := strings.Cut(s[len("data:"):], ",")
	if !ok && b.noComma {
		head, data, ok = strings.Cut(s[len("data:"):], ";base64")
		head += ";base64"
	}
	if !ok {
		return "is not a valid data: URI: no comma", "malformed", nil
	}
	var payload []byte
	if mt, ok := strings.CutSuffix(head, ";base64"); ok {
		head = mt
		if b.lenientBase64 {
			data = strings.Map(func(r rune) rune {
				if strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", r) {
					return r
				}
				return -1
			}, data)
		}
		p, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return "is not valid base64", "malformed", nil
		}
		payload = p
	} else {
		if b.noPercent {
			return "must be base64", "malformed", nil
		}
		p, err := url.PathUnescape(data)
		if err != nil {
			return "is not valid percent-encoding", "malformed", nil
		}
		payload = []byte(p)
	}
	mt, params, _ := strings.Cut(head, ";")
	if b.noParams && params != "" {
		return "has media type parameters", "mimeTypeNotAccepted", payload
	}
	if !b.caseSensitive {
		mt = strings.ToLower(mt)
	}
	if b.noJPEG && mt == "image/jpeg" {
		return "has a media type this server does not take", "mimeTypeNotAccepted", payload
	}
	if !b.acceptAny && !slices.Contains(accepts[name], mt) {
		return "has a media type that accept does not allow", "mimeTypeNotAccepted", payload
	}
	limit := maxSizes[name]
	switch {
	case b.offByOne && len(payload) > limit+1,
		b.strictSize && len(payload) >= limit,
		!b.offByOne && !b.strictSize && len(payload) > limit:
		return "exceeds maxSize: received " + strconv.Itoa(len(payload)) + " bytes", "maxSizeExceeded", payload
	}
	if !b.noSniff && !sniffs(strings.ToLower(mt), payload) {
		return "fails the content check", "contentMismatch", payload
	}
	return "", "", nil
}

func sniffs(mt string, p []byte) bool {
	switch mt {
	case "image/png":
		return bytes.HasPrefix(p, []byte("\x89PNG\r\n\x1a\n"))
	case "image/jpeg":
		return bytes.HasPrefix(p, []byte{0xff, 0xd8, 0xff})
	case "application/pdf":
		return bytes.HasPrefix(p, []byte("%PDF-"))
	case "text/plain":
		return utf8.Valid(p) && !bytes.ContainsAny(p, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x1a\x1b")
	}
	return false
}

// connector connects to a fresh session of s in memory.
func connector(s *mcp.Server) func() mcp.Transport {
	return func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			return failing{err}
		}
		return ct
	}
}

// failing is a transport that cannot connect.
type failing struct{ err error }

func (f failing) Connect(context.Context) (mcp.Connection, error) { return nil, f.err }

func failed(r *Report) []string {
	var ids []string
	for _, c := range r.Checks {
		if c.Status == "fail" {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// TestEachCheckCanFail runs the suite against servers that each break one
// rule, and requires that exactly the checks of that rule fail.
func TestEachCheckCanFail(t *testing.T) {
	for _, tt := range failCases {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Run(t.Context(), Options{Transport: connector(testServer(t, tt.b))})
			if err != nil {
				t.Fatal(err)
			}
			if got := failed(rep); !slices.Equal(got, tt.want) {
				var b strings.Builder
				rep.WriteTable(&b)
				t.Errorf("failed checks %q, want %q\n%s", got, tt.want, b.String())
			}
		})
	}
}

// TestEveryCheckHasAFailingServer: each check is the one that fails
// against some server of TestEachCheckCanFail.
func TestEveryCheckHasAFailingServer(t *testing.T) {
	proven := map[string]bool{}
	for _, tt := range failCases {
		for _, id := range tt.want {
			proven[id] = true
		}
	}
	for _, c := range checks {
		if !proven[c.id] {
			t.Errorf("no test server fails %s", c.id)
		}
	}
}

// failCases are servers that each break one rule, and the checks that
// must fail against them (in report order).
var failCases = []struct {
	name string
	b    breaks
	want []string
}{
	{"conforming", breaks{}, nil},
	{"refuses with -32602 and data.reason", breaks{rpcReason: true}, nil},
	{"accepts any media type", breaks{acceptAny: true}, []string{"inline.refuse.type"}},
	{"believes the declared type", breaks{noSniff: true}, []string{"inline.refuse.content"}},
	{"echoes the base64", breaks{echo: true}, []string{"refusal.noecho"}},
	{"fetches URLs", breaks{fetch: true}, []string{"scheme.nofetch"}},
	{"takes https: URLs", breaks{acceptHTTPS: true}, []string{"scheme.refuse.https"}},
	{"takes paths", breaks{acceptPaths: true}, []string{"scheme.refuse.path"}},
	{"takes http: URLs", breaks{acceptHTTP: true}, []string{"scheme.refuse.http"}},
	{"takes file: URIs", breaks{acceptFile: true}, []string{"scheme.refuse.file"}},
	{"refuses a type accept names", breaks{noJPEG: true}, []string{"inline.accept.base64"}},
	{"reads a data: URI without its comma", breaks{noComma: true}, []string{"uri.refuse.nocomma"}},
	{"accepts maxSize + 1", breaks{offByOne: true}, []string{"inline.refuse.maxsize"}},
	{"refuses maxSize", breaks{strictSize: true}, []string{"inline.accept.maxsize"}},
	{"takes only base64", breaks{noPercent: true}, []string{"inline.accept.percent"}},
	{"matches media types by case", breaks{caseSensitive: true}, []string{"inline.accept.mediatype-case"}},
	{"refuses media type parameters", breaks{noParams: true}, []string{"inline.accept.mediatype-params"}},
	{"decodes bad base64", breaks{lenientBase64: true}, []string{"uri.refuse.badbase64"}},
	{"ignores maxItems", breaks{noMaxItems: true}, []string{"array.refuse.maxitems"}},
	{"ignores minItems", breaks{noMinItems: true}, []string{"array.refuse.minitems"}},
	{"does not name the argument", breaks{unnamed: true}, []string{"refusal.form"}},
	{"-32602 without data.reason", breaks{rpcNoReason: true}, []string{"refusal.form"}},
	{"stops answering after a refusal", breaks{dies: true}, []string{"refusal.alive"}},
	{"malformed keyword", breaks{badShape: true}, []string{"schema.shape"}},

	// Elicitation.
	{"asks for a file", breaks{elicit: true}, nil},
	{"refuses an answer with isError", breaks{elicit: true, elicitIsError: true}, nil},
	{"refuses every answer", breaks{elicit: true, elicitRefuseValid: true}, []string{"elicit.accept"}},
	{"takes answers of any type", breaks{elicit: true, elicitNoType: true}, []string{"elicit.refuse.type"}},
	{"takes answers over maxSize", breaks{elicit: true, elicitNoSize: true}, []string{"elicit.refuse.maxsize"}},
	{"believes an answer's type", breaks{elicit: true, elicitNoSniff: true}, []string{"elicit.refuse.content"}},
	{"refuses answers with a JSON-RPC error", breaks{elicit: true, elicitRPC: true}, []string{"elicit.refusal.form"}},

	// SEP-2631.
	{"serves uploads and downloads", breaks{transfer: true}, nil},
	{"uploads by PUT", breaks{transfer: true, usePUT: true}, nil},
	{"uploads by PUT, refusals as -32602", breaks{transfer: true, usePUT: true, rpcReason: true}, nil},
	{"refuses the file URIs it issued", breaks{transfer: true, refuseUploads: true}, []string{"upload.accept"}},
	{"upload-only without files/authorizeUpload", breaks{transfer: true, noUploads: true}, []string{"upload.serve"}},
	{"upload descriptors that never expire", breaks{transfer: true, noExpiry: true}, []string{"upload.authorize"}},
	{"authorize refusal without data.reason", breaks{transfer: true, authorizeNoReason: true}, []string{"upload.authorize.reason"}},
	{"takes uploads of another size", breaks{transfer: true, noSizeCheck: true}, []string{"upload.refuse.size"}},
	{"takes uploads of another digest", breaks{transfer: true, noDigestCheck: true}, []string{"upload.refuse.digest"}},
	{"digest mismatch not told apart", breaks{transfer: true, digestNoReason: true}, []string{"upload.digest.reason"}},
	{"takes a descriptor twice", breaks{transfer: true, replay: true}, []string{"upload.refuse.replay"}},
	{"takes altered upload tokens", breaks{transfer: true, noTokenCheck: true}, []string{"upload.refuse.token"}},
	{"takes any uploaded type", breaks{transfer: true, noTypeRecheck: true}, []string{"upload.refuse.type", "upload.uri.recheck"}},
	{"takes any uploaded size", breaks{transfer: true, noSizeRecheck: true}, []string{"upload.refuse.maxsize"}},
	{"checks a file URI once", breaks{transfer: true, recheckOnce: true}, []string{"upload.uri.recheck"}},
	{"takes unknown file URIs", breaks{transfer: true, acceptUnknown: true}, []string{"upload.refuse.unknown"}},
	{"takes data: in an upload-only argument", breaks{transfer: true, inlineToUploadOnly: true}, []string{"upload.refuse.inline"}},
	{"file blocks to every client", breaks{transfer: true, fileBlockToAll: true}, []string{"download.fallback"}},
	{"serves other bytes", breaks{transfer: true, badDownload: true}, []string{"download.verify"}},
	{"answers Range with other bytes", breaks{transfer: true, badRange: true}, []string{"download.range"}},
	{"serves altered download tokens", breaks{transfer: true, downloadNoTokenCheck: true}, []string{"download.refuse.token"}},
	{"authorizes unknown downloads", breaks{transfer: true, downloadUnknown: true}, []string{"download.refuse.unknown"}},
	{"download descriptors that never expire", breaks{transfer: true, noDownloadExpiry: true}, []string{"download.authorize"}},
}

// TestReportsRefusalForm: the refusal form the server chose is reported.
func TestReportsRefusalForm(t *testing.T) {
	for _, tt := range []struct {
		b    breaks
		want string
	}{
		{breaks{}, "refusal(s) as isError"},
		{breaks{rpcReason: true}, "refusal(s) as -32602"},
	} {
		rep, err := Run(t.Context(), Options{Transport: connector(testServer(t, tt.b))})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Checks {
			if c.ID == "refusal.form" && (c.Status != "pass" || !strings.Contains(c.Detail, tt.want)) {
				t.Errorf("refusal.form = %s %q, want pass and %q", c.Status, c.Detail, tt.want)
			}
		}
	}
}

// TestNoFileArguments: a server without file arguments skips every check,
// never passes one.
func TestNoFileArguments(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"s":{"type":"string"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	rep, err := Run(t.Context(), Options{Transport: connector(s)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.Status != "skip" {
			t.Errorf("%s = %s, want skip", c.ID, c.Status)
		}
	}
	if len(rep.Checks) != len(checks) {
		t.Errorf("%d checks reported, want %d", len(rep.Checks), len(checks))
	}
}

// TestUnreachable: a server the suite cannot connect to is an error.
func TestUnreachable(t *testing.T) {
	_, err := Run(t.Context(), Options{Transport: func() mcp.Transport { return failing{os.ErrNotExist} }})
	if err == nil || !strings.Contains(err.Error(), "could not be checked") {
		t.Errorf("Run = %v, want an error that it could not be checked", err)
	}
}

// TestMustFailed: only a failed MUST fails the run; a failed SHOULD is a
// warning.
func TestMustFailed(t *testing.T) {
	for _, tt := range []struct {
		checks []Check
		want   bool
	}{
		{[]Check{{Level: "MUST", Status: "pass"}, {Level: "SHOULD", Status: "skip"}}, false},
		{[]Check{{Level: "SHOULD", Status: "fail"}}, false},
		{[]Check{{Level: "MUST", Status: "skip"}, {Level: "MUST", Status: "fail"}}, true},
	} {
		r := &Report{Checks: tt.checks}
		if got := r.MustFailed(); got != tt.want {
			t.Errorf("MustFailed(%+v) = %v, want %v", tt.checks, got, tt.want)
		}
		var b strings.Builder
		r.WriteTable(&b)
		if strings.Contains(b.String(), "fail    SHOULD") {
			t.Errorf("the table shows a failed SHOULD as fail, want warn:\n%s", b.String())
		}
	}
}

// TestBigNeedsFlag: a maxSize over 64 MiB is not sent without Big: its
// checks skip and say how to run them. (The server serves no uploads;
// TestTransferBigNeedsFlag has upload.refuse.maxsize.)
func TestBigNeedsFlag(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object","properties":{"f":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain","application/pdf"],"maxSize":104857600}}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ F string }
			json.Unmarshal(req.Params.Arguments, &args)
			if msg, _, _ := (breaks{}).check("docs", args.F); msg != "" && !strings.Contains(msg, "maxSize") {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Argument 'f' " + msg}}}, nil
			}
			return &mcp.CallToolResult{}, nil
		})
	rep, err := Run(t.Context(), Options{Transport: connector(s), Versions: []string{"2025-11-25"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.ID, "inline.") && strings.HasSuffix(c.ID, ".maxsize") && (c.Status != "skip" || !strings.Contains(c.Detail, "run with -big")) {
			t.Errorf("%s = %s %q, want a skip that names -big", c.ID, c.Status, c.Detail)
		}
	}
	if f := failed(rep); len(f) != 0 {
		t.Errorf("failed %q", f)
	}
}
