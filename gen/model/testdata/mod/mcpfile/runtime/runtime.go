// Package runtime stands in for github.com/mcpfile/mcpfile/runtime in the
// model tests: only the File type matters to the generator.
package runtime

// File is a decoded file argument.
type File struct {
	MediaType string
	Name      string
	Data      []byte
}
