package s3store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// Create implements [store.Store.Create]. It fails with [store.ErrExists]
// at once when id is committed (one HEAD request), so a replayed upload is
// refused before its bytes are read.
//
// Of a known size, up to [MaxObjectSize], the PutObject request starts with
// the first byte written; it keeps ctx's values but not its cancellation:
// Abort ends it. A Writer neither committed nor aborted holds its request
// open until S3 times it out, and then it too leaves nothing.
//
// Of [store.SizeUnknown], with a MaxSize up to [MaxUnknownSize], the Writer
// buffers up to [PartSize] bytes, and sends them at Commit in one PutObject
// request, or, once there are more, in a multipart upload; see the package
// doc. Its requests, too, keep ctx's values but not its cancellation.
func (s *Store) Create(ctx context.Context, id string, m store.Meta) (store.Writer, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return nil, err
	}
	if _, err := m.Limit(); err != nil {
		return nil, err
	}
	if m.Size == store.SizeUnknown {
		return s.createBuffered(ctx, id, m)
	}
	declared := m.SHA256 != ([32]byte{})
	in, err := s.putInput(id, m, declared)
	if err != nil {
		return nil, err
	}
	if err := s.absent(ctx, id); err != nil {
		return nil, err
	}
	if in.ChecksumSHA256 == nil && s.tls {
		in.ChecksumAlgorithm = types.ChecksumAlgorithmSha256 // S3 computes it; the SDK sends it in a trailer
	}
	return &writer{s: s, ctx: context.WithoutCancel(ctx), id: id, meta: m, in: in, h: sha256.New()}, nil
}

// absent returns nil if no object is committed under id, [store.ErrExists]
// if one is, and the error of the HEAD request that could not tell.
func (s *Store) absent(ctx context.Context, id string) error {
	switch _, err := s.head(ctx, id, false); {
	case err == nil:
		return store.ErrExists
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	return nil
}

// errAborted ends the body of an abandoned PutObject short of its length,
// so that S3 stores nothing.
var errAborted = errors.New("s3store: upload abandoned")

// writer streams one object into one PutObject request through a pipe.
// It keeps back the last byte until Commit.
type writer struct {
	s    *Store
	ctx  context.Context // of the request: Create's, without its cancellation
	id   string
	meta store.Meta
	in   *s3.PutObjectInput // the request, without its body
	h    hash.Hash

	written int64 // bytes taken by Write, the held one included
	last    byte  // the object's last byte, held when written == meta.Size > 0
	err     error // why the writer is spent; nil while it is open

	// The request, once started: the pipe into its body, its cancel, and
	// done, closed when it has returned with putErr.
	pw     *io.PipeWriter
	cancel context.CancelFunc
	done   chan struct{}
	putErr error
}

// start sends the PutObject request, whose body is what goes into w.pw.
func (w *writer) start() {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(w.ctx)
	w.pw, w.cancel, w.done = pw, cancel, make(chan struct{})
	in := *w.in
	// Hidden behind another type: the SDK sends a *io.PipeReader chunked,
	// without the Content-Length that the request declares and S3 checks.
	in.Body = struct{ io.Reader }{pr}
	noChecksum := in.ChecksumSHA256 == nil && in.ChecksumAlgorithm == ""
	go func() {
		defer close(w.done)
		_, w.putErr = w.s.client.PutObject(ctx, &in, func(o *s3.Options) {
			// A stream cannot be rewound: no retry, and no payload hash in
			// the signature (the checksum covers the bytes instead).
			o.RetryMaxAttempts = 1
			o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
			if noChecksum {
				// Plain http and no declared digest: no checksum at all,
				// where the SDK's default CRC32 would need a seekable body.
				o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			}
		})
		if w.putErr != nil {
			pr.CloseWithError(w.putErr) // unblocks a Write
		} else {
			pr.Close()
		}
	}()
}

func (w *writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if int64(len(p)) > w.meta.Size-w.written {
		w.fail(store.ErrTooLarge)
		return 0, store.ErrTooLarge
	}
	if len(p) == 0 {
		return 0, nil
	}
	w.h.Write(p)
	w.written += int64(len(p))
	send := p
	if w.written == w.meta.Size {
		send, w.last = p[:len(p)-1], p[len(p)-1]
	}
	if w.pw == nil {
		w.start()
	}
	if len(send) == 0 {
		return len(p), nil
	}
	if _, err := w.pw.Write(send); err != nil {
		err = w.ended()
		w.fail(err)
		return 0, err
	}
	return len(p), nil
}

// ended waits for a request that stopped taking its body, and returns why.
func (w *writer) ended() error {
	<-w.done
	if w.putErr == nil {
		return fmt.Errorf("s3store: put %q: the request ended before its body", w.id)
	}
	return putError(w.id, w.putErr)
}

// putError maps the error of a request that creates the object id if it
// is absent: PutObject, or CompleteMultipartUpload.
func putError(id string, err error) error {
	var ae smithy.APIError
	switch {
	case err == nil:
		return nil
	case status(err) == http.StatusPreconditionFailed:
		return store.ErrExists
	case status(err) == http.StatusConflict:
		// AWS's answer to conditional writes of one key at the same time:
		// the other is the one that commits.
		return fmt.Errorf("%w (a concurrent upload of the same ID)", store.ErrExists)
	case errors.As(err, &ae) && (ae.ErrorCode() == "BadDigest" || ae.ErrorCode() == "XAmzContentChecksumMismatch"):
		return fmt.Errorf("%w: S3 refused the bytes (%s)", store.ErrDigest, ae.ErrorCode())
	}
	return fmt.Errorf("s3store: put %q: %w", id, err)
}

// fail spends the writer with err, abandoning the request if it started:
// its body ends short, so S3 stores nothing. It returns when the request
// has.
func (w *writer) fail(err error) {
	if w.err != nil {
		return
	}
	w.err = err
	if w.pw != nil {
		w.pw.CloseWithError(errAborted)
		w.cancel()
		<-w.done
	}
}

func (w *writer) Abort() error {
	w.fail(store.ErrClosed)
	return nil
}

// Commit implements [store.Writer.Commit]. It checks ctx, the size and the
// digest, then sends the last byte, and waits for S3's answer whatever
// becomes of ctx: from then on S3 decides.
func (w *writer) Commit(ctx context.Context) error {
	if w.err != nil {
		err := w.err
		w.err = store.ErrClosed
		return err
	}
	err := w.commit(ctx)
	if err != nil {
		w.fail(err)
	}
	w.err = store.ErrClosed
	return err
}

func (w *writer) commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.written != w.meta.Size {
		return store.ErrIncomplete
	}
	var sum [32]byte
	w.h.Sum(sum[:0])
	if w.meta.SHA256 != ([32]byte{}) && w.meta.SHA256 != sum {
		return store.ErrDigest
	}
	if w.pw == nil {
		w.start() // an empty object
	}
	if w.meta.Size > 0 {
		if _, err := w.pw.Write([]byte{w.last}); err != nil {
			return w.ended()
		}
	}
	w.pw.Close()
	<-w.done
	return putError(w.id, w.putErr)
}
