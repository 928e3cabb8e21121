// Package s3store is a [store.Store] in an S3 bucket: the store of the
// transfer layer for servers that run on several machines, or that let
// clients upload straight to object storage ([store.Presigner]). Servers
// make one with [New] and pass it to the transfer options; nothing else
// calls it. It is a module of its own, so that servers that do not use it
// do not compile in the AWS SDK.
//
// It needs two features of the server, on which its guarantees rest:
// conditional writes (If-None-Match: * on PutObject and on
// CompleteMultipartUpload) and SHA-256 checksums (x-amz-checksum-sha256).
// AWS S3 has both; the tests run against versitygw, which has both (and
// checks a test of each); check that another S3-compatible server (MinIO,
// Ceph RGW, Cloudflare R2…) has both before relying on it. A server that
// ignored If-None-Match would let a second upload replace the first.
//
// # Configuration
//
// With [Options.Client] nil, New builds the client the way every AWS tool
// does ([config.LoadDefaultConfig]), from the environment and the shared
// config files:
//
//	AWS_REGION                               the bucket's region
//	AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY the credentials (or a profile, SSO, an instance role…)
//	AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL  the endpoint of an S3-compatible server
//
// MinIO, Ceph and versitygw are usually addressed path-style
// (http://host/bucket/key); set [Options.UsePathStyle] for them. The
// credentials need s3:GetObject, s3:PutObject, s3:DeleteObject and
// s3:ListBucket on the bucket (without s3:ListBucket, S3 answers 403 for a
// missing object, which the store cannot tell from a refusal); and, for
// objects of unknown size, s3:AbortMultipartUpload, s3:PutObjectTagging and
// s3:GetObjectTagging (the tagging permissions also spare a second read of
// an object whose SHA-256 S3 does not keep; see [Store.Stat]).
//
// # Objects
//
// The object of ID id is the key [Options.Prefix]+id. Its [store.Meta] is
// the object's length, Content-Type (the media type, also kept in the
// metadata so that an empty one reads back empty), Content-Disposition
// (attachment with the name, [store.ContentDisposition], so that a
// presigned download need not carry either in its URL), its SHA-256 checksum
// (x-amz-checksum-sha256), and user metadata: x-amz-meta-mcpfile-name,
// -owner and -media-type (percent-encoded), -expires (RFC 3339) and, when
// the store checked the bytes itself, -sha256. S3 limits user metadata to
// 2 KiB ([MaxMetadataSize]), and a single PUT to 5 GiB: objects of known
// size are refused past [MaxObjectSize]. Objects of unknown size go up to
// [MaxUnknownSize]; see below.
//
// # What S3 enforces and what the store checks
//
// A [store.Writer] of known size streams the bytes into one PutObject
// request as they are written, through a pipe: it holds none of them but
// the last, which it keeps back until Commit, so that S3 cannot complete
// the object before Commit decides to. S3 enforces, on that request:
//
//   - the exact length: Content-Length, the declared size;
//   - create-if-absent: If-None-Match: *, refused with 412 if the key
//     exists, at the end of the body ([store.ErrExists]);
//   - the digest: x-amz-checksum-sha256, checked against the body and kept
//     with the object. It is the declared digest, in a header; or, when
//     none is declared, the digest of the body, which the SDK computes as
//     it sends and puts in a trailer after it.
//
// The store checks the rest itself: IDs ([store.ValidID]), the byte past
// the declared size at the Write that brings it, a short body and a wrong
// digest at Commit, before the last byte goes out (then it abandons the
// request: its body ends short, and S3 stores nothing), and expiry, which
// S3 does not know, on every read. The owner is recorded; checking it is
// the transfer layer's business.
//
// Trailing checksums need TLS (the AWS SDK sends them only over https).
// Over a plain http endpoint an object whose digest is not declared is
// stored without one, and the first [Store.Stat] computes its SHA-256 by
// reading the whole object, then records it in the object's tags (as for
// an object of unknown size, below), where later ones read it: declare the
// digest, or use https.
//
// [Store.PresignUpload] signs the same PutObject request for a client to
// send itself: the length, Content-Type, the metadata, If-None-Match and,
// when the digest is declared, the checksum are signed headers, so S3
// refuses a request that changes any of them, or a body that does not
// match them. Nothing else checks a presigned upload: S3 cannot sniff the
// content as the transfer layer's own endpoint does.
//
// # Objects of unknown size
//
// A Writer of [store.SizeUnknown] cannot declare a Content-Length, so it
// buffers: it holds up to [PartSize] (8 MiB) of the object in memory, the
// most it holds of any object, and hashes every byte as it takes it. If
// Commit comes before more bytes do, it sends them in one PutObject request
// as above, with their length and SHA-256, which S3 checks and records.
// Else, when the next byte comes, it starts a multipart upload and sends
// the buffer as its first part, and so on: each part with its SHA-256,
// which S3 checks. Commit sends the last part and completes the upload,
// If-None-Match: * (412 if the key exists: [store.ErrExists]), and with
// x-amz-mp-object-size, the length written. A multipart upload holds at
// most 10,000 parts: hence [MaxUnknownSize], 10,000 × PartSize, the
// largest MaxSize Create takes.
//
// The object's metadata is as above: the Writer fixes it when the upload
// starts. So the SHA-256 of the bytes, known only at Commit, cannot go in
// it: a declared digest does (Commit checks the bytes against it before it
// completes), and an undeclared one goes in the object's tags, mcpfile-sha256
// and mcpfile-etag (the ETag of the object it describes), right after the
// upload completes; x-amz-meta-mcpfile-sha256-tagged says to look there, and
// Stat does, with one more request. If the tags cannot be written, Commit
// deletes the object it completed and fails. (S3's own checksum of a
// multipart object is a checksum of the parts' checksums, not the object's
// SHA-256, and the store does not use it.)
//
// A Writer that fails, or is aborted, aborts its multipart upload, and S3
// deletes the parts (if that request fails, Abort returns its error). A
// Writer neither committed nor aborted, such as one of a process that
// died, leaves its upload behind, which S3 keeps (and bills) until it is
// aborted; Sweep does not look for those, but a lifecycle rule aborts them
// (see Expiry).
//
// # Expiry
//
// Objects expire at their [store.Meta.Expires]: from then on Stat and Open
// report [store.ErrNotFound], and [Store.Sweep] deletes them. Sweep lists
// the prefix and reads each object's metadata, one HEAD request per object
// (S3 listings carry no metadata): run it with [store.RunSweeper] at an
// interval that suits the number of objects. A bucket lifecycle rule that
// deletes objects under the prefix some time after they were made, longer
// than the longest TTL, reclaims the space without any request; the
// store's own expiry still decides what is visible until then. The same
// rule can abort the multipart uploads that writers of unknown size
// abandoned (a failed or aborted upload leaves none behind). For uploads/
// and TTLs up to a day:
//
//	{"Rules": [{"ID": "mcpfile-uploads", "Status": "Enabled",
//	  "Filter": {"Prefix": "uploads/"}, "Expiration": {"Days": 2},
//	  "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}]}
//
// # Usage
//
// [Store.Usage] makes Store a [store.Usager], for the transfer layer's
// per-owner quota. S3 has no index by owner and its listings carry no
// metadata, so Usage costs what Sweep costs: one LIST per 1,000 objects
// under the prefix and one HEAD per object ([Options.Concurrency] at a
// time), on every call. That suits a few thousand live objects; with many
// more, hide the method (wrap the Store in a type that does not have it)
// and do without the quota.
package s3store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// Limits of S3 that the store checks before it sends a request.
const (
	// MaxObjectSize is the largest object of known size a Store takes: the
	// limit of one PutObject request.
	MaxObjectSize = 5 << 30
	// MaxMetadataSize is the most bytes of user metadata (the keys after
	// x-amz-meta- and their values) an object can have.
	MaxMetadataSize = 2 << 10
	// MaxUnknownSize is the largest [store.Meta.MaxSize] of an object of
	// unknown size a Store takes: the 10,000 parts of one multipart upload,
	// each of PartSize (83,886,080,000 bytes, 78.125 GiB).
	MaxUnknownSize = maxParts * PartSize
)

// PartSize is the buffer of a Writer of unknown size: the most of an
// object it holds in memory, and the size of each part of the multipart
// upload of an object longer than that. S3 wants parts of 5 MiB to 5 GiB,
// but for the last.
const PartSize = 8 << 20

// maxParts is the most parts of a multipart upload S3 takes.
const maxParts = 10000

// DefaultConcurrency is the Concurrency of Options that set none.
const DefaultConcurrency = 16

// Options configure a Store. Bucket is required; every other zero value
// means the default.
type Options struct {
	// Bucket is the name of the bucket, which must exist.
	Bucket string
	// Prefix is put before each ID to make its key, such as "uploads/".
	// The store lists, sweeps and counts only the keys directly under it
	// (the rest of the key an ID, with no further "/"), so one bucket can
	// hold other data beside the store's.
	Prefix string
	// Client is the S3 client to use. Nil means one built from the
	// environment by config.LoadDefaultConfig, with UsePathStyle.
	Client *s3.Client
	// UsePathStyle addresses the bucket in the path (http://host/bucket/key)
	// rather than in the host name, as MinIO, Ceph and versitygw usually
	// want. It applies only to the client New builds.
	UsePathStyle bool
	// Now returns the current time, against which Stat and Open check
	// expiry and PresignUpload counts the signature's lifetime. Nil means
	// time.Now.
	Now func() time.Time
	// Concurrency is the number of HEAD requests Sweep and Usage have in
	// flight at once. Zero means DefaultConcurrency.
	Concurrency int
}

// Store is a [store.Store], [store.Presigner] and [store.Usager] in an S3
// bucket. It is safe for concurrent use, also by several processes sharing
// the bucket and prefix. Make one with [New].
type Store struct {
	client      *s3.Client
	bucket      string
	prefix      string
	now         func() time.Time
	concurrency int
	// tls reports whether the endpoint is https, over which the SDK can
	// send a checksum in a trailer: a client without a BaseEndpoint uses
	// AWS's, which are.
	tls bool
}

var (
	_ store.Store     = (*Store)(nil)
	_ store.Presigner = (*Store)(nil)
	_ store.Usager    = (*Store)(nil)
)

// New returns a Store in the bucket o.Bucket, building a client from the
// environment when o.Client is nil, and checks with a HeadBucket request
// that the bucket exists and the credentials reach it.
func New(ctx context.Context, o Options) (*Store, error) {
	if o.Bucket == "" {
		return nil, errors.New("s3store: no bucket (want Options.Bucket)")
	}
	s := &Store{
		client:      o.Client,
		bucket:      o.Bucket,
		prefix:      o.Prefix,
		now:         o.Now,
		concurrency: o.Concurrency,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.concurrency <= 0 {
		s.concurrency = DefaultConcurrency
	}
	if s.client == nil {
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("s3store: loading the AWS configuration: %w", err)
		}
		s.client = s3.NewFromConfig(cfg, func(so *s3.Options) { so.UsePathStyle = o.UsePathStyle })
	}
	ep := s.client.Options().BaseEndpoint
	s.tls = ep == nil || strings.HasPrefix(strings.ToLower(*ep), "https:")
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}); err != nil {
		return nil, fmt.Errorf("s3store: bucket %q: %w", s.bucket, err)
	}
	return s, nil
}

func (s *Store) key(id string) string { return s.prefix + id }

// The user metadata of an object, after x-amz-meta- (S3 keeps the keys in
// lower case).
const (
	metaName      = "mcpfile-name"
	metaOwner     = "mcpfile-owner"
	metaMediaType = "mcpfile-media-type"
	metaExpires   = "mcpfile-expires"
	metaSHA256    = "mcpfile-sha256"
	// metaSHA256Tagged marks a multipart object whose SHA-256 the store
	// computed only after the upload began, and so recorded in the
	// object's tags tagSHA256 and tagETag (see [Store.taggedSHA256]).
	metaSHA256Tagged = "mcpfile-sha256-tagged"
)

// The tags of a multipart object that record its SHA-256 (hex), and the
// ETag of the object they describe, without its quotes.
const (
	tagSHA256 = "mcpfile-sha256"
	tagETag   = "mcpfile-etag"
)

// putInput returns the PutObject request that creates the object id with
// meta m, without its body: the exact length, the media type, the
// metadata, If-None-Match: * and, when the digest is known (declared, or
// of an empty body), the checksum. With checked, the metadata also records
// the digest, which the caller promises to check itself.
func (s *Store) putInput(id string, m store.Meta, checked bool) (*s3.PutObjectInput, error) {
	if m.Size < 0 || m.Size > MaxObjectSize {
		return nil, fmt.Errorf("s3store: size %d (want 0 to %d bytes)", m.Size, int64(MaxObjectSize))
	}
	md, err := userMetadata(m)
	if err != nil {
		return nil, err
	}
	in := &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           aws.String(s.key(id)),
		ContentLength: aws.Int64(m.Size),
		IfNoneMatch:   aws.String("*"),
		Metadata:      md,
	}
	if m.MediaType != "" {
		in.ContentType = aws.String(m.MediaType)
	}
	in.ContentDisposition = aws.String(store.ContentDisposition(m.Name))
	sum := m.SHA256
	if sum == ([32]byte{}) && m.Size == 0 {
		sum = sha256.Sum256(nil)
	}
	if sum != ([32]byte{}) {
		in.ChecksumSHA256 = aws.String(base64.StdEncoding.EncodeToString(sum[:]))
		if checked {
			in.Metadata[metaSHA256] = hex.EncodeToString(sum[:])
		}
	}
	if err := checkMetadataSize(in.Metadata, 0); err != nil {
		return nil, err
	}
	return in, nil
}

// userMetadata returns the user metadata of an object with meta m, but
// for its digest, and checks that m's media type can be sent as a header.
func userMetadata(m store.Meta) (map[string]string, error) {
	if !validHeaderValue(m.MediaType) {
		return nil, fmt.Errorf("s3store: media type %q is not a valid header value", m.MediaType)
	}
	md := map[string]string{}
	for k, v := range map[string]string{metaName: m.Name, metaOwner: m.Owner, metaMediaType: m.MediaType} {
		if v != "" {
			md[k] = url.PathEscape(v)
		}
	}
	if !m.Expires.IsZero() {
		md[metaExpires] = m.Expires.UTC().Format(time.RFC3339Nano)
	}
	return md, nil
}

// checkMetadataSize checks that the user metadata md, and extra bytes more
// that the caller will add, fit in MaxMetadataSize.
func checkMetadataSize(md map[string]string, extra int) error {
	n := extra
	for k, v := range md {
		n += len(k) + len(v)
	}
	if n > MaxMetadataSize {
		return fmt.Errorf("s3store: metadata of %d bytes (want at most %d): name or owner too long", n, MaxMetadataSize)
	}
	return nil
}

// validHeaderValue reports whether v can be sent as an HTTP header value
// as it is: printable ASCII, spaces and tabs.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' || c > '~') && c != '\t' {
			return false
		}
	}
	return true
}

// An object is what a HEAD request tells of a committed object.
type object struct {
	meta store.Meta
	etag string
	// contentType and disposition are the Content-Type and
	// Content-Disposition S3 serves the object with.
	contentType, disposition string
	// hasSHA256 reports whether meta.SHA256 is set: S3 or the store
	// recorded the digest.
	hasSHA256 bool
	// tagged reports whether the store recorded the digest in the object's
	// tags, which head does not read.
	tagged bool
}

// head reads the object id's length and metadata, and with checksum also
// the SHA-256 S3 keeps. A missing object is [store.ErrNotFound]; expiry is
// the caller's to check.
func (s *Store) head(ctx context.Context, id string, checksum bool) (object, error) {
	in := &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(id))}
	if checksum {
		in.ChecksumMode = types.ChecksumModeEnabled
	}
	out, err := s.client.HeadObject(ctx, in)
	if status(err) == http.StatusNotFound {
		return object{}, store.ErrNotFound
	}
	if err != nil {
		return object{}, fmt.Errorf("s3store: head %q: %w", id, err)
	}
	o := object{etag: aws.ToString(out.ETag), contentType: aws.ToString(out.ContentType), disposition: aws.ToString(out.ContentDisposition)}
	o.meta.Size = aws.ToInt64(out.ContentLength)
	corrupt := func(what string, err error) (object, error) {
		return object{}, fmt.Errorf("s3store: object %q has a bad %s: %v", id, what, err)
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{metaName, &o.meta.Name}, {metaOwner, &o.meta.Owner}, {metaMediaType, &o.meta.MediaType}} {
		if v, ok := out.Metadata[f.key]; ok {
			if *f.dst, err = url.PathUnescape(v); err != nil {
				return corrupt(f.key, err)
			}
		}
	}
	if v, ok := out.Metadata[metaExpires]; ok {
		if o.meta.Expires, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return corrupt(metaExpires, err)
		}
	}
	// The checksum S3 keeps is the object's SHA-256 unless it is a
	// multipart object's checksum of checksums, which this store never
	// writes.
	if v := aws.ToString(out.ChecksumSHA256); v != "" && out.ChecksumType != types.ChecksumTypeComposite {
		if d, err := base64.StdEncoding.DecodeString(v); err == nil && len(d) == len(o.meta.SHA256) {
			copy(o.meta.SHA256[:], d)
			o.hasSHA256 = true
		}
	}
	if v, ok := out.Metadata[metaSHA256]; ok && !o.hasSHA256 {
		d, err := hex.DecodeString(v)
		if err != nil || len(d) != len(o.meta.SHA256) {
			return corrupt(metaSHA256, fmt.Errorf("%q is not a hex SHA-256", v))
		}
		copy(o.meta.SHA256[:], d)
		o.hasSHA256 = true
	}
	o.tagged = !o.hasSHA256 && out.Metadata[metaSHA256Tagged] != ""
	return o, nil
}

// taggedSHA256 reads the SHA-256 that the store recorded in the tags of
// the object id, of which o tells (o.tagged), into o. Tags that describe
// another object (another ETag: the store failed between completing the
// upload and tagging it, and another object took the ID since) are left
// alone, and o with them.
func (s *Store) taggedSHA256(ctx context.Context, id string, o *object) error {
	out, err := s.client.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: &s.bucket, Key: aws.String(s.key(id))})
	if status(err) == http.StatusNotFound {
		return store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("s3store: reading the tags of %q, which hold its SHA-256 (the credentials need s3:GetObjectTagging): %w", id, err)
	}
	var sum, etag string
	for _, t := range out.TagSet {
		switch aws.ToString(t.Key) {
		case tagSHA256:
			sum = aws.ToString(t.Value)
		case tagETag:
			etag = aws.ToString(t.Value)
		}
	}
	if sum == "" || etag != strings.Trim(o.etag, `"`) {
		return nil
	}
	d, err := hex.DecodeString(sum)
	if err != nil || len(d) != len(o.meta.SHA256) {
		return fmt.Errorf("s3store: object %q has a bad tag %s: %q is not a hex SHA-256", id, tagSHA256, sum)
	}
	copy(o.meta.SHA256[:], d)
	o.hasSHA256 = true
	return nil
}

// tagSHA256 records sum, the SHA-256 of the object id whose ETag is etag,
// in the object's tags tagSHA256 and tagETag, which [Store.taggedSHA256]
// reads back only while the object has that ETag.
func (s *Store) tagSHA256(ctx context.Context, id string, sum [32]byte, etag string) error {
	_, err := s.client.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{
		Bucket: &s.bucket,
		Key:    aws.String(s.key(id)),
		Tagging: &types.Tagging{TagSet: []types.Tag{
			{Key: aws.String(tagSHA256), Value: aws.String(hex.EncodeToString(sum[:]))},
			{Key: aws.String(tagETag), Value: aws.String(strings.Trim(etag, `"`))},
		}},
	})
	return err
}

// status returns the HTTP status of an S3 error, 0 if there was none.
func status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// Stat implements [store.Store.Stat], with one HEAD request, and a GET of
// the tags of an object whose SHA-256 S3 does not keep: a multipart
// object's, or one whose digest was neither declared nor sent (a presigned
// upload without a declared digest, a PUT over plain http). An object
// whose SHA-256 is recorded nowhere is read whole to compute it, once: the
// digest then goes in its tags, with its ETag, so that the next Stat of
// the same object reads it from there (if the tags cannot be written, for
// want of s3:PutObjectTagging, every Stat reads the object whole).
func (s *Store) Stat(ctx context.Context, id string) (store.Meta, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return store.Meta{}, err
	}
	o, err := s.head(ctx, id, true)
	if err != nil {
		return store.Meta{}, err
	}
	if o.meta.Expired(s.now()) {
		return store.Meta{}, store.ErrNotFound
	}
	if !o.hasSHA256 {
		err := s.taggedSHA256(ctx, id, &o)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return store.Meta{}, err
		case err != nil && o.tagged:
			return store.Meta{}, err
		}
		// An object not marked tagged may have no tags to read (err), and
		// is read whole below, as it would be without them.
	}
	if !o.hasSHA256 {
		r := s.reader(ctx, id, o)
		defer r.Close()
		h := sha256.New()
		if _, err := io.Copy(h, r); err != nil {
			return store.Meta{}, err
		}
		h.Sum(o.meta.SHA256[:0])
		// Best effort: without the tags the next Stat reads it whole again.
		_ = s.tagSHA256(ctx, id, o.meta.SHA256, o.etag)
	}
	return o.meta, nil
}

// Open implements [store.Store.Open], with one HEAD request. The reader
// reads with ranged GET requests made with ctx, each only of the object
// that was opened (If-Match its ETag): if the object is deleted or
// replaced meanwhile, reads fail rather than mix two objects.
func (s *Store) Open(ctx context.Context, id string) (store.Reader, error) {
	if err := store.CheckCall(ctx, id); err != nil {
		return nil, err
	}
	o, err := s.head(ctx, id, false)
	if err != nil {
		return nil, err
	}
	if o.meta.Expired(s.now()) {
		return nil, store.ErrNotFound
	}
	return s.reader(ctx, id, o), nil
}

// Delete implements [store.Store.Delete].
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := store.CheckCall(ctx, id); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(id))})
	if err != nil && status(err) != http.StatusNotFound {
		return fmt.Errorf("s3store: delete %q: %w", id, err)
	}
	return nil
}
