package mcpfileimpl

import (
	"bytes"
	"errors"
	"slices"

	"github.com/segmentio/asm/ascii"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
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
// with the JSON string that carries its bytes. The base64 of a data: URI
// without escapes whose string is inline.MinRef bytes or more is decoded
// in place, and one whose text starts where the message lost a splice's,
// after head's bytes. See inline.Decode.
func decodeInline(arg string, val []byte, p *descriptor.Prop, text inline.Text, head func([]byte) []byte, each func(i int, s []byte, file any, undo func())) (err error) {
	if text == inline.Unchecked {
		// val is the whole string only if the string is valid JSON: an
		// error here sends the message through the careful walk, and no
		// error may be returned unless the string is known to be plain.
		if p.Kind == descriptor.Single && p.File.Form == "" && quickBase64(val) {
			text = inline.Plain // the base64 decoder checks the payload
		} else if plain(val[1 : len(val)-1]) {
			text = inline.Plain
		} else {
			return errUnchecked
		}
	}
	if jsonwalk.IsNull(val) || p.File.Form == descriptor.OpenAI {
		return nil // nothing inline: a ChatGPT file is fetched
	}
	var undos []func()
	defer func() {
		if err != nil {
			for _, u := range slices.Backward(undos) {
				u()
			}
		}
	}()
	// place returns how decodeString is to decode the string s: nil (into a
	// buffer of its own) for a short one when the message lost no splice.
	place := func(s []byte) *placement {
		if len(s) < inline.MinRef && head == nil {
			return nil
		}
		return &placement{inPlace: len(s) >= inline.MinRef, head: head}
	}
	done := func(i int, s []byte, f runtime.File, pl *placement) {
		var u func()
		if pl != nil {
			u = pl.undo
		}
		if u != nil {
			undos = append(undos, u)
		}
		each(i, s, f, u)
	}
	if text == inline.Plain && p.Kind == descriptor.Single && p.File.Form == "" {
		// A string the caller checked: what jsonString would check again.
		pl := place(val)
		f, err := decodeString(arg, val[1:len(val)-1], false, p.File, pl)
		if err != nil {
			return err
		}
		done(-1, val, f, pl)
		return nil
	}
	one := func(i int, arg string, tok []byte) error {
		var f runtime.File
		var err error
		var pl *placement
		s := jsonwalk.TrimWS(tok)
		if p.File.Form == descriptor.FileData {
			// Its base64 member is decoded into a buffer of its own.
			f, err = decodeForm(arg, tok, p.File)
			if err == nil {
				v, _ := members(s, "base64")
				s = v[0]
			}
		} else {
			pl = place(s)
			f, err = decodeJSONInPlace(arg, tok, p.File, pl)
		}
		if err != nil {
			return err
		}
		done(i, s, f, pl)
		return nil
	}
	if p.Kind == descriptor.Single {
		return one(-1, arg, val)
	}
	_, err = scanArray(arg, val, p, func(i int, item []byte) error {
		return one(i, arg, item)
	})
	return err
}

// errUnchecked is the error of an unchecked string that is not plain,
// which the fast path then reads again the careful way.
var errUnchecked = errors.New("not plain")

// plain reports whether the JSON string contents s are printable ASCII
// without a backslash (the quotes are the walk's to find).
func plain(s []byte) bool {
	return bytes.IndexByte(s, '\\') < 0 && ascii.ValidPrint(s)
}

// quickBase64 reports whether the JSON string val, unchecked, is a data:
// URI whose header, plain, marks a base64 payload: then its payload is
// left to the base64 decoder to check, which refuses a backslash, a quote,
// a control or non-ASCII byte as any other byte outside its alphabet
// (line breaks, which it skips, change the decoded length, which
// decodeBase64 checks against the length of the text). A header that is
// not plain, or a payload that is not base64, gives false.
func quickBase64(val []byte) bool {
	hdr, _, err := datauri.Split(val[1 : len(val)-1])
	if err != nil || !plain(val[1:6+len(hdr)]) {
		return false
	}
	h, herr := datauri.ParseHeader(hdr)
	return herr == nil && h.Base64
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
