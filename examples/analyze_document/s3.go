package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
)

// openS3 returns the S3 store of an s3://BUCKET or s3://BUCKET/PREFIX/
// value of -store, configured as every AWS tool is
// (config.LoadDefaultConfig): the region, the credentials and the endpoint
// of an S3-compatible server (AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3)
// from the environment and the shared config files. With an endpoint of
// its own the bucket is addressed path-style (http://host/bucket/key), as
// MinIO, Ceph, R2 and versitygw all take; on AWS, in the host name.
func openS3(ctx context.Context, value string) (*s3store.Store, error) {
	u, err := url.Parse(value)
	if err != nil || u.Host == "" || u.User != nil || u.Port() != "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("-store %q: want s3://BUCKET or s3://BUCKET/PREFIX/", value)
	}
	prefix := strings.TrimPrefix(u.Path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("-store %q: loading the AWS configuration from the environment: %v", value, err)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = o.BaseEndpoint != nil // AWS_ENDPOINT_URL(_S3): an S3-compatible server
	})
	st, err := s3store.New(ctx, s3store.Options{Bucket: u.Host, Prefix: prefix, Client: client})
	if err != nil {
		return nil, fmt.Errorf("-store %q: %v (the endpoint, region and credentials come from AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the shared AWS config files)", value, err)
	}
	return st, nil
}
