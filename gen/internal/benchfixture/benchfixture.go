// Package benchfixture holds the type whose generated decoder the
// benchmarks of issue 6 measure: one 5 MiB file and a few ordinary fields.
// The committed mcpfile_gen.go is mcpfilegen's output for this file,
// refreshed by go generate.
package benchfixture

import "github.com/mcpfile/mcpfile/runtime"

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen

// Describe is the input of a describe_image tool.
type Describe struct {
	// Image is the image to describe.
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg,maxSize=5MiB"`
	// Prompt is what to look for.
	Prompt string `json:"prompt"`
	// Detail is how much detail to give, 1 to 5.
	Detail int `json:"detail,omitempty"`
	// Tags are labels to attach to the answer.
	Tags []string `json:"tags,omitempty"`
	// Strict asks for a refusal rather than a guess.
	Strict bool `json:"strict,omitempty"`
}
