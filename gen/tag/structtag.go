package tag

import (
	"fmt"
	"strconv"
	"strings"
)

// Key is the struct tag key whose value Parse parses.
const Key = "mcpfile"

// StructKeys returns the keys of the struct tag st, in order, reading it as
// reflect.StructTag.Lookup does: key:"value" pairs, optionally separated by
// spaces, each value a double-quoted Go string. Where Lookup would stop
// reading, StructKeys returns the keys read so far (with the key it stopped
// at, when it has one) and an error saying why; Lookup would find none of
// the keys from there on, and this one's value neither.
func StructKeys(st string) ([]string, error) {
	var keys []string
	for st != "" {
		i := 0
		for i < len(st) && st[i] == ' ' {
			i++
		}
		st = st[i:]
		if st == "" {
			break
		}
		i = 0
		for i < len(st) && st[i] > ' ' && st[i] != ':' && st[i] != '"' && st[i] != 0x7f {
			i++
		}
		key := st[:i]
		switch {
		case i == 0:
			return keys, fmt.Errorf("want a key at %q", st)
		case i == len(st) || st[i] != ':':
			return append(keys, key), fmt.Errorf("key %q has no value (want %s:\"…\")", key, key)
		case i+1 == len(st) || st[i+1] != '"':
			return append(keys, key), fmt.Errorf("the value of %q is not in double quotes (want %s:\"…\")", key, key)
		}
		keys = append(keys, key)
		st = st[i+1:]
		i = 1
		for i < len(st) && st[i] != '"' {
			if st[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(st) {
			return keys, fmt.Errorf("the value of %q has no closing quote", key)
		}
		if _, err := strconv.Unquote(st[:i+1]); err != nil {
			return keys, fmt.Errorf("the value of %q is not a valid Go string literal", key)
		}
		st = st[i+1:]
	}
	return keys, nil
}

// Misspelled reports whether a struct tag key looks like Key mistyped:
// another key that is Key in other letter case or within two single-letter
// edits (insertions, deletions, substitutions) of it, case aside, such as
// mcpFile, MCPFILE, mcpfiel or mcp_file.
func Misspelled(key string) bool {
	if key == Key || len(key) < len(Key)-2 || len(key) > len(Key)+2 {
		return false
	}
	return distance(strings.ToLower(key), Key) <= 2
}

// distance returns the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
