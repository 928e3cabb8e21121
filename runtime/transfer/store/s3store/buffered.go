package s3store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// digestMetaLen is the most bytes the digest adds to an object's user
// metadata: metaSHA256 and its hex value (metaSHA256Tagged is shorter).
const digestMetaLen = len(metaSHA256) + 2*sha256.Size

// createBuffered is Create of an object of unknown size.
func (s *Store) createBuffered(ctx context.Context, id string, m store.Meta) (store.Writer, error) {
	if m.MaxSize > MaxUnknownSize {
		return nil, fmt.Errorf("s3store: MaxSize %d (want 1 to %d bytes: %d parts of %d)", m.MaxSize, int64(MaxUnknownSize), maxParts, PartSize)
	}
	md, err := userMetadata(m)
	if err != nil {
		return nil, err
	}
	if err := checkMetadataSize(md, digestMetaLen); err != nil {
		return nil, err
	}
	if err := s.absent(ctx, id); err != nil {
		return nil, err
	}
	return &bufferedWriter{s: s, ctx: context.WithoutCancel(ctx), id: id, meta: m, md: md, h: sha256.New()}, nil
}

// bufferedWriter writes an object of unknown size. It holds up to PartSize
// bytes in buf. If Commit comes before more arrive, it sends them in one
// PutObject request, If-None-Match: *, as the other writer does; else each
// full buffer becomes a part of a multipart upload, started then, and
// Commit sends the last part and completes the upload, If-None-Match: *.
// Whatever fails aborts the upload, so that no parts are left.
type bufferedWriter struct {
	s    *Store
	ctx  context.Context // of the requests: Create's, without its cancellation
	id   string
	meta store.Meta
	md   map[string]string // the user metadata, without the digest
	h    hash.Hash         // of every byte taken

	written int64  // bytes taken by Write
	buf     []byte // the bytes not sent yet, at most PartSize
	err     error  // why the writer is spent; nil while it is open

	// The multipart upload, once started: its ID (nil when there is none
	// to complete or abort) and the parts sent.
	uploadID *string
	parts    []types.CompletedPart
	// abortErr is the error of an AbortMultipartUpload that failed, which
	// Abort returns.
	abortErr error
}

func (w *bufferedWriter) declared() bool { return w.meta.SHA256 != ([32]byte{}) }

func (w *bufferedWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if int64(len(p)) > w.meta.MaxSize-w.written {
		w.fail(store.ErrTooLarge)
		return 0, store.ErrTooLarge
	}
	w.h.Write(p)
	w.written += int64(len(p))
	n := len(p)
	for len(p) > 0 {
		// A full buffer goes out only when more bytes come, so that the
		// last part, sent at Commit, is never empty.
		if len(w.buf) == PartSize {
			if err := w.sendPart(); err != nil {
				w.fail(err)
				return 0, err
			}
		}
		k := min(len(p), PartSize-len(w.buf))
		w.grow(k)
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// grow makes room in buf for k more bytes, doubling it up to PartSize, or
// MaxSize if smaller: a small object takes a small buffer.
func (w *bufferedWriter) grow(k int) {
	need := len(w.buf) + k
	if need <= cap(w.buf) {
		return
	}
	c := int(min(int64(max(need, 2*cap(w.buf), 64<<10)), PartSize, w.meta.MaxSize))
	b := make([]byte, len(w.buf), c)
	copy(b, w.buf)
	w.buf = b
}

// sendPart sends buf as the next part of the multipart upload, starting
// the upload if need be, and empties it.
func (w *bufferedWriter) sendPart() error {
	s := w.s
	if w.uploadID == nil {
		md := make(map[string]string, len(w.md)+1)
		for k, v := range w.md {
			md[k] = v
		}
		if w.declared() {
			// Commit checks the bytes against it before it completes.
			md[metaSHA256] = hex.EncodeToString(w.meta.SHA256[:])
		} else {
			// Known only at Commit, after the metadata is fixed.
			md[metaSHA256Tagged] = "true"
		}
		in := &s3.CreateMultipartUploadInput{
			Bucket:   &s.bucket,
			Key:      aws.String(s.key(w.id)),
			Metadata: md,
			// Each part carries its SHA-256, which S3 checks.
			ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
			// As putInput's.
			ContentDisposition: aws.String(store.ContentDisposition(w.meta.Name)),
		}
		if w.meta.MediaType != "" {
			in.ContentType = aws.String(w.meta.MediaType)
		}
		out, err := s.client.CreateMultipartUpload(w.ctx, in)
		if err != nil {
			return fmt.Errorf("s3store: put %q: starting a multipart upload: %w", w.id, err)
		}
		w.uploadID = out.UploadId
	}
	sum := sha256.Sum256(w.buf)
	part := types.CompletedPart{
		PartNumber:     aws.Int32(int32(len(w.parts) + 1)),
		ChecksumSHA256: aws.String(base64.StdEncoding.EncodeToString(sum[:])),
	}
	out, err := s.client.UploadPart(w.ctx, &s3.UploadPartInput{
		Bucket:         &s.bucket,
		Key:            aws.String(s.key(w.id)),
		UploadId:       w.uploadID,
		PartNumber:     part.PartNumber,
		Body:           bytes.NewReader(w.buf),
		ContentLength:  aws.Int64(int64(len(w.buf))),
		ChecksumSHA256: part.ChecksumSHA256,
	}, unsignedPayload)
	if err != nil {
		return fmt.Errorf("s3store: put %q: part %d: %w", w.id, *part.PartNumber, err)
	}
	part.ETag = out.ETag
	w.parts = append(w.parts, part)
	w.buf = w.buf[:0]
	return nil
}

// unsignedPayload leaves the body out of a request's signature: its
// checksum, which S3 checks, covers the bytes, and the SDK need not read
// them twice.
func unsignedPayload(o *s3.Options) {
	o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
}

// fail spends the writer with err, frees its buffer and aborts its
// multipart upload, if any.
func (w *bufferedWriter) fail(err error) {
	if w.err != nil {
		return
	}
	w.err = err
	w.buf = nil
	w.abort()
}

// abort aborts the multipart upload, if there is one to abort. S3 then
// deletes its parts.
func (w *bufferedWriter) abort() {
	if w.uploadID == nil {
		return
	}
	_, err := w.s.client.AbortMultipartUpload(w.ctx, &s3.AbortMultipartUploadInput{
		Bucket:   &w.s.bucket,
		Key:      aws.String(w.s.key(w.id)),
		UploadId: w.uploadID,
	})
	if err != nil && status(err) != http.StatusNotFound {
		w.abortErr = fmt.Errorf("s3store: abort the multipart upload of %q (its parts stay until a lifecycle rule removes them): %w", w.id, err)
	}
	w.uploadID = nil
}

// Abort implements [store.Writer.Abort]. It returns the error of aborting
// the multipart upload, if that failed, now or when the writer failed.
func (w *bufferedWriter) Abort() error {
	w.fail(store.ErrClosed)
	err := w.abortErr
	w.abortErr = nil
	return err
}

// Commit implements [store.Writer.Commit]. It checks ctx and the digest,
// then sends what it holds, and waits for S3's answer whatever becomes of
// ctx: from then on S3 decides.
func (w *bufferedWriter) Commit(ctx context.Context) error {
	if w.err != nil {
		err := w.err
		w.err = store.ErrClosed
		return err
	}
	err := w.commit(ctx)
	if err != nil {
		w.fail(err)
	}
	w.err, w.buf = store.ErrClosed, nil
	return err
}

func (w *bufferedWriter) commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var sum [32]byte
	w.h.Sum(sum[:0])
	if w.declared() && w.meta.SHA256 != sum {
		return store.ErrDigest
	}
	if w.uploadID == nil {
		return w.put(sum)
	}
	if err := w.sendPart(); err != nil {
		return err
	}
	// S3 checks If-None-Match on the completion, atomically with it, and
	// so does versitygw (v1.8.0 checks it again under its per-key publish
	// lock; TestCompleteIfNoneMatch holds it to that): of two uploads of
	// one ID only one completes, and the other gets 412 (or 409 when they
	// race on AWS). No HEAD before it is needed, and none would close the
	// race.
	s := w.s
	out, err := s.client.CompleteMultipartUpload(w.ctx, &s3.CompleteMultipartUploadInput{
		Bucket:          &s.bucket,
		Key:             aws.String(s.key(w.id)),
		UploadId:        w.uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: w.parts},
		IfNoneMatch:     aws.String("*"),
		MpuObjectSize:   aws.Int64(w.written),
	})
	if err != nil {
		return putError(w.id, err)
	}
	w.uploadID = nil // completed: nothing to abort
	if w.declared() {
		return nil // in the metadata
	}
	return w.tag(sum, aws.ToString(out.ETag))
}

// put sends the object, whole in buf, with its digest, in one PutObject
// request.
func (w *bufferedWriter) put(sum [32]byte) error {
	m := w.meta
	m.Size, m.MaxSize, m.SHA256 = w.written, 0, sum
	in, err := w.s.putInput(w.id, m, true) // checked: computed from the bytes
	if err != nil {
		return err
	}
	in.Body = bytes.NewReader(w.buf)
	_, err = w.s.client.PutObject(w.ctx, in, unsignedPayload)
	return putError(w.id, err)
}

// tag records sum, the SHA-256 of the multipart object just completed with
// ETag etag, in the object's tags (its metadata was fixed when the upload
// started). If that fails, it deletes the object, if it is still the one
// completed, rather than leave an object whose digest is recorded nowhere
// (which every Stat would read whole).
func (w *bufferedWriter) tag(sum [32]byte, etag string) error {
	s := w.s
	key := aws.String(s.key(w.id))
	err := s.tagSHA256(w.ctx, w.id, sum, etag)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("s3store: put %q: recording its SHA-256 in its tags (the credentials need s3:PutObjectTagging): %w", w.id, err)
	_, derr := s.client.DeleteObject(w.ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: key, IfMatch: aws.String(etag)})
	if derr != nil && status(derr) != http.StatusNotFound && status(derr) != http.StatusPreconditionFailed {
		return fmt.Errorf("%w; and deleting the object: %v", err, derr)
	}
	return err
}
