package s3store_test

import (
	"context"
	"log"
	"time"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
)

// A server's store: a bucket of MinIO, Ceph or versitygw, addressed
// path-style, with the endpoint, region and credentials in the environment
// (AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY), swept every ten minutes.
func Example() {
	ctx := context.Background()
	s, err := s3store.New(ctx, s3store.Options{Bucket: "mcp", Prefix: "uploads/", UsePathStyle: true})
	if err != nil {
		log.Fatal(err)
	}
	go store.RunSweeper(ctx, s, 10*time.Minute, func(deleted int, err error) {
		if err != nil {
			log.Printf("sweeping uploads: %v (%d deleted)", err, deleted)
		}
	})
	// Pass s to the transfer layer's options as its Store.
}
