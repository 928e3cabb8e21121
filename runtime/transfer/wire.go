package transfer

import (
	"crypto/sha256"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// The wire types of SEP-2631 live in package wire, which the Go client
// imports without the server; these are the same types and constants
// under the names this package has always had.

// The methods of SEP-2631 (see [wire.MethodAuthorizeUpload]).
const (
	MethodAuthorizeUpload   = wire.MethodAuthorizeUpload
	MethodAuthorizeDownload = wire.MethodAuthorizeDownload
)

// DigestSHA256 is [wire.DigestSHA256].
const DigestSHA256 = wire.DigestSHA256

// The transport and methods of a FileTransferDescriptor (see
// [wire.TransportHTTPS]).
const (
	TransportHTTPS = wire.TransportHTTPS
	TransferGET    = wire.TransferGET
	TransferPUT    = wire.TransferPUT
	TransferPOST   = wire.TransferPOST
)

// ResultComplete is [wire.ResultComplete].
const ResultComplete = wire.ResultComplete

// The reasons of ErrorData and of the HTTP endpoints' refusals (see
// [wire.ReasonMaxSizeExceeded]).
const (
	ReasonMaxSizeExceeded     = wire.ReasonMaxSizeExceeded
	ReasonMimeTypeNotAccepted = wire.ReasonMimeTypeNotAccepted
	ReasonDigestMismatch      = wire.ReasonDigestMismatch
	ReasonExpired             = wire.ReasonExpired
	ReasonUnauthorized        = wire.ReasonUnauthorized
	ReasonNotFound            = wire.ReasonNotFound
	ReasonMalformed           = wire.ReasonMalformed
	ReasonQuotaExceeded       = wire.ReasonQuotaExceeded
	ReasonMethodNotAllowed    = wire.ReasonMethodNotAllowed
	ReasonNoToken             = wire.ReasonNoToken
	ReasonUnsupportedBody     = wire.ReasonUnsupportedBody
	ReasonIncomplete          = wire.ReasonIncomplete
	ReasonAlreadyUsed         = wire.ReasonAlreadyUsed
	ReasonContentMismatch     = wire.ReasonContentMismatch
	ReasonPageClosed          = wire.ReasonPageClosed
	ReasonCrossSite           = wire.ReasonCrossSite
	ReasonNoFile              = wire.ReasonNoFile
	ReasonRangeNotSatisfiable = wire.ReasonRangeNotSatisfiable
	ReasonCanceled            = wire.ReasonCanceled
	ReasonTooSlow             = wire.ReasonTooSlow
	ReasonTooManyUploads      = wire.ReasonTooManyUploads
	ReasonBusy                = wire.ReasonBusy
	ReasonInternal            = wire.ReasonInternal
)

// FileDigest is [wire.FileDigest]: {"algorithm": "sha-256", "value": …}.
type FileDigest = wire.FileDigest

// FileValue is [wire.FileValue]: the metadata of a file under a file URI.
type FileValue = wire.FileValue

// FileTransferDescriptor is [wire.FileTransferDescriptor]: how to move a
// file's bytes out of band.
type FileTransferDescriptor = wire.FileTransferDescriptor

// Multipart is [wire.Multipart]: the form of a multipart/form-data upload.
type Multipart = wire.Multipart

// AuthorizedFile is [wire.AuthorizedFile]: a file's metadata with,
// optionally, an eager download authorization.
type AuthorizedFile = wire.AuthorizedFile

// AuthorizeUploadParams is [wire.AuthorizeUploadParams].
type AuthorizeUploadParams = wire.AuthorizeUploadParams

// AuthorizeDownloadParams is [wire.AuthorizeDownloadParams].
type AuthorizeDownloadParams = wire.AuthorizeDownloadParams

// AuthorizeUploadResult is [wire.AuthorizeUploadResult].
type AuthorizeUploadResult = wire.AuthorizeUploadResult

// AuthorizeDownloadResult is [wire.AuthorizeDownloadResult].
type AuthorizeDownloadResult = wire.AuthorizeDownloadResult

// ErrorData is [wire.ErrorData]: the data of a rejected file's JSON-RPC
// error.
type ErrorData = wire.ErrorData

// SHA256Digest returns the FileDigest of a SHA-256 sum (see
// [wire.SHA256Digest]).
func SHA256Digest(sum [sha256.Size]byte) FileDigest { return wire.SHA256Digest(sum) }

// InvalidFileError returns the JSON-RPC error -32602 of a rejected file
// (see [wire.InvalidFileError]).
func InvalidFileError(message string, data ErrorData) *jsonrpc.Error {
	return wire.InvalidFileError(message, data)
}

// ErrorDataOf returns the ErrorData of a JSON-RPC error (see
// [wire.ErrorDataOf]).
func ErrorDataOf(err error) (ErrorData, bool) { return wire.ErrorDataOf(err) }
