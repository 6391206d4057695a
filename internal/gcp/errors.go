package gcp

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel error kinds. An *APIError matches one or more of them with errors.Is.
var (
	ErrNotFound           = errors.New("not found")
	ErrAlreadyExists      = errors.New("already exists")
	ErrConflict           = errors.New("conflict")
	ErrPreconditionFailed = errors.New("precondition failed")
	ErrQuotaExceeded      = errors.New("quota exceeded")
	ErrStockout           = errors.New("zone resource pool exhausted")
	ErrInvalidArgument    = errors.New("invalid argument")
	ErrResourceInUse      = errors.New("resource in use")
	ErrRateLimited        = errors.New("rate limited")
	ErrPermissionDenied   = errors.New("permission denied")
)

// ErrorItem is one entry of an API error list: a Compute operation's error.errors[]
// (Code like "QUOTA_EXCEEDED") or a synchronous error's errors[] (Code holds the reason
// like "notFound").
type ErrorItem struct {
	Code     string
	Message  string
	Location string
}

// APIError is an error answered by a Google Cloud API, synchronously or through a
// failed operation, with the API's own words kept.
type APIError struct {
	// HTTPStatus is the HTTP status of a synchronous error or a Compute operation's
	// httpErrorStatusCode; 0 when the API gave none.
	HTTPStatus int
	// Code is the machine-readable code: a Compute operation error code
	// (ZONE_RESOURCE_POOL_EXHAUSTED), or a google.rpc.Code name (NOT_FOUND).
	Code string
	// Reason is the googleapi reason (notFound, rateLimitExceeded) or ErrorInfo reason.
	Reason string
	// Message is the API's message, verbatim.
	Message string
	// Operation names the failed long-running operation, if the error came from one.
	Operation string
	// Errors holds every entry of the API's error list.
	Errors []ErrorItem
	// HelpLinks are URLs the API attached to the error (e.g. the resource-error page).
	HelpLinks []string
	// Details holds the API's structured details as decoded by the client library.
	Details []any

	kinds []error
	cause error
}

func (e *APIError) Error() string {
	var b strings.Builder
	if e.Operation != "" {
		fmt.Fprintf(&b, "operation %s failed: ", e.Operation)
	}
	if len(e.Errors) > 1 {
		for i, it := range e.Errors {
			if i > 0 {
				b.WriteString("; ")
			}
			writeCodeMessage(&b, it.Code, it.Message)
		}
		return b.String()
	}
	code := e.Code
	if code == "" {
		code = e.Reason
	}
	if e.HTTPStatus != 0 && e.Operation == "" {
		fmt.Fprintf(&b, "HTTP %d ", e.HTTPStatus)
	}
	writeCodeMessage(&b, code, e.Message)
	return b.String()
}

func writeCodeMessage(b *strings.Builder, code, msg string) {
	switch {
	case code != "" && msg != "":
		fmt.Fprintf(b, "%s: %s", code, msg)
	case msg != "":
		b.WriteString(msg)
	case code != "":
		b.WriteString(code)
	default:
		b.WriteString("unknown error")
	}
}

// Is reports whether the error is of the given sentinel kind.
func (e *APIError) Is(target error) bool {
	for _, k := range e.kinds {
		if k == target {
			return true
		}
	}
	return false
}

// Unwrap returns the client library's original error, so errors.As to
// *googleapi.Error or *apierror.APIError still works on a classified error.
func (e *APIError) Unwrap() error { return e.cause }

// Kinds returns the sentinel kinds this error matches.
func (e *APIError) Kinds() []error { return append([]error(nil), e.kinds...) }

func (e *APIError) addKind(k error) {
	if k == nil || e.Is(k) {
		return
	}
	e.kinds = append(e.kinds, k)
}

// IsNotFound reports whether err (classified or not) says the resource does not exist.
func IsNotFound(err error) bool { return isKind(err, ErrNotFound) }

// IsAlreadyExists reports whether err says the resource already exists.
func IsAlreadyExists(err error) bool { return isKind(err, ErrAlreadyExists) }

// IsConflict reports whether err is a 409/ABORTED-style conflict (already-exists included).
func IsConflict(err error) bool { return isKind(err, ErrConflict) }

// IsPreconditionFailed reports whether err is a fingerprint/etag mismatch (412) or FAILED_PRECONDITION.
func IsPreconditionFailed(err error) bool { return isKind(err, ErrPreconditionFailed) }

// IsQuotaExceeded reports whether err is a resource quota failure.
func IsQuotaExceeded(err error) bool { return isKind(err, ErrQuotaExceeded) }

// IsStockout reports whether err says the zone has no capacity for the request.
func IsStockout(err error) bool { return isKind(err, ErrStockout) }

// IsInvalidArgument reports whether err says the request itself was invalid.
func IsInvalidArgument(err error) bool { return isKind(err, ErrInvalidArgument) }

// IsResourceInUse reports whether err says the resource is still used by another one.
func IsResourceInUse(err error) bool { return isKind(err, ErrResourceInUse) }

// IsRateLimited reports whether err is a per-minute rate limit that outlasted the retries.
func IsRateLimited(err error) bool { return isKind(err, ErrRateLimited) }

// IsPermissionDenied reports whether err is a 403 that is not a quota or rate limit.
func IsPermissionDenied(err error) bool { return isKind(err, ErrPermissionDenied) }

// IgnoreNotFound returns nil for a not-found error and err otherwise (classified), the
// usual shape of a Delete that may find the resource already gone.
func IgnoreNotFound(err error) error {
	if err == nil || IsNotFound(err) {
		return nil
	}
	return Classify(err)
}

func isKind(err error, kind error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, kind) {
		return true
	}
	return errors.Is(Classify(err), kind)
}
