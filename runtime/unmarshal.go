package runtime

import "encoding/json"

// Unmarshal decodes the JSON object b into v, a type mcpfilegen generated
// code for, as json.Unmarshal(b, v) would, checking every file as
// [AddTool] does. Use it to decode arguments outside AddTool (a tool
// registered with the low-level Server.AddTool, a queue, a test): it calls
// v's generated UnmarshalJSON directly, where json.Unmarshal first walks
// all of b twice with its byte-at-a-time scanner (a syntax check, then
// skipping the value it hands to the method). On the arguments of a call
// with a 5 MiB file that is about 20 times faster (BENCHMARKS.md §2).
//
// Unlike AddTool, Unmarshal does not check b against the schema: as with
// encoding/json, absent members, required or not, leave their fields as
// they are, and unknown members are ignored.
func Unmarshal[T any, P Generated[T]](b []byte, v P) error {
	if u, ok := any(v).(json.Unmarshaler); ok {
		return u.UnmarshalJSON(b)
	}
	return json.Unmarshal(b, v)
}
