// Package ok loads.
package ok

// T is a type.
type T struct{ A int }
