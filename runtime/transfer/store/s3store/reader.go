package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// reader is a [store.Reader] of one object version. ReadAt makes one
// ranged GET per call; Read keeps one GET open from the offset to the end,
// and starts another after a Seek.
type reader struct {
	s    *Store
	ctx  context.Context
	id   string
	etag string
	size int64

	off     int64         // of the next Read
	body    io.ReadCloser // the open GET of Read, nil if none
	bodyOff int64         // the offset body reads next
	closed  bool
}

func (s *Store) reader(ctx context.Context, id string, o object) *reader {
	return &reader{s: s, ctx: ctx, id: id, etag: o.etag, size: o.meta.Size}
}

var errClosedReader = errors.New("s3store: read of a closed reader")

func (r *reader) Size() int64 { return r.size }

// get returns the body of bytes [off, end) of the object, end > off.
func (r *reader) get(off, end int64) (io.ReadCloser, error) {
	in := &s3.GetObjectInput{
		Bucket:  &r.s.bucket,
		Key:     aws.String(r.s.key(r.id)),
		Range:   aws.String("bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(end-1, 10)),
		IfMatch: aws.String(r.etag),
	}
	out, err := r.s.client.GetObject(r.ctx, in)
	switch status(err) {
	case 0:
	case http.StatusNotFound:
		return nil, fmt.Errorf("s3store: reading %q: %w (deleted while open)", r.id, store.ErrNotFound)
	case http.StatusPreconditionFailed:
		return nil, fmt.Errorf("s3store: reading %q: the object was replaced while open", r.id)
	}
	if err != nil {
		return nil, fmt.Errorf("s3store: reading %q: %w", r.id, err)
	}
	return out.Body, nil
}

func (r *reader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, errClosedReader
	}
	if r.off >= r.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if r.body != nil && r.bodyOff != r.off {
		r.closeBody()
	}
	if r.body == nil {
		b, err := r.get(r.off, r.size)
		if err != nil {
			return 0, err
		}
		r.body, r.bodyOff = b, r.off
	}
	n, err := r.body.Read(p[:min(int64(len(p)), r.size-r.off)])
	r.off += int64(n)
	r.bodyOff += int64(n)
	switch {
	case r.off == r.size:
		r.closeBody()
		return n, nil // EOF at the next Read
	case err == io.EOF:
		r.closeBody()
		return n, fmt.Errorf("s3store: reading %q: %w", r.id, io.ErrUnexpectedEOF)
	case err != nil:
		r.closeBody()
		return n, fmt.Errorf("s3store: reading %q: %w", r.id, err)
	}
	return n, nil
}

func (r *reader) closeBody() {
	if r.body != nil {
		r.body.Close()
		r.body = nil
	}
}

// ReadAt implements io.ReaderAt with one ranged GET. Calls may run in
// parallel, with each other and with Read.
func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	if r.closed {
		return 0, errClosedReader
	}
	if off < 0 {
		return 0, fmt.Errorf("s3store: ReadAt at negative offset %d", off)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := min(int64(len(p)), r.size-off)
	body, err := r.get(off, off+want)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n, err := io.ReadFull(body, p[:want])
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, fmt.Errorf("s3store: reading %q: %w", r.id, err)
	}
	if want < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}

func (r *reader) Seek(offset int64, whence int) (int64, error) {
	if r.closed {
		return 0, errClosedReader
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, fmt.Errorf("s3store: Seek: invalid whence %d", whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("s3store: Seek: negative position %d", offset)
	}
	r.off = offset
	return offset, nil
}

func (r *reader) Close() error {
	r.closeBody()
	r.closed = true
	return nil
}
