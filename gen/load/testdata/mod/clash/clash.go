package clash

// json was declared after the generated file, which imports encoding/json,
// was written: the package compiles again once it is regenerated.
var json = 1

type T struct{ A int }
