// Package datauri parses, decodes, encodes and redacts RFC 2397 data: URIs,
// data:[<mediatype>][;base64],<data>: the inline form of a file in MCP
// (SEP-2356). It knows nothing of MCP, JSON or x-mcp-file: the runtime's
// decoder builds the checks a server needs (accept, maxSize before any
// allocation, content) on these parts.
//
// The grammar is read strictly: the media type is type/subtype of RFC 2045
// token characters; parameters are attribute=value with token names and
// values of token characters and %XX escapes, decoded to valid UTF-8
// without control or format characters; a repeated parameter, one without
// "=", and ";base64" anywhere but last are errors. The media type and its
// parameters may take MaxHeaderLen bytes. Base64 data uses the standard
// alphabet, padded or not, with CR and LF ignored; percent-encoded data
// decodes %XX escapes and takes every other byte but a control character
// as it stands. No function here echoes a payload: an [Error] names what is
// wrong, and [Redact] prints a URI as its media type and size.
package datauri
