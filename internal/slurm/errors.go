package slurm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Slurm error numbers (slurm_errno.h) the client and its callers act on.
const (
	ErrnoUnspecified      = -1
	ErrnoAuthProtocol     = 1007 // Protocol authentication error
	ErrnoInvalidPartition = 2000 // Invalid partition name specified
	ErrnoAccessDenied     = 2002 // Access/permission denied
	ErrnoInvalidJobID     = 2017 // Invalid job id specified
	ErrnoInvalidNodeName  = 2018 // Invalid node name specified
	ErrnoAlreadyDone      = 2021 // Job/step already completing or completed
	ErrnoEnvMissing       = 2127 // environment must be set
	ErrnoAuthCredInvalid  = 6000 // Invalid authentication credential (6000-6099: auth plugins)
	ErrnoParse            = 9001 // slurmrestd: Failure during parsing
)

// ErrUnsupported is matched (errors.Is) by errors for operations the
// server's REST API version cannot do.
var ErrUnsupported = errors.New("not supported by this slurmrestd API version")

// UnsupportedError says which operation the chosen API version lacks.
type UnsupportedError struct {
	Op      string
	Version string
	Detail  string
}

func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("slurm: %s: %v (%s)", e.Op, ErrUnsupported, e.Version)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// ErrorEntry is one entry of slurmrestd's "errors" list, as sent.
type ErrorEntry struct {
	Number      int    // Slurm errno; -1 when slurmrestd did not know
	Error       string // short text, e.g. "Invalid job id specified"
	Description string // long text, e.g. "Unable to find JobId=7"
	Source      string // e.g. "slurm_load_job"
}

// APIError is a failed slurmrestd request. It keeps slurmrestd's own texts
// and error numbers.
type APIError struct {
	Op         string // what the client was doing, e.g. "submit job"
	Method     string
	Path       string
	HTTPStatus int
	Errors     []ErrorEntry
	Body       string // the reply when it was not JSON (e.g. "Authentication failure")
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "slurm: %s: %s %s: HTTP %d", e.Op, e.Method, e.Path, e.HTTPStatus)
	for i, en := range e.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		text := en.Error
		if en.Description != "" && en.Description != en.Error {
			if text != "" {
				text += ": "
			}
			text += en.Description
		}
		fmt.Fprintf(&b, "%s (error %d", text, en.Number)
		if en.Source != "" {
			fmt.Fprintf(&b, " in %s", en.Source)
		}
		b.WriteString(")")
	}
	if len(e.Errors) == 0 && e.Body != "" {
		b.WriteString(": ")
		b.WriteString(e.Body)
	}
	return b.String()
}

// Number is the most telling Slurm error number: the first that names a
// cause, else 9001 (parse failure), else -1 (unspecified), else 0.
func (e *APIError) Number() int {
	best := 0
	for _, en := range e.Errors {
		switch en.Number {
		case 0:
		case ErrnoParse:
			best = ErrnoParse
		case ErrnoUnspecified:
			if best == 0 {
				best = ErrnoUnspecified
			}
		default:
			return en.Number
		}
	}
	return best
}

// HasNumber reports whether any entry carries Slurm error number n.
func (e *APIError) HasNumber(n int) bool {
	for _, en := range e.Errors {
		if en.Number == n {
			return true
		}
	}
	return false
}

// ErrorNumber is the Slurm error number err carries, or 0.
func ErrorNumber(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Number()
	}
	return 0
}

// HasErrorNumber reports whether err carries Slurm error number n.
func HasErrorNumber(err error, n int) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.HasNumber(n)
}

// IsNotFound reports an unknown job or node.
func IsNotFound(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	return ae.HasNumber(ErrnoInvalidJobID) || ae.HasNumber(ErrnoInvalidNodeName) ||
		(ae.HTTPStatus == http.StatusNotFound && len(ae.Errors) > 0)
}

// IsInvalidPartition reports a request naming a partition Slurm does not know.
func IsInvalidPartition(err error) bool { return HasErrorNumber(err, ErrnoInvalidPartition) }

// IsUnauthorized reports a request slurmrestd or slurmctld refused for its
// credentials: no token (HTTP 401), forbidden (403), or an authentication
// error number. See the package comment for bad tokens on v0.0.38.
func IsUnauthorized(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	if ae.HTTPStatus == http.StatusUnauthorized || ae.HTTPStatus == http.StatusForbidden {
		return true
	}
	for _, en := range ae.Errors {
		if en.Number == ErrnoAuthProtocol || en.Number == ErrnoAccessDenied ||
			(en.Number >= ErrnoAuthCredInvalid && en.Number < ErrnoAuthCredInvalid+100) {
			return true
		}
	}
	return false
}
