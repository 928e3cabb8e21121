package memstore_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// The life of an upload: create, stream, commit, then read it back. A
// second commit of the same ID is refused.
func Example() {
	ctx := context.Background()
	s := memstore.New(nil)
	body := "hello, world\n"

	w, err := s.Create(ctx, "f-123", store.Meta{Size: int64(len(body)), MediaType: "text/plain", Name: "hello.txt"})
	if err != nil {
		panic(err)
	}
	defer w.Abort() // does nothing once committed
	if _, err := io.Copy(w, strings.NewReader(body)); err != nil {
		panic(err)
	}
	if err := w.Commit(ctx); err != nil {
		panic(err)
	}

	m, _ := s.Stat(ctx, "f-123")
	fmt.Printf("%s %s %d bytes sha256:%x…\n", m.Name, m.MediaType, m.Size, m.SHA256[:4])
	r, _ := s.Open(ctx, "f-123")
	defer r.Close()
	b, _ := io.ReadAll(r)
	fmt.Printf("%q\n", b)

	_, err = s.Create(ctx, "f-123", store.Meta{Size: 1})
	fmt.Println(err)
	fmt.Println(store.ValidID("../etc/passwd"))
	// Output:
	// hello.txt text/plain 13 bytes sha256:853ff937…
	// "hello, world\n"
	// store: object already exists
	// store: invalid object id: "../etc/passwd" has '.' at byte 0 (want 1 to 128 characters of A-Z a-z 0-9 - _)
}
