package mcpfileimpl_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/mcpfileimpl"
)

const png1x1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg=="

// describeArgs is what mcpfilegen generates an UnmarshalJSON for; written by
// hand here, it shows what the generated method does.
type describeArgs struct {
	Prompt string         `json:"prompt"`
	Images []runtime.File `json:"images" mcpfile:"accept=image/*,maxFiles=2"`
	Names  []string       `json:"names,omitempty"`
}

// describeSchema is its schema; the Object reads the file constraints from it.
const describeSchema = `{"type":"object","properties":{
	"prompt":{"type":"string"},
	"images":{"type":"array","maxItems":2,"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/*"]}}},
	"names":{"type":["null","array"],"items":{"type":"string"}}},
	"required":["prompt","images"],"additionalProperties":false}`

var describeObject = mcpfileimpl.NewObject(describeSchema, []string{"prompt", "images", "names"}, []string{"images"})

func (t *describeArgs) UnmarshalJSON(b []byte) error {
	type plain describeArgs // without this method, for encoding/json
	return describeObject.Unmarshal(b, (*plain)(t), mcpfileimpl.IntoNamed(&t.Images, &t.Names))
}

func ExampleObject() {
	// The Object finds the file members and decodes them; encoding/json
	// decodes the rest.
	var args describeArgs
	err := json.Unmarshal([]byte(`{"prompt":"Describe it.","images":["`+png1x1+`"],"names":["../dot.png"]}`), &args)
	fmt.Println(args.Prompt, args.Images, args.Images[0].Name, err)

	err = json.Unmarshal([]byte(`{"images":["data:,a","data:,b","data:,c"]}`), &args)
	fmt.Println(err)

	err = json.Unmarshal([]byte(`{"images":["`+png1x1+`","data:text/plain,hi"]}`), &args)
	fmt.Println(err)
	// Output:
	// Describe it. [data:image/png;base64,[70 bytes]] dot.png <nil>
	// Argument 'images' exceeds maxFiles: received 3 files, limit is 2.
	// Argument 'images[1]' has a media type that accept does not allow: received "text/plain", allowed are image/*.
}
