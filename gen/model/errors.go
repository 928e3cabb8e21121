package model

import (
	"cmp"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// Error is one problem with the user's input, at a position.
// Msg is lowercase, without the "mcpfile: " prefix and without a trailing period.
type Error struct {
	Pos token.Position // Filename is absolute, or empty when there is no position
	Msg string
}

// Error returns "file:line:col: mcpfile: msg", or "mcpfile: msg" without a position.
func (e *Error) Error() string { return e.Rel("") }

// Rel is like Error with the file name relative to base when it is below base.
func (e *Error) Rel(base string) string {
	pos := e.Pos
	if base != "" && pos.Filename != "" {
		if rel, err := filepath.Rel(base, pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
			pos.Filename = rel
		}
	}
	if pos.Filename == "" {
		return "mcpfile: " + e.Msg
	}
	var p string
	switch {
	case pos.Line == 0:
		p = pos.Filename
	case pos.Column == 0:
		p = fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
	default:
		p = fmt.Sprintf("%s:%d:%d", pos.Filename, pos.Line, pos.Column)
	}
	return p + ": mcpfile: " + e.Msg
}

// ErrorList is every problem found, sorted by position once Sort has run.
// The phases return it as their error when it is not empty.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos token.Position, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort sorts the list by file, line, column and message, and drops exact duplicates.
func (l ErrorList) Sort() ErrorList {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			cmp.Compare(a.Msg, b.Msg),
		)
	})
	return slices.CompactFunc(l, func(a, b *Error) bool {
		return a.Pos == b.Pos && a.Msg == b.Msg
	})
}

// Err returns the sorted list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l.Sort()
}

// Error returns the errors one per line.
func (l ErrorList) Error() string { return l.Rel("") }

// Rel returns the errors one per line, file names relative to base when
// they are below it: "relpath:line:col: mcpfile: message".
func (l ErrorList) Rel(base string) string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Rel(base))
	}
	return b.String()
}
