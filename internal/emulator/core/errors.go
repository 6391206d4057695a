package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// APIError is a synchronous error answer. It renders as a Compute error body
// ({"error":{"code","message","errors":[{domain,reason,message}]}}) on Compute routes and as a Google API error
// body ({"error":{"code","message","status","details"}}) on the AIP-style APIs; WriteError picks by route.
type APIError struct {
	Code         int    // HTTP status
	Reason       string // Compute reason: notFound, alreadyExists, invalid, conditionNotMet ...
	Message      string
	Domain       string // Compute error domain, "global" when empty
	Location     string // Compute "location" of the error (e.g. "If-Match" for 412)
	LocationType string // Compute "locationType" (e.g. "header")
	Status       string // Google status name; derived from Code when empty
	Details      []any  // Google error details (each a JSON object with "@type")
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Code, e.reason(), e.Message) }

func (e *APIError) reason() string {
	if e.Reason != "" {
		return e.Reason
	}
	return StatusName(e.Code)
}

// ComputeBody is the JSON Compute sends for e.
func (e *APIError) ComputeBody() any {
	item := map[string]any{"domain": firstNonEmpty(e.Domain, "global"), "reason": e.reason(), "message": e.Message}
	if e.Location != "" {
		item["location"] = e.Location
		item["locationType"] = firstNonEmpty(e.LocationType, "header")
	}
	return map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message, "errors": []any{item}}}
}

// GoogleBody is the JSON the AIP-style APIs (Filestore, Lustre, Service Networking) send for e.
func (e *APIError) GoogleBody() any {
	body := map[string]any{"code": e.Code, "message": e.Message, "status": firstNonEmpty(e.Status, StatusName(e.Code))}
	if len(e.Details) > 0 {
		body["details"] = e.Details
	}
	return map[string]any{"error": body}
}

// NotFound is Compute's 404 for a relative resource path ("projects/P/global/networks/N").
func NotFound(path string) *APIError {
	return &APIError{Code: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("The resource '%s' was not found", path)}
}

// AlreadyExists is Compute's 409 for a relative resource path.
func AlreadyExists(path string) *APIError {
	return &APIError{Code: http.StatusConflict, Reason: "alreadyExists", Message: fmt.Sprintf("The resource '%s' already exists", path)}
}

// Invalid is Compute's 400 "invalid".
func Invalid(message string) *APIError {
	return &APIError{Code: http.StatusBadRequest, Reason: "invalid", Message: message}
}

// InvalidField is Compute's 400 for one bad field value, in the API's wording.
func InvalidField(field, value, why string) *APIError {
	msg := fmt.Sprintf("Invalid value for field '%s': '%s'.", field, value)
	if why != "" {
		msg += " " + why
	}
	return Invalid(msg)
}

// Required is Compute's 400 for a missing required field.
func Required(field string) *APIError {
	return &APIError{Code: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", field)}
}

// BadRequest is a 400 with any Compute reason.
func BadRequest(reason, message string) *APIError {
	return &APIError{Code: http.StatusBadRequest, Reason: reason, Message: message}
}

// ConditionNotMet is Compute's 412 for a stale fingerprint.
func ConditionNotMet(message string) *APIError {
	return &APIError{Code: http.StatusPreconditionFailed, Reason: "conditionNotMet", Message: message, Location: "If-Match", LocationType: "header"}
}

// ResourceInUse is Compute's 400 resourceInUseByAnotherResource.
func ResourceInUse(path, user string) *APIError {
	return &APIError{Code: http.StatusBadRequest, Reason: "resourceInUseByAnotherResource",
		Message: fmt.Sprintf("The %s resource '%s' is already being used by '%s'", resourceNoun(path), path, user)}
}

// RateLimited is the documented 403 rateLimitExceeded.
func RateLimited() *APIError {
	return &APIError{Code: http.StatusForbidden, Reason: "rateLimitExceeded", Message: "Rate Limit Exceeded"}
}

// TooManyRequests is a 429.
func TooManyRequests() *APIError {
	return &APIError{Code: http.StatusTooManyRequests, Reason: "rateLimitExceeded", Message: "Rate Limit Exceeded"}
}

// Unavailable is a 503.
func Unavailable() *APIError {
	return &APIError{Code: http.StatusServiceUnavailable, Reason: "backendError", Message: "The service is currently unavailable."}
}

// Internal is a 500.
func Internal(message string) *APIError {
	return &APIError{Code: http.StatusInternalServerError, Reason: "internalError", Message: message}
}

// GoogleError is an AIP-style error; status is derived from code.
func GoogleError(code int, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// GoogleNotFound is the AIP-style 404 ("Resource 'projects/p/locations/l/instances/i' was not found").
func GoogleNotFound(name string) *APIError {
	return GoogleError(http.StatusNotFound, "Resource '%s' was not found", name)
}

// ErrorForStatus builds a default synchronous error for an HTTP status, as fault injection needs.
func ErrorForStatus(code int, reason, message string) *APIError {
	var e *APIError
	switch code {
	case http.StatusTooManyRequests:
		e = TooManyRequests()
	case http.StatusServiceUnavailable:
		e = Unavailable()
	case http.StatusForbidden:
		e = RateLimited()
	case http.StatusInternalServerError:
		e = Internal("Internal error. Please try again or contact Google Support.")
	default:
		e = &APIError{Code: code, Reason: StatusName(code), Message: http.StatusText(code)}
	}
	if reason != "" {
		e.Reason = reason
	}
	if message != "" {
		e.Message = message
	}
	return e
}

var statusNames = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "ALREADY_EXISTS",
	412: "FAILED_PRECONDITION", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED",
	503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

var grpcCodes = map[string]int{
	"OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4, "NOT_FOUND": 5,
	"ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8, "FAILED_PRECONDITION": 9, "ABORTED": 10,
	"OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12, "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}

// StatusName is the google.rpc.Code name for an HTTP status ("NOT_FOUND" for 404).
func StatusName(code int) string {
	if s, ok := statusNames[code]; ok {
		return s
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}

// GRPCCode is the numeric google.rpc.Code for an HTTP status (5 for 404), as LRO errors carry.
func GRPCCode(httpStatus int) int { return grpcCodes[StatusName(httpStatus)] }

// OpError is the failure of a Compute operation: it becomes the operation's error.errors[] plus
// httpErrorStatusCode/httpErrorMessage, and for Google LROs a google.rpc.Status.
type OpError struct {
	HTTPStatus int
	Errors     []*computepb.Errors
}

func (e *OpError) Error() string {
	var parts []string
	for _, it := range e.Errors {
		parts = append(parts, it.GetCode()+": "+it.GetMessage())
	}
	return fmt.Sprintf("operation failed (%d): %s", e.HTTPStatus, strings.Join(parts, "; "))
}

// NewOpError builds a one-item operation error; code is the Compute error code ("RESOURCE_NOT_FOUND").
func NewOpError(httpStatus int, code, message string, details ...*computepb.ErrorDetails) *OpError {
	return &OpError{HTTPStatus: httpStatus, Errors: []*computepb.Errors{{Code: proto.String(code), Message: proto.String(message), ErrorDetails: details}}}
}

// OpNotFound is the operation error for a resource that disappeared or never existed.
func OpNotFound(path string) *OpError {
	return NewOpError(404, "RESOURCE_NOT_FOUND", fmt.Sprintf("The resource '%s' was not found", path))
}

// OpAlreadyExists is the operation error for a name taken between the call and the operation's completion.
func OpAlreadyExists(path string) *OpError {
	return NewOpError(409, "RESOURCE_ALREADY_EXISTS", fmt.Sprintf("The resource '%s' already exists", path))
}

// OpResourceInUse is the operation error for deleting something still referenced.
func OpResourceInUse(path, user string) *OpError {
	return NewOpError(400, "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE",
		fmt.Sprintf("The %s resource '%s' is already being used by '%s'", resourceNoun(path), path, user))
}

// ZoneResourcePoolExhausted is the stockout operation error.
func ZoneResourcePoolExhausted(project, zone string) *OpError {
	msg := fmt.Sprintf("The zone 'projects/%s/zones/%s' does not have enough resources available to fulfill the request.  '(resource type:compute)'.", project, zone)
	help := &computepb.ErrorDetails{Help: &computepb.Help{Links: []*computepb.HelpLink{{
		Description: proto.String("Troubleshooting documentation"),
		Url:         proto.String("https://cloud.google.com/compute/docs/resource-error"),
	}}}}
	info := &computepb.ErrorDetails{ErrorInfo: &computepb.ErrorInfo{
		Reason: proto.String("resource_availability"), Domain: proto.String("compute.googleapis.com"),
		Metadatas: map[string]string{"zone": zone, "vmType": "compute", "attachment": ""},
	}}
	return NewOpError(503, "ZONE_RESOURCE_POOL_EXHAUSTED", msg, info, help)
}

// AsOpError converts any error returned by an operation's Apply into an OpError.
func AsOpError(err error) *OpError {
	var oe *OpError
	if errors.As(err, &oe) {
		return oe
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return NewOpError(ae.Code, opCodeForStatus(ae.Code), ae.Message)
	}
	return NewOpError(500, "INTERNAL_ERROR", err.Error())
}

// RPCStatus renders e as a google.rpc.Status for LROs.
func (e *OpError) RPCStatus() *RPCStatus {
	msg := ""
	if len(e.Errors) > 0 {
		msg = e.Errors[0].GetMessage()
	}
	return &RPCStatus{Code: GRPCCode(e.HTTPStatus), Message: msg}
}

// RPCStatus is google.rpc.Status.
type RPCStatus struct {
	Code    int               `json:"code"`
	Message string            `json:"message,omitempty"`
	Details []json.RawMessage `json:"details,omitempty"`
}

func opCodeForStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 403:
		return "FORBIDDEN"
	case 404:
		return "RESOURCE_NOT_FOUND"
	case 409:
		return "RESOURCE_ALREADY_EXISTS"
	case 412:
		return "CONDITION_NOT_MET"
	case 429:
		return "RATE_LIMIT_EXCEEDED"
	case 503:
		return "SERVICE_UNAVAILABLE"
	}
	return "INTERNAL_ERROR"
}

// defaultStatusForOpCode picks the HTTP status that accompanies an injected operation error code.
func defaultStatusForOpCode(code string) int {
	switch code {
	case "QUOTA_EXCEEDED":
		return 403
	case "ZONE_RESOURCE_POOL_EXHAUSTED", "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS", "SERVICE_UNAVAILABLE":
		return 503
	case "RESOURCE_NOT_FOUND":
		return 404
	case "RESOURCE_ALREADY_EXISTS":
		return 409
	case "INVALID_ARGUMENT", "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE":
		return 400
	case "CONDITION_NOT_MET":
		return 412
	}
	return 500
}

func resourceNoun(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) < 2 {
		return "resource"
	}
	noun := parts[len(parts)-2]
	noun = strings.TrimSuffix(noun, "s")
	switch noun {
	case "addresse":
		return "address"
	case "subnetwork":
		return "subnetwork"
	}
	return noun
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
