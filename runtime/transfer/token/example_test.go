package token_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

func Example() {
	// On every replica: the same key, e.g. from MCPFILE_TRANSFER_KEY.
	key, err := token.ParseKeyHex(strings.Repeat("2a", 32))
	if err != nil {
		panic(err)
	}
	keys, err := token.NewKeyring(key)
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 4, 20, 18, 0, 0, 0, time.UTC)

	// files/authorizeUpload: a token for the upload descriptor.
	tok, err := keys.Sign(token.Claims{
		Purpose:   token.PurposeUpload,
		FileID:    "file_01HXYZ",
		Size:      248123,
		MediaType: "application/pdf",
		Expires:   now.Add(30 * time.Minute),
	})
	if err != nil {
		panic(err)
	}

	// The upload handler, on any replica.
	c, err := keys.Verify(tok, token.PurposeUpload, now.Add(time.Minute))
	fmt.Println(c.FileID, c.Size, c.MediaType, err)
	_, err = keys.Verify(tok, token.PurposeDownload, now.Add(time.Minute))
	fmt.Println(err)
	_, err = keys.Verify(tok, token.PurposeUpload, now.Add(time.Hour))
	fmt.Println(errors.Is(err, token.ErrExpired))

	// The file URI the result carries, and its resolution in tools/call.
	uri, err := keys.FileURI(token.FileRef{Host: "server", FileID: c.FileID, Expires: now.Add(24 * time.Hour)})
	if err != nil {
		panic(err)
	}
	// Only the host and the key id can be read from it.
	fmt.Println(uri[:strings.LastIndexByte(uri, '.')] + ".<sealed>")
	ref, err := keys.ParseFileURI(uri, "", now.Add(time.Hour))
	fmt.Println(ref.FileID, err)
	_, err = keys.ParseFileURI("mcp-file://server/../etc/passwd", "", now)
	fmt.Println(err)
	// Output:
	// file_01HXYZ 248123 application/pdf <nil>
	// token (132 bytes): wrong purpose: issued for "upload", want "download"
	// true
	// mcp-file://server/CaoVHSEC.<sealed>
	// file_01HXYZ <nil>
	// file URI (31 bytes): malformed: path has more than one segment (want mcp-file://<host>/<key id>.<sealed> as returned by files/authorizeUpload)
}
