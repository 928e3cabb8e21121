package main

import "github.com/mcpfile/mcpfile/runtime"

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen

// UploadArgs are the arguments of describe_image_upload: an image of up to
// 20 MiB that the client uploads out of band (SEP-2631:
// files/authorizeUpload, then an HTTP POST beside the MCP connection) and
// names by the file URI it got.
type UploadArgs struct {
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=20MiB,transfer=upload"`
}
