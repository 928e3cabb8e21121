// Mcpfilegen lets an MCP server built on github.com/modelcontextprotocol/go-sdk
// take files as tool arguments. For each Go struct type whose fields carry
// mcpfile tags it generates the type's input schema, in which every file
// field is a property with the x-mcp-file keyword of SEP-2356, and a decoder
// that turns each file argument, a data: URI, into a checked runtime.File.
//
// Annotate the input type of a tool:
//
//	package tools
//
//	import "github.com/mcpfile/mcpfile/runtime"
//
//	//go:generate go tool mcpfilegen
//
//	// CompareInput is the input of the compare_documents tool.
//	type CompareInput struct {
//		// Documents to compare, two to five PDFs or text files.
//		Documents []runtime.File `json:"documents" mcpfile:"accept=application/pdf|text/plain,maxSize=10MiB,maxFiles=5"`
//		// The cover picture, shown as the report's first page.
//		Cover *runtime.File `json:"cover,omitempty" mcpfile:"accept=image/*,maxSize=512KiB,filename=cover_name"`
//		// The cover's file name, as the user picked it.
//		CoverName string `json:"cover_name,omitempty"`
//		// A scan kept as its data: URI, checked but not decoded.
//		Scan string `json:"scan,omitempty" mcpfile:"accept=image/tiff,maxSize=20MiB"`
//		Detail string `json:"detail,omitempty" jsonschema:"how much detail to give"`
//	}
//
// The tool's handler gets each file argument as a checked runtime.File: its
// MediaType, Name and Size(), and its bytes through Open(), a reader
// (io.Reader, io.ReaderAt, io.Seeker; close it when done) that works for
// every file, or, for a file held in memory as every data: URI is,
// Bytes(), without a copy:
//
//	for _, doc := range in.Documents {
//		r, err := doc.Open()
//		if err != nil {
//			return nil, nil, err
//		}
//		sum := sha256.New()
//		_, err = io.Copy(sum, r)
//		r.Close()
//		if err != nil {
//			return nil, nil, err
//		}
//		…
//	}
//
// Pin the generator in the module, so that its version matches the runtime
// package's, and run it:
//
//	go get -tool github.com/mcpfile/mcpfile/cmd/mcpfilegen
//	go generate ./...
//
// go generate runs mcpfilegen in the package's directory; it writes
// mcpfile_gen.go there, which gives every selected type T
//
//   - func (T) MCPSchema() json.RawMessage: T's object schema, computed at
//     generation time, as the Go SDK would infer it (json names, required
//     fields, descriptions from jsonschema tags or else doc comments,
//     additionalProperties false) with each file field as
//     {"type":"string","format":"uri","x-mcp-file":{"accept":[…],"maxSize":n}}
//     (an array of those for a slice; "transferModes":[…] follows maxSize
//     for a field with transfer=; for a field with form=, the host's object
//     with {"form":…,"accept":[…],"maxSize":n} in x-mcpfile-form). Use it as
//     mcp.Tool.InputSchema, or register the tool with runtime.AddTool, which
//     does.
//   - func (t *T) UnmarshalJSON(b []byte) error, when T has file fields: one
//     call to the runtime package (runtime.Object), given T's member names,
//     which of them are files and T's schema, whose x-mcp-file entries are
//     the constraints it enforces; it decodes every other member as
//     encoding/json would and each file argument after checking its form,
//     media type, size, content and count, and returns an error that names
//     the argument ("documents[1]") and the rule broken. It copies each
//     companion file name, sanitized, into File.Name.
//   - guards that stop the package from compiling when T, or a struct type
//     of the package that T's fields use, changed since mcpfilegen ran, or
//     when the runtime package does not accept code of this generator's
//     version.
//
// The compiler's message on a guard says what to do, through the names it
// quotes:
//
//	mcpfile_gen.go:31:11: cannot use mcpfileStructT_changed_run_go_generate{} (value of struct type mcpfileStructT_changed_run_go_generate) as T value in variable declaration
//	mcpfile_gen.go:16:62: constant -1 overflows mcpfileRuntimeTooOld_update_mcpfile_or_run_go_generate
//	mcpfile_gen.go:17:41: constant -1 overflows mcpfileCodeTooOld_run_go_generate
//
// mcpfileRuntimeTooOld means that the runtime package is older than the
// code: update the module, or regenerate with the generator of the module's
// version, which go tool mcpfilegen runs. mcpfileCodeTooOld means that the
// code is older than the runtime accepts: regenerate.
//
// Generated names other than these methods start with mcpfile; avoid such
// names in the package. The generated file imports encoding/json, the
// runtime package and the packages of T's field types under their own
// names, or, when the package declares such a name itself (a variable
// json, say), under that name prefixed with mcpfile.
//
// Selected are the struct types with at least one mcpfile tag, or those
// named with -type. Without -type, so are, to be reported, the struct types
// with a field whose struct tag has a key that looks like mcpfile
// misspelled (mcpFile, MCPFILE, mcpfiel, mcp_file: other letter case, or
// within two letters) or is malformed and mentions mcpfile, and those with
// a field that encoding/json decodes (exported, not json:"-") that holds a
// runtime.File, unless it holds it through a struct type with mcpfile tags,
// which decodes it. A type that already has an UnmarshalJSON or MCPSchema
// method, or embeds an UnmarshalJSON, cannot be selected. A struct type of the package that embeds
// a selected type without being selected itself is an error: it would
// inherit the generated MCPSchema and UnmarshalJSON, which describe and
// decode the embedded type's fields alone; make the embedded type a named
// field.
//
// A file field has one of the types runtime.File, *runtime.File,
// []runtime.File, or string, *string, []string for a server that wants the
// data: URI checked but kept as it came. A file field is required unless it
// is a pointer or has omitempty or omitzero; it is never nullable. Its json
// tag may not have the ,string option. A runtime.File anywhere else in a
// selected type is an error: a runtime.File, *runtime.File or
// []runtime.File field without an mcpfile tag (the error says to add
// mcpfile:"" or constraints), an embedded runtime.File, a field of another
// type that holds runtime.File values ([]*runtime.File, a map, an array),
// and one in a nested or embedded struct: file fields are top-level fields
// of the selected type. Unexported and json:"-" fields are left alone. If a
// struct type that holds a runtime.File is not a tool's input (a result,
// say), name the input types with -type.
//
// Every struct tag of a selected type's fields must be one that
// reflect.StructTag.Lookup reads to its end: key:"value" pairs, each value
// a double-quoted Go string (mcpfile:accept=image/png is an error).
//
// On problems, mcpfilegen prints every one of them, sorted, one a line as
//
//	tools.go:14:2: mcpfile: unknown key "maxsize" (want accept, filename, form, maxFiles, maxSize, minFiles, sniff, transfer)
//
// with the file name relative to the working directory, writes nothing and
// exits with status 1. Usage errors exit with status 2. On success it prints
// nothing, and rewrites a file only when its content changes, atomically.
//
// mcpfilegen replaces or removes only files it wrote: those whose first
// line is
//
//	// Code generated by mcpfilegen. DO NOT EDIT.
//
// If the file it would write exists without that line (a hand-written
// mcpfile_gen.go, or the file -output names), whether or not it parses or
// is in the build, it writes nothing and exits with status 1:
//
//	tools.go: mcpfile: not replacing tools.go: mcpfilegen did not write it (its first line is not "// Code generated by mcpfilegen. DO NOT EDIT."); rename it, or choose another file name with -output
//
// # Build constraints
//
// mcpfilegen sees the files the go command would build on this system (set
// GOOS, GOARCH or GOFLAGS=-tags=… to see others). The generated file carries
// the build constraint of the files that declare the selected types: their
// //go:build line (or, without one, their // +build lines), and what their
// names imply (tools_linux.go: linux), as its own //go:build line after the
// header. It declares methods on every selected type, so it must be built
// exactly where they are: types declared under different constraints in one
// package are an error. Generate for them apart, each with -type and its own
// -output, or give their files the same constraint. Struct types of the
// package that the selected types use are guarded but not considered.
//
// # Tag syntax
//
// The mcpfile tag is a comma-separated list of key=value items without
// spaces; the empty tag mcpfile:"" marks a file field without constraints.
// Unknown keys, repeated keys (but accept), empty items or values, spaces,
// bad numbers, units, media types, transfer modes and forms are errors.
//
// accept=<entry>[|<entry>…] lists what the field takes, as the HTML accept
// attribute does: a media type type/subtype, a wildcard subtype type/*, or an
// extension .ext. The type must be a registered top-level type (application,
// audio, example, font, haptics, image, message, model, multipart, text,
// video); */* is an error, since leaving accept out accepts everything.
// Entries are lower-cased; a repeated accept= appends. Extensions are hints
// for a client's file picker: the server checks media types only.
//
//	mcpfile:"accept=image/png|image/jpeg"
//	mcpfile:"accept=image/*,accept=.pdf|application/pdf"
//
// maxSize=<n>[unit] is the largest decoded size of one file, a positive
// integer with an optional unit: B (the default), KB, MB, GB (powers of
// 1000) or KiB, MiB, GiB (powers of 1024); at most 2^53-1 bytes. A number
// that is no positive integer (1.5MiB, -1, 0x10) is an error, which gives
// the size in a smaller unit when there is one (1.5MiB is 1536KiB). A file
// of exactly maxSize bytes is accepted. Without it, the runtime's
// DefaultMaxSize applies.
//
//	mcpfile:"maxSize=5MiB"
//	mcpfile:"maxSize=1500KB"
//
// maxFiles=<n> is the most files a slice field takes, a positive integer;
// it becomes the array's maxItems. Without it, the runtime's DefaultMaxFiles
// (32) applies: an array of files always has a ceiling. It is an error on a
// field that is not a slice.
//
//	Pages []runtime.File `json:"pages" mcpfile:"accept=image/*,maxFiles=20"`
//
// minFiles=<n> is the fewest files a slice field takes, an integer of 0 or
// more, at most maxFiles; it becomes the array's minItems. Without it, a
// required slice field (one without omitempty or omitzero) takes at least
// one file, since JSON Schema's required only asks for the member, and an
// empty list of files is rarely what a tool can work with; minFiles=0 lets
// it be empty, and an optional one takes none or more. It is an error on a
// field that is not a slice.
//
//	Documents []runtime.File `json:"documents" mcpfile:"accept=application/pdf,minFiles=2,maxFiles=5"`
//
// filename=<json name> names the sibling field that carries the file's
// name: the host fills both from one pick, since the name does not travel
// in a data: URI. The sibling is a string field for runtime.File and
// *runtime.File, a []string field for []runtime.File (item i names file i).
// When it is not empty, the decoder copies it, sanitized with
// runtime.SanitizeName, into File.Name. It is an error on a string field,
// or when it names no field, a file field, or a field of another type.
//
//	Cover     *runtime.File `json:"cover,omitempty" mcpfile:"filename=cover_name"`
//	CoverName string        `json:"cover_name,omitempty"`
//
// sniff=false turns off the content check for the field. By default the
// runtime looks at the decoded bytes: a declared type with a fixed signature
// (PNG, JPEG, PDF, ZIP…) must have it, and a textual type must be text.
// With sniff=false it takes the media type the data: URI declares on trust,
// for a server that checks the bytes itself or takes them as they come.
// sniff=true, the default, may be written out.
//
//	mcpfile:"accept=image/png,sniff=false"
//
// transfer=inline|upload lists the SEP-2631 transfer modes the field
// allows: inline, upload, or both in either order. It becomes x-mcp-file's
// transferModes, after accept and maxSize, always in the order
// ["inline","upload"]. inline is a data: URI in the arguments; upload is a
// file URI the client got from files/authorizeUpload, having sent the
// bytes beside the MCP connection. Without transfer= the client may use
// either mode it supports. upload needs transfer.Register on the server
// (runtime/transfer); an upload-only field's maxSize does not count toward
// runtime.MaxRequestBytes. accept and maxSize hold in both modes. Modes are
// lower case; an unknown, repeated or empty mode is an error, and so is
// upload on a string, *string or []string field: such a field keeps the
// file's data: URI itself, and an uploaded file has none (use runtime.File,
// *runtime.File or []runtime.File, or transfer=inline).
//
//	Document runtime.File `json:"document" mcpfile:"accept=application/pdf,maxSize=1GiB,transfer=upload"`
//	Scan     string       `json:"scan" mcpfile:"accept=image/tiff,transfer=inline"`
//
// form=filedata|openai: the file arrives as a host's object instead of a
// data: URI: Odeus FileData ({fileName, mimeType, base64, size?,
// lastModified?}) or ChatGPT's fileParams ({download_url, file_id,
// mime_type?, file_name?}; needs a fetcher on the server, runtime/fetch).
// The property's schema is then that object, with the members the host
// always sends required (filedata's also has "format": "file", which is
// what Odeus looks for, and no other member: additionalProperties false;
// openai's may have others, which its host adds), and its accept and maxSize move
// to the vendor keyword x-mcpfile-form, after "form": SEP-2356 allows
// x-mcp-file on URI string properties only. The object's media type, size
// and name are the host's word and are checked like a data: URI's: accept,
// maxSize, the content check (unless sniff=false), the name sanitized into
// File.Name. filedata goes on runtime.File, *runtime.File and
// []runtime.File (an array of such objects, with minFiles and maxFiles as
// for files); openai on runtime.File and *runtime.File only, since
// openai/fileParams names top-level fields that each hold one file (a
// slice is an error; use form=filedata or one field a file). The value is
// exactly filedata or openai, lower case. A form is an error on a string,
// *string or []string field, which keeps a data: URI; with transfer=, since
// a form is its own transfer; and with filename=, since the object carries
// the name. The generated decoder is the same as without form=: the
// runtime reads the form from the schema.
//
//	Report runtime.File  `json:"report" mcpfile:"accept=application/pdf,maxSize=10MiB,form=filedata"`
//	Photo  *runtime.File `json:"photo,omitempty" mcpfile:"accept=image/*,form=openai"`
//
// # Flags
//
// -type T,U generates for exactly the named types, in every package
// matched, whether or not they have mcpfile tags (a type without file fields
// gets MCPSchema only). Without it, mcpfilegen selects every struct type
// with at least one mcpfile tag, and those that hold files without one (see
// above). Naming a type that is missing, or is no struct type, is an error.
//
// -output name is the name of the generated file in each package's
// directory, mcpfile_gen.go by default. It must end in .go, not _test.go,
// and have no directory.
//
// -check writes nothing: it compares what it would write with the files on
// disk and, when one is stale or missing, prints a unified diff and exits
// with status 1. A file in the way that mcpfilegen did not write is
// reported as a run would report it. Use it in CI, or run go generate ./...
// and then git diff --exit-code.
//
// Arguments are package patterns as the go command takes them, relative to
// the working directory; the default is ".", the package go generate runs
// mcpfilegen in. A package without selected types gets no file; a file
// mcpfilegen wrote there before (it starts with the generated-code header)
// is removed, since its guards would no longer compile.
package main
