package describeimage

import "github.com/mcpfile/mcpfile/runtime"

// Args are the arguments of the describe_image tool.
type Args struct {
	// Image is the image to describe.
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=5MiB"`
}
