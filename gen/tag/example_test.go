package tag_test

import (
	"fmt"

	"github.com/mcpfile/mcpfile/gen/tag"
)

func ExampleParse() {
	t, err := tag.Parse("accept=application/pdf|text/plain|.PDF,maxSize=10MiB,maxFiles=5")
	fmt.Println(t.Accept, t.MaxSize, t.MaxFiles, err)

	t, err = tag.Parse("transfer=upload|inline,maxSize=1GiB")
	fmt.Println(t.Transfer, t, err)

	_, err = tag.Parse("maxsize=10MiB")
	fmt.Println(err)

	_, err = tag.Parse("transfer=Upload|inline")
	fmt.Println(err)

	t, err = tag.Parse("accept=image/*,form=openai")
	fmt.Println(t.Form, t, err)

	_, err = tag.Parse("form=FileData")
	fmt.Println(err)
	// Output:
	// [application/pdf text/plain .pdf] 10485760 5 <nil>
	// [inline upload] maxSize=1073741824,transfer=inline|upload <nil>
	// unknown key "maxsize" (want accept, filename, form, maxFiles, maxSize, minFiles, sniff, transfer)
	// bad transfer mode "Upload" in "Upload|inline" (want inline, upload, or inline|upload)
	// openai accept=image/*,form=openai <nil>
	// bad form "FileData" (want filedata or openai)
}
