package s3store

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// Sweep implements [store.Store.Sweep]: it deletes the objects expired at
// now, and counts them. It costs one LIST request per 1,000 objects under
// the prefix, one HEAD per object and one DELETE per expired one. Each
// DELETE is conditional on the ETag read (If-Match), so an object
// committed under the same ID since is left alone. Keys under the prefix
// that are not IDs are left alone. Sweep goes on past an object it cannot
// read, and returns the errors joined.
func (s *Store) Sweep(ctx context.Context, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	err := s.scan(ctx, func(id string, o object, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		if !o.meta.Expired(now) {
			return
		}
		_, err = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{
			Bucket:  &s.bucket,
			Key:     aws.String(s.key(id)),
			IfMatch: aws.String(o.etag),
		})
		switch {
		case err == nil:
			n++
		case status(err) == http.StatusNotFound, status(err) == http.StatusPreconditionFailed:
			// Deleted, or deleted and committed again, since the HEAD.
		default:
			errs = append(errs, fmt.Errorf("delete %q: %w", id, err))
		}
	})
	if err != nil {
		return n, err
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("s3store: sweep: %w", err)
	}
	return n, nil
}

// Usage implements [store.Usager]: the bytes of the objects of owner that
// have not expired at now. It costs what [Store.Sweep] costs, less the
// DELETEs: see the package doc. It fails if any object cannot be read.
func (s *Store) Usage(ctx context.Context, owner string, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var errs []error
	var total int64
	err := s.scan(ctx, func(id string, o object, err error) {
		switch {
		case err != nil:
			errs = append(errs, err)
		case o.meta.Owner == owner && !o.meta.Expired(now):
			total += o.meta.Size
		}
	})
	if err == nil {
		err = errors.Join(errs...)
	}
	if err != nil {
		return 0, fmt.Errorf("s3store: usage: %w", err)
	}
	return total, nil
}

// scan lists the IDs under the prefix and calls fn, from one goroutine,
// with what a HEAD request tells of each: the object or the error reading
// it. Objects deleted between the listing and the HEAD are left out. It
// returns the error of a failed listing, or of ctx.
func (s *Store) scan(ctx context.Context, fn func(id string, o object, err error)) error {
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket:    &s.bucket,
		Prefix:    aws.String(s.prefix),
		Delimiter: aws.String("/"),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("s3store: listing %q: %w", s.prefix, err)
		}
		var ids []string
		for _, o := range page.Contents {
			id, ok := strings.CutPrefix(aws.ToString(o.Key), s.prefix)
			if ok && store.ValidID(id) == nil {
				ids = append(ids, id)
			}
		}
		objs, errs := s.heads(ctx, ids)
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, id := range ids {
			if !errors.Is(errs[i], store.ErrNotFound) {
				fn(id, objs[i], errs[i])
			}
		}
	}
	return nil
}

// heads reads the objects ids with s.concurrency HEAD requests at a time.
func (s *Store) heads(ctx context.Context, ids []string) ([]object, []error) {
	objs := make([]object, len(ids))
	errs := make([]error, len(ids))
	sem := make(chan struct{}, s.concurrency)
	var wg sync.WaitGroup
	for i, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			objs[i], errs[i] = s.head(ctx, id, false)
		})
	}
	wg.Wait()
	return objs, errs
}
