// Package mcpfileimpl is what the code mcpfilegen generates calls: the
// decoder of a struct type with file fields. It is not for hand use: its
// API follows the generated code's version (runtime.GenVersion) and may
// change with it; servers use package runtime (runtime.AddTool,
// runtime.Unmarshal), which runs this decoder through the generated
// UnmarshalJSON methods.
//
// A generated UnmarshalJSON is one call to [Object.Unmarshal]: it walks the
// JSON object once, decodes each file member into its [Target] and checks
// it against the x-mcp-file constraints of the type's schema, which
// [NewObject] reads once, when the generated package is initialised, and
// registers as the one description of the type's files that the runtime's
// other paths read too. The other members are left to encoding/json.
//
// The check of one file value is check.go: scheme, form (package datauri
// parses the URI), media type against accept, size against maxSize before
// anything of the decoded size is allocated, the payload, and the content,
// each breaking one runtime.Rule, in the words of runtime.Error.
package mcpfileimpl
