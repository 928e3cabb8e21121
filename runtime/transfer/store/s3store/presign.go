package s3store

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// MaxPresignExpiry is the longest a presigned request can stay good: the
// limit of SigV4.
const MaxPresignExpiry = 7 * 24 * time.Hour

// PresignUpload implements [store.Presigner]: a PUT of the object id,
// signed until expires (rounded down to whole seconds after Options.Now;
// 1s to [MaxPresignExpiry]), that S3 takes only as it is. The signed
// headers, all in the request's Headers, fix the exact length
// (Content-Length), the media type (Content-Type, when m declares one; the
// SDK signs neither for an empty object, whose checksum fixes its body),
// the Content-Disposition a download is served with (attachment and the
// name; see [Store.PresignDownload]), the metadata (x-amz-meta-mcpfile-*, the media type among them),
// create-if-absent (If-None-Match: *, 412 once the object exists) and,
// when m declares a SHA-256 (or the object is empty), the bytes
// (x-amz-checksum-sha256: S3 refuses a body with another digest, with
// 400 BadDigest). A request that changes a signed header fails with 403,
// as does one sent after expires. Without a declared digest S3 records
// none, and the first [Store.Stat] reads the object to compute it (and
// records it in the object's tags for the next).
//
// PresignUpload makes no request: the object is not checked for, and the
// ID is taken only when the client's PUT succeeds. The size must be known:
// PresignUpload refuses [store.SizeUnknown].
func (s *Store) PresignUpload(ctx context.Context, id string, m store.Meta, expires time.Time) (store.SignedRequest, error) {
	ttl, err := s.presignTTL(ctx, id, expires)
	if err != nil {
		return store.SignedRequest{}, err
	}
	if m.Size == store.SizeUnknown {
		return store.SignedRequest{}, fmt.Errorf("s3store: presigned upload of unknown size (want a Size of 0 to %d bytes: S3 checks the exact length)", int64(MaxObjectSize))
	}
	in, err := s.putInput(id, m, false)
	if err != nil {
		return store.SignedRequest{}, err
	}
	req, err := s3.NewPresignClient(s.client).PresignPutObject(ctx, in, s3.WithPresignExpires(ttl))
	return signedRequest(id, req, err)
}

// presignTTL checks id and returns how long a request signed now stays
// good until expires: whole seconds, 1s to MaxPresignExpiry.
func (s *Store) presignTTL(ctx context.Context, id string, expires time.Time) (time.Duration, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return 0, err
	}
	ttl := expires.Sub(s.now()).Truncate(time.Second)
	if ttl < time.Second || ttl > MaxPresignExpiry {
		return 0, fmt.Errorf("s3store: presigned request good for %v (want 1s to %v)", ttl, MaxPresignExpiry)
	}
	return ttl, nil
}

// signedRequest is the SignedRequest of a presigned request: its method,
// URL and every signed header but Host, which the client sends the URL's.
func signedRequest(id string, req *v4.PresignedHTTPRequest, err error) (store.SignedRequest, error) {
	if err != nil {
		return store.SignedRequest{}, fmt.Errorf("s3store: presign %q: %w", id, err)
	}
	sr := store.SignedRequest{Method: req.Method, URL: req.URL, Headers: map[string]string{}}
	for k, vs := range req.SignedHeader {
		if k = http.CanonicalHeaderKey(k); k != "Host" && len(vs) > 0 {
			sr.Headers[k] = vs[0]
		}
	}
	return sr, nil
}

// PresignDownload implements [store.DownloadPresigner]: a GET of the
// object id, signed until expires (as for [Store.PresignUpload]), that S3
// serves with Cache-Control: private, no-store (the signed
// response-cache-control parameter) and the Content-Type and
// Content-Disposition kept with the object since it was stored, which are
// the ones asked for: the URL carries neither, so the file's name and type
// never reach an access log. An object that holds others (one stored
// before the store kept them) is served as application/octet-stream and a
// bare attachment, which name nothing either. It checks the object's
// headers with one HEAD request. The object's expiry is the caller's to
// respect: the signature outlives a deleted object only as a 404.
func (s *Store) PresignDownload(ctx context.Context, id, contentType, contentDisposition string, expires time.Time) (store.SignedRequest, error) {
	ttl, err := s.presignTTL(ctx, id, expires)
	if err != nil {
		return store.SignedRequest{}, err
	}
	o, err := s.head(ctx, id, false)
	if err != nil {
		return store.SignedRequest{}, err
	}
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(id)), ResponseCacheControl: aws.String("private, no-store")}
	if contentType != "" && o.contentType != contentType {
		in.ResponseContentType = aws.String("application/octet-stream")
	}
	if contentDisposition != "" && o.disposition != contentDisposition {
		in.ResponseContentDisposition = aws.String("attachment")
	}
	req, err := s3.NewPresignClient(s.client).PresignGetObject(ctx, in, s3.WithPresignExpires(ttl))
	return signedRequest(id, req, err)
}
