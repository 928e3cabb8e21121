package tag_test

import (
	"fmt"

	"github.com/mcpfile/mcpfile/gen/tag"
)

func ExampleParse() {
	t, err := tag.Parse("accept=application/pdf|text/plain|.PDF,maxSize=10MiB,maxFiles=5")
	fmt.Println(t.Accept, t.MaxSize, t.MaxFiles, err)

	_, err = tag.Parse("maxsize=10MiB")
	fmt.Println(err)
	// Output:
	// [application/pdf text/plain .pdf] 10485760 5 <nil>
	// unknown key "maxsize" (want accept, filename, maxFiles, maxSize, minFiles, sniff)
}
