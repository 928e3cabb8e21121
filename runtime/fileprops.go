package runtime

import (
	"encoding/json"
	"fmt"
	"math"
)

// This file reads what a generated schema says about files: which top-level
// properties are file arguments, and their x-mcp-file constraints. The
// decoder ([Object]), the tool's argument check and the request size limit
// all take them from here, so what a client is told is what is enforced.

// fileKind says how a top-level property of an input schema carries files.
type fileKind uint8

const (
	fileScalar fileKind = 1 + iota // the property carries x-mcp-file
	fileArray                      // the property's items carry x-mcp-file
)

// fileProp is how a top-level property of an input schema carries files.
type fileProp struct {
	kind     fileKind
	d        Descriptor // the x-mcp-file of the property, or of its items
	minItems int        // for fileArray: the schema's minItems (minFiles), 0 when none
	maxItems int        // for fileArray: the schema's maxItems (maxFiles), 0 when none
}

// maxFiles returns the most files the array property p takes: its
// maxItems, else [DefaultMaxFiles].
func (p fileProp) maxFiles() int {
	if p.maxItems > 0 {
		return p.maxItems
	}
	if DefaultMaxFiles > 0 {
		return DefaultMaxFiles
	}
	return math.MaxInt
}

// checkCount checks the number of files n of the array argument arg
// against p's limits, the largest first.
func (p fileProp) checkCount(arg string, n int) *Error {
	if limit := p.maxFiles(); n > limit {
		return &Error{Arg: arg, Rule: RuleMaxFiles, Received: int64(n), Limit: int64(limit)}
	}
	if n < p.minItems {
		return &Error{Arg: arg, Rule: RuleMinFiles, Received: int64(n), Limit: int64(p.minItems)}
	}
	return nil
}

// fileProperties returns the top-level properties of the object schema b
// that carry files: those with x-mcp-file and arrays whose items have it.
func fileProperties(b []byte) (map[string]fileProp, error) {
	type prop struct {
		File  *Descriptor `json:"x-mcp-file"`
		Items *struct {
			File *Descriptor `json:"x-mcp-file"`
		} `json:"items"`
		MinItems *int `json:"minItems"`
		MaxItems *int `json:"maxItems"`
	}
	var s struct {
		Properties map[string]prop `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("reading the schema's x-mcp-file entries: %v", err)
	}
	files := make(map[string]fileProp)
	for name, p := range s.Properties {
		switch {
		case p.File != nil:
			files[name] = fileProp{kind: fileScalar, d: *p.File}
		case p.Items != nil && p.Items.File != nil:
			fp := fileProp{kind: fileArray, d: *p.Items.File}
			if p.MaxItems != nil {
				if *p.MaxItems < 1 {
					return nil, fmt.Errorf("property %q is an array of files with maxItems %d: want at least 1 (mcpfile tag maxFiles), or none for no limit", name, *p.MaxItems)
				}
				fp.maxItems = *p.MaxItems
			}
			if p.MinItems != nil {
				if *p.MinItems < 0 || fp.maxItems > 0 && *p.MinItems > fp.maxItems {
					return nil, fmt.Errorf("property %q is an array of files with minItems %d: want from 0 to maxItems (mcpfile tag minFiles)", name, *p.MinItems)
				}
				fp.minItems = *p.MinItems
			}
			files[name] = fp
		}
	}
	return files, nil
}
