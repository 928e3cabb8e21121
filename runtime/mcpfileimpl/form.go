package mcpfileimpl

import (
	"mime"
	"strconv"
	"strings"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// This file decodes the files that arrive as a host's object rather than
// as a data: URI (mcpfile tag form=): an Odeus FileData object, whose
// bytes are in it, checked here with the checks of a data: URI, and a
// ChatGPT file object, which names a URL that the runtime fetches before
// the handler runs, if the server set up a fetcher.

// decodeForm decodes tok, the raw JSON value of the file argument arg,
// whose schema says it arrives as d.Form.
func decodeForm(arg string, tok []byte, d descriptor.File) (runtime.File, error) {
	switch d.Form {
	case descriptor.FileData:
		f, err := decodeFileData(arg, tok, d)
		if err != nil {
			return runtime.File{}, err
		}
		return f, nil
	case descriptor.OpenAI:
		return openAIRef(arg, tok, d)
	}
	return runtime.File{}, formError(arg, "file: the schema names an unknown form")
}

// members is descriptor.Members.
func members(t []byte, names ...string) ([][]byte, bool) { return descriptor.Members(t, names...) }

// formErr is a RuleForm error of argument arg: what it wanted, and why.
func formErr(arg, what, reason string) *runtime.Error {
	return &runtime.Error{Arg: arg, Rule: runtime.RuleForm, Reason: what + ": " + reason}
}

const fileDataWhat = "FileData object"

// stringMember returns the string of the raw JSON value v, member name of
// an object: unescaped, at most max bytes (longer is an error: what it
// holds is never quoted), or "" when v is nil and not required.
func stringMember(arg, what, name string, v []byte, required bool, max int) (string, *runtime.Error) {
	if v == nil || jsonwalk.IsNull(v) {
		if required {
			return "", formErr(arg, what, "the member "+strconv.Quote(name)+" is missing")
		}
		return "", nil
	}
	if v[0] != '"' {
		return "", formErr(arg, what, "the member "+strconv.Quote(name)+" is "+jsonwalk.Kind(v)+", not a string")
	}
	if len(v) > 6*max+2 {
		return "", formErr(arg, what, "the member "+strconv.Quote(name)+" is longer than "+strconv.Itoa(max)+" bytes")
	}
	s := string(jsonwalk.Unquote(v[1 : len(v)-1]))
	if len(s) > max {
		return "", formErr(arg, what, "the member "+strconv.Quote(name)+" is longer than "+strconv.Itoa(max)+" bytes")
	}
	return s, nil
}

// declaredType parses a media type a host declared, for argument arg:
// lower-cased type/subtype, its parameters, and its charset.
func declaredType(arg, what, member, s string) (mt string, params map[string]string, err *runtime.Error) {
	mt, params, perr := mime.ParseMediaType(s)
	typ, sub, _ := strings.Cut(mt, "/")
	if perr != nil || typ == "" || sub == "" || strings.Contains(mt, "*") || len(s) > datauri.MaxHeaderLen {
		return "", nil, formErr(arg, what, "the member "+strconv.Quote(member)+" is not a media type such as image/png")
	}
	if len(params) == 0 {
		params = nil
	}
	return mt, params, nil
}

// decodeFileData decodes an Odeus FileData object,
// {"fileName": …, "mimeType": …, "base64": …, "size"?: …, "lastModified"?: …},
// with the checks of a data: URI, in the same order: the media type
// against accept, the size against maxSize from the base64's length
// (before anything of the decoded size is allocated), the base64, the
// declared size against the decoded one, the content against the media
// type. The file name is sanitized.
//
// A base64 member that is a reference the fast path made gives the File
// that stands for it, as decodeJSON does.
func decodeFileData(arg string, tok []byte, d descriptor.File) (runtime.File, *runtime.Error) {
	return decodeFileDataRefs(arg, tok, d, true)
}

// decodeFileDataRefs is decodeFileData, which takes references when refs is true.
func decodeFileDataRefs(arg string, tok []byte, d descriptor.File, refs bool) (runtime.File, *runtime.Error) {
	t := jsonwalk.TrimWS(tok)
	if len(t) == 0 || t[0] != '{' {
		return runtime.File{}, &runtime.Error{Arg: arg, Rule: runtime.RuleType, Reason: "received " + jsonwalk.Kind(t) + ", want a FileData object {fileName, mimeType, base64}"}
	}
	if why := descriptor.CheckFormObject(descriptor.FileData, t); why != "" {
		return runtime.File{}, formErr(arg, fileDataWhat, why)
	}
	v, _ := members(t, "fileName", "mimeType", "base64", "size")
	name, err := stringMember(arg, fileDataWhat, "fileName", v[0], true, 4096)
	if err != nil {
		return runtime.File{}, err
	}
	declared, err := stringMember(arg, fileDataWhat, "mimeType", v[1], true, datauri.MaxHeaderLen)
	if err != nil {
		return runtime.File{}, err
	}
	if declared == "" { // what a browser reports for a file it does not know
		declared = "application/octet-stream"
	}
	mt, params, err := declaredType(arg, fileDataWhat, "mimeType", declared)
	if err != nil {
		return runtime.File{}, err
	}
	if !d.Accepts(mt) {
		return runtime.File{}, mediaTypeError(arg, mt, d)
	}
	b64 := v[2]
	if b64 == nil || jsonwalk.IsNull(b64) {
		return runtime.File{}, formErr(arg, fileDataWhat, `the member "base64" is missing`)
	}
	if ref, ok := liveRef(b64); ok && refs {
		_, refusal := decodeFileDataRefs(arg, tok, d, false)
		var err error
		if refusal != nil {
			err = refusal
		}
		return inline.NewRef(ref, err).(runtime.File), nil
	}
	payload, escaped, jerr := jsonString(arg, b64, d)
	if jerr != nil {
		return runtime.File{}, formErr(arg, fileDataWhat, `the member "base64" is `+jsonwalk.Kind(jsonwalk.TrimWS(b64))+", not a string")
	}
	var data []byte
	var derr *runtime.Error
	if escaped {
		// JSON escapes in base64 (a "\/" from PHP's encoder): count the
		// decoded size on a walk of the unescaped pieces, which allocates
		// nothing, as for an escaped data: URI; unescape only after.
		c := payloadCounter{base64: true}
		for u, piece := jsonwalk.NewUnescaper(payload), []byte(nil); ; {
			if piece = u.Next(); piece == nil {
				break
			}
			c.add(piece)
		}
		if n, _, ok := datauri.Base64Len(c.total-c.lineBreaks, c.last, c.prev); ok {
			if limit := d.Limit(runtime.DefaultMaxSize); n > limit {
				return runtime.File{}, sizeError(arg, n, limit)
			}
		}
		data, derr = decodeBase64(arg, jsonwalk.Unquote(payload), d, false, nil)
	} else {
		data, derr = decodeBase64(arg, payload, d, true, nil)
	}
	if derr != nil {
		if derr.Rule == runtime.RuleURIForm {
			derr = formErr(arg, fileDataWhat, `the member "base64": `+derr.Reason)
		}
		return runtime.File{}, derr
	}
	if sz := v[3]; sz != nil && !jsonwalk.IsNull(sz) {
		n, ok := descriptor.Size(jsonwalk.TrimWS(sz))
		if !ok || n != int64(len(data)) {
			return runtime.File{}, formErr(arg, fileDataWhat, `the member "size" says `+shortNumber(sz)+" bytes, but the base64 decodes to "+strconv.Itoa(len(data)))
		}
	}
	if !d.NoSniff {
		if err := checkContent(arg, mt, strings.ToLower(params["charset"]), data[:min(len(data), content.SniffLen)]); err != nil {
			return runtime.File{}, err
		}
	}
	f := runtime.NewFile(mt, data)
	f.Params, f.Name = params, runtime.SanitizeName(name)
	return f, nil
}

// shortNumber is the raw JSON value v for an error text, cut short.
func shortNumber(v []byte) string {
	v = jsonwalk.TrimWS(v)
	if len(v) > 24 || len(v) == 0 || v[0] == '"' || v[0] == '{' || v[0] == '[' {
		return jsonwalk.Kind(v)
	}
	return string(v)
}

const openAIWhat = "ChatGPT file object"

// openAIRef reads a ChatGPT file object, {"download_url": …, "file_id": …,
// "mime_type"?: …, "file_name"?: …}, into a File that refers to its URL,
// for runtime.AddTool to fetch and check before the handler runs. A
// declared mime_type is checked against accept here, before anything is
// fetched.
func openAIRef(arg string, tok []byte, d descriptor.File) (runtime.File, error) {
	t := jsonwalk.TrimWS(tok)
	if len(t) > 0 && t[0] == '"' {
		return runtime.File{}, &runtime.Error{Arg: arg, Rule: runtime.RuleForm, Reason: descriptor.OpenAIStringReason}
	}
	if len(t) == 0 || t[0] != '{' {
		return runtime.File{}, &runtime.Error{Arg: arg, Rule: runtime.RuleType, Reason: "received " + jsonwalk.Kind(t) + ", want a file object {download_url, file_id}"}
	}
	if why := descriptor.CheckFormObject(descriptor.OpenAI, t); why != "" {
		return runtime.File{}, formErr(arg, openAIWhat, why)
	}
	v, _ := members(t, "download_url", "file_id", "mime_type", "file_name")
	url, err := stringMember(arg, openAIWhat, "download_url", v[0], true, 8192)
	if err != nil {
		return runtime.File{}, err
	}
	if _, err := stringMember(arg, openAIWhat, "file_id", v[1], true, 1024); err != nil {
		return runtime.File{}, err
	}
	declared, err := stringMember(arg, openAIWhat, "mime_type", v[2], false, datauri.MaxHeaderLen)
	if err != nil {
		return runtime.File{}, err
	}
	var mt string
	if declared != "" {
		if mt, _, err = declaredType(arg, openAIWhat, "mime_type", declared); err != nil {
			return runtime.File{}, err
		}
		if !d.Accepts(mt) {
			return runtime.File{}, mediaTypeError(arg, mt, d)
		}
	}
	name, err := stringMember(arg, openAIWhat, "file_name", v[3], false, 4096)
	if err != nil {
		return runtime.File{}, err
	}
	return hook.NewFetchRef(url, declared, name).(runtime.File), nil
}
