package runtime_test

// Hand-written stand-ins for what mcpfilegen generates: each type has an
// MCPSchema method returning its object schema and an UnmarshalJSON that
// decodes the file members through the runtime, the others through
// encoding/json.

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcpfile/mcpfile/runtime"
)

// imageArgs stands for
//
//	type imageArgs struct {
//		Image  runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg,maxSize=1KiB"`
//		Detail int          `json:"detail,omitempty" jsonschema:"how detailed"`
//	}
type imageArgs struct {
	Image  runtime.File `json:"image"`
	Detail int          `json:"detail,omitempty"`
}

var imageSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"image":{"type":"string","format":"uri","description":"The image to describe.","x-mcp-file":{"accept":["image/png","image/jpeg"],"maxSize":1024}},` +
	`"detail":{"type":"integer","description":"how detailed"}},` +
	`"required":["image"],"additionalProperties":false}`)

func (imageArgs) MCPSchema() json.RawMessage { return imageSchema }

var imageFields = sync.OnceValue(func() *runtime.Fields { return runtime.NewFields([]string{"image", "detail"}, "image") })

var imageDesc = [...]runtime.Descriptor{{Accept: []string{"image/png", "image/jpeg"}, MaxSize: 1024}}

type plainImageArgs imageArgs

func (t *imageArgs) UnmarshalJSON(b []byte) error {
	rest, err := runtime.ScanObject(b, imageFields(), func(i int, v []byte) error {
		switch i {
		case 0:
			if runtime.IsNull(v) {
				return nil
			}
			x, err := runtime.DecodeJSON("image", v, imageDesc[0])
			if err != nil {
				return err
			}
			t.Image = x
		}
		return nil
	})
	if err != nil {
		return err
	}
	if rest != nil {
		return json.Unmarshal(rest, (*plainImageArgs)(t))
	}
	return nil
}

// docsArgs stands for
//
//	type docsArgs struct {
//		Docs  []runtime.File `json:"docs" mcpfile:"accept=application/pdf|text/plain,maxSize=2KiB,maxFiles=3,filename=names"`
//		Names []string       `json:"names,omitempty"`
//	}
type docsArgs struct {
	Docs  []runtime.File `json:"docs"`
	Names []string       `json:"names,omitempty"`
}

var docsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"docs":{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{"accept":["application/pdf","text/plain"],"maxSize":2048}},"maxItems":3},` +
	`"names":{"type":"array","items":{"type":"string"}}},` +
	`"required":["docs"],"additionalProperties":false}`)

func (docsArgs) MCPSchema() json.RawMessage { return docsSchema }

var docsFields = sync.OnceValue(func() *runtime.Fields { return runtime.NewFields([]string{"docs", "names"}, "docs") })

var docsDesc = [...]runtime.Descriptor{{Accept: []string{"application/pdf", "text/plain"}, MaxSize: 2048}}

type plainDocsArgs docsArgs

func (t *docsArgs) UnmarshalJSON(b []byte) error {
	rest, err := runtime.ScanObject(b, docsFields(), func(i int, v []byte) error {
		switch i {
		case 0:
			if runtime.IsNull(v) {
				t.Docs = nil
				return nil
			}
			xs := []runtime.File{}
			if _, err := runtime.ScanArray("docs", v, 3, func(j int, tok []byte) error {
				x, err := runtime.DecodeJSON("docs["+strconv.Itoa(j)+"]", tok, docsDesc[0])
				if err != nil {
					return err
				}
				xs = append(xs, x)
				return nil
			}); err != nil {
				return err
			}
			t.Docs = xs
		}
		return nil
	})
	if err != nil {
		return err
	}
	if rest != nil {
		if err := json.Unmarshal(rest, (*plainDocsArgs)(t)); err != nil {
			return err
		}
	}
	for j := range t.Docs {
		if j < len(t.Names) {
			t.Docs[j].Name = runtime.SanitizeName(t.Names[j])
		}
	}
	return nil
}

// bigArgs stands for
//
//	type bigArgs struct {
//		Blob runtime.File `json:"blob" mcpfile:"maxSize=5MiB,sniff=false"`
//	}
type bigArgs struct {
	Blob runtime.File `json:"blob"`
}

var bigSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"blob":{"type":"string","format":"uri","x-mcp-file":{"maxSize":5242880}}},` +
	`"required":["blob"],"additionalProperties":false}`)

func (bigArgs) MCPSchema() json.RawMessage { return bigSchema }

var bigFields = sync.OnceValue(func() *runtime.Fields { return runtime.NewFields([]string{"blob"}, "blob") })

type plainBigArgs bigArgs

func (t *bigArgs) UnmarshalJSON(b []byte) error {
	rest, err := runtime.ScanObject(b, bigFields(), func(i int, v []byte) error {
		if runtime.IsNull(v) {
			return nil
		}
		x, err := runtime.DecodeJSON("blob", v, runtime.Descriptor{MaxSize: 5 << 20, NoSniff: true})
		if err != nil {
			return err
		}
		t.Blob = x
		return nil
	})
	if err != nil {
		return err
	}
	if rest != nil {
		return json.Unmarshal(rest, (*plainBigArgs)(t))
	}
	return nil
}

// defaultsArgs stands for a type with a defaulted ordinary field:
//
//	type defaultsArgs struct {
//		Note  *string      `json:"note,omitempty" mcpfile:"accept=text/plain"`
//		Level int          `json:"level,omitempty" jsonschema:"default=3"`
//	}
type defaultsArgs struct {
	Note  *string `json:"note,omitempty"`
	Level int     `json:"level,omitempty"`
}

var defaultsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"note":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain"]}},` +
	`"level":{"type":"integer","default":3}},"additionalProperties":false}`)

func (defaultsArgs) MCPSchema() json.RawMessage { return defaultsSchema }

var defaultsFields = sync.OnceValue(func() *runtime.Fields { return runtime.NewFields([]string{"note", "level"}, "note") })

type plainDefaultsArgs defaultsArgs

func (t *defaultsArgs) UnmarshalJSON(b []byte) error {
	rest, err := runtime.ScanObject(b, defaultsFields(), func(i int, v []byte) error {
		if runtime.IsNull(v) {
			t.Note = nil
			return nil
		}
		x, err := runtime.ValidateJSON("note", v, runtime.Descriptor{Accept: []string{"text/plain"}})
		if err != nil {
			return err
		}
		t.Note = &x
		return nil
	})
	if err != nil {
		return err
	}
	if rest != nil {
		return json.Unmarshal(rest, (*plainDefaultsArgs)(t))
	}
	return nil
}

// photoForm stands for the elicitation form
//
//	type photoForm struct {
//		Photo runtime.File `json:"photo" jsonschema:"Profile photo" mcpfile:"accept=image/*,maxSize=2KiB"`
//	}
type photoForm struct {
	Photo runtime.File `json:"photo"`
}

var photoSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"photo":{"type":"string","format":"uri","title":"Profile photo","x-mcp-file":{"accept":["image/*"],"maxSize":2048}}},` +
	`"required":["photo"]}`)

func (photoForm) MCPSchema() json.RawMessage { return photoSchema }

var photoFields = sync.OnceValue(func() *runtime.Fields { return runtime.NewFields([]string{"photo"}, "photo") })

type plainPhotoForm photoForm

func (t *photoForm) UnmarshalJSON(b []byte) error {
	rest, err := runtime.ScanObject(b, photoFields(), func(i int, v []byte) error {
		if runtime.IsNull(v) {
			return nil
		}
		x, err := runtime.DecodeJSON("photo", v, runtime.Descriptor{Accept: []string{"image/*"}, MaxSize: 2048})
		if err != nil {
			return err
		}
		t.Photo = x
		return nil
	})
	if err != nil {
		return err
	}
	if rest != nil {
		return json.Unmarshal(rest, (*plainPhotoForm)(t))
	}
	return nil
}

// nestedForm is not flat: it cannot be elicited.
type nestedForm struct {
	Inner struct {
		X string `json:"x"`
	} `json:"inner"`
}

func (nestedForm) MCPSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"inner":{"type":"object","properties":{"x":{"type":"string"}}}}}`)
}

func (t *nestedForm) UnmarshalJSON(b []byte) error {
	type plain nestedForm
	return json.Unmarshal(b, (*plain)(t))
}
