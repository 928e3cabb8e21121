package describeimage

import "github.com/mcpfile/mcpfile/runtime"

// The same image argument as [Args], in the shapes today's hosts send a file
// in: the accept list and maxSize are Args', and so are the checks.

// FileDataArgs are the arguments of the describe_image_filedata tool, whose
// image arrives as an Odeus FileData object.
type FileDataArgs struct {
	// Image is the image to describe.
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=5MiB,form=filedata"`
}

// ChatGPTArgs are the arguments of the describe_image_chatgpt tool, whose
// image arrives as a ChatGPT file object that the server fetches.
type ChatGPTArgs struct {
	// Image is the image to describe.
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=5MiB,form=openai"`
}
