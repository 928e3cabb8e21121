// Package fx holds struct types whose fields encoding/json and reflect
// order, promote and hide in every way the fields package mirrors, for its
// differential tests.
package fx

type Base struct {
	ID   int    `json:"id"`
	Note string `json:"note,omitempty"`
}

type Other struct {
	ID    int `json:"id"`
	Extra bool
}

type inner struct {
	Deep  string
	Shade int `json:"shade"`
}

type Named string

type TextKey struct{ a int }

// Plain has no embedding, with names from tags, untagged, skipped, invalid.
type Plain struct {
	A       int    `json:"a"`
	B       string // untagged: the Go name
	Skipped int    `json:"-"`
	Dash    int    `json:"-,"`
	Invalid int    `json:"in valid\""`
	Opts    int    `json:",omitempty"`
	hidden  int
	Ü       int `json:"ünï"`
}

// Dominance: a shallower field wins; at the same depth a tagged one wins;
// two of the same depth, both tagged or both not, annihilate. (Structs
// embedded by pointer keep go vet from reporting the tags that tie.)
type Dominance struct {
	Base
	*Other
	Top string `json:"note"`
	*inner
	Named
}

// Shadow's ID hides Base.ID by Go's rules and by encoding/json's.
type Shadow struct {
	Base
	ID string `json:"ident"`
}

// Tie embeds two structs whose untagged Extra and tagged id meet at one depth.
type Tie struct {
	*Other
	Again Other2
	Other2
}

type Other2 struct {
	Extra bool
	ID    int `json:"id"`
}

// Layers promotes through two levels, and by pointer.
type Layers struct {
	*Deeper
	Top bool `json:"top"`
}

type Deeper struct {
	Base
	Level int `json:"level"`
}

// Cycle embeds itself through pointers.
type Cycle struct {
	*Cycle2
	Name string `json:"name"`
}

type Cycle2 struct {
	*Cycle
	Other string `json:"other"`
}

// TaggedEmbed names an embedded struct, which is then one member.
type TaggedEmbed struct {
	Base `json:"base"`
	Key  TextKey `json:"key"`
}

// All returns a value of each type above, by name.
func All() map[string]any {
	return map[string]any{
		"Plain": Plain{}, "Dominance": Dominance{}, "Shadow": Shadow{}, "Tie": Tie{},
		"Layers": Layers{}, "Cycle": Cycle{}, "TaggedEmbed": TaggedEmbed{},
	}
}
