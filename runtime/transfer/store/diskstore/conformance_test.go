package diskstore_test

import (
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		s, err := diskstore.New(t.TempDir(), &diskstore.Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
