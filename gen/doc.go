// Package gen is mcpfilegen's library: it turns Go struct types whose fields
// carry mcpfile tags into generated Go that gives each type an input schema
// with the x-mcp-file keyword (MCPSchema) and a decoder that decodes and
// validates its file arguments (UnmarshalJSON).
//
// [Generate] is a pure function from a [Config] to the files to write; the
// mcpfilegen command writes them. It runs the phases in order, each a
// package of its own:
//
//   - gen/load loads the packages with golang.org/x/tools/go/packages;
//   - gen/model selects the types, parses their mcpfile tags (gen/tag) and
//     checks them, collecting every problem with its position; checking
//     runs the SDK's schema inference (gen/internal/infer);
//   - gen/schema builds each type's schema as the MCP Go SDK would infer
//     it, with the file fields described by x-mcp-file, and writes its JSON;
//   - gen/emit renders the Go file of each package.
//
// Within a phase, the types are worked on in parallel, one goroutine per
// processor (gen/internal/par). What a phase builds for one type and the
// next phase does not read is dropped as soon as the type is done, so that
// the memory a run holds is the loaded packages' types, the model and the
// output, growing with the number of types, not a copy of each per phase:
// the loaded syntax goes once the model is built, each inferred schema once
// it is written, each type's syntax tree once its code is formatted.
//
// The tag syntax and the generated code are described in the mcpfilegen
// command's documentation, github.com/mcpfile/mcpfile/cmd/mcpfilegen.
package gen
