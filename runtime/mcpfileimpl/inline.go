package mcpfileimpl

import (
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// This file is the decoder's side of the fast path of inline files
// (package inline): the serving code decodes a tools/call's files with
// the code below, which is the decoder's own, and the decoder recognises
// the references it put in their place.

func init() { inline.Decode = decodeInline }

// decodeInline decodes val, the raw JSON value of the file argument arg
// that p describes, as [Object.Unmarshal] decodes it into a runtime.File
// (a single one, or each item of a slice), calling each for every file
// with the JSON string that carries its bytes. See inline.Decode.
func decodeInline(arg string, val []byte, p *descriptor.Prop, plain bool, each func(i int, s []byte, file any)) error {
	if jsonwalk.IsNull(val) || p.File.Form == descriptor.OpenAI {
		return nil // nothing inline: a ChatGPT file is fetched
	}
	if plain && p.Kind == descriptor.Single && p.File.Form == "" {
		// A string the caller checked: what jsonString would check again.
		f, err := decodeString(arg, val[1:len(val)-1], false, p.File)
		if err != nil {
			return err
		}
		each(-1, val, f)
		return nil
	}
	one := func(i int, arg string, tok []byte) error {
		var f runtime.File
		var err error
		s := jsonwalk.TrimWS(tok)
		if p.File.Form == descriptor.FileData {
			f, err = decodeForm(arg, tok, p.File)
			if err == nil {
				v, _ := members(s, "base64")
				s = v[0]
			}
		} else {
			f, err = decodeJSON(arg, tok, p.File)
		}
		if err != nil {
			return err
		}
		each(i, s, f)
		return nil
	}
	if p.Kind == descriptor.Single {
		return one(-1, arg, val)
	}
	_, err := scanArray(arg, val, p, func(i int, item []byte) error {
		return one(i, arg, item)
	})
	return err
}

// liveRef returns the reference that the JSON value tok is, when it is a
// string holding one not taken yet (see inline.Live).
func liveRef(tok []byte) (string, bool) {
	t := jsonwalk.TrimWS(tok)
	if len(t) < 2+len(inline.Scheme) || t[0] != '"' || t[1] != inline.Scheme[0] || t[len(t)-1] != '"' {
		return "", false
	}
	ref := t[1 : len(t)-1]
	if !inline.Live(ref) {
		return "", false
	}
	return string(ref), true
}
