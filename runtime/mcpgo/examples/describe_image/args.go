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

// PageArgs are the arguments of describe_image_page, which asks the
// person for the image through an upload page: none, but for the retry
// of a client that could not show the page, which sends back the page's
// file URI as image, as the tool's result told it.
type PageArgs struct {
	Image *runtime.File `json:"image,omitempty" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=20MiB,transfer=upload"`
}

// PageImage is what describe_image_page's upload page asks for: one image
// of up to 20 MiB, chosen in the person's browser.
type PageImage struct {
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=20MiB"`
}
