package gcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"google.golang.org/api/googleapi"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Classify turns an error from any of the client libraries into an *APIError that
// matches the sentinel kinds with errors.Is. It understands *googleapi.Error (what the
// Compute, Filestore and Service Networking REST clients and the Lustre client return,
// possibly wrapped in gax's *apierror.APIError) and anything carrying a gRPC status
// (gax errors, failed LROs). Errors that did not come from an API (context errors,
// network failures) and errors already classified are returned unchanged; nil stays nil.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return err
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return fromGoogleAPIError(ge, err)
	}
	if le, ok := fromLustreOperationError(err); ok {
		return le
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.OK {
		return fromRPCStatus("", int32(st.Code()), st.Message(), st.Details(), err)
	}
	return err
}

func fromGoogleAPIError(ge *googleapi.Error, cause error) *APIError {
	ae := &APIError{HTTPStatus: ge.Code, Message: ge.Message, Details: ge.Details, cause: cause}
	for _, it := range ge.Errors {
		ae.Errors = append(ae.Errors, ErrorItem{Code: it.Reason, Message: it.Message})
	}
	if len(ge.Errors) > 0 {
		ae.Reason = ge.Errors[0].Reason
	}
	// googleapi.Error drops the canonical "status" (NOT_FOUND, FAILED_PRECONDITION) that
	// AIP-193 APIs such as Filestore and Lustre put in the body; it is worth having.
	var body struct {
		Error struct {
			Status string `json:"status"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(ge.Body), &body) == nil {
		ae.Code = body.Error.Status
	}
	reason, links := jsonDetailsInfo(ge.Details)
	if ae.Reason == "" {
		ae.Reason = reason
	}
	ae.HelpLinks = links
	if ae.Message == "" {
		ae.Message = strings.TrimSpace(truncate(ge.Body, 512))
	}

	if ge.Code == http.StatusTooManyRequests {
		ae.addKind(ErrRateLimited)
	}
	ae.addKindsFromCode(ae.Code)
	for _, it := range ge.Errors {
		ae.addKindsFromReason(it.Reason)
	}
	ae.addKindsFromReason(reason)
	ae.addKindsFromMessage(ae.Message)
	ae.addKindsFromHTTPStatus(ge.Code)
	return ae
}

// fromRPCStatus builds an error from a google.rpc.Status: a gRPC error or the error of
// a failed long-running operation (Filestore, Service Networking, Lustre).
func fromRPCStatus(opName string, rpcCode int32, msg string, details []any, cause error) *APIError {
	ae := &APIError{Operation: opName, Message: msg, Details: details, cause: cause}
	ae.Code = code.Code_name[rpcCode]
	if ae.Code == "" {
		ae.Code = codes.Code(uint32(rpcCode)).String()
	}
	for _, d := range details {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if ae.Reason == "" {
				ae.Reason = d.GetReason()
			}
		case *errdetails.Help:
			for _, l := range d.GetLinks() {
				ae.HelpLinks = append(ae.HelpLinks, l.GetUrl())
			}
		}
	}
	reason, links := jsonDetailsInfo(details)
	if ae.Reason == "" {
		ae.Reason = reason
	}
	ae.HelpLinks = append(ae.HelpLinks, links...)
	ae.addKindsFromCode(ae.Code)
	ae.addKindsFromReason(ae.Reason)
	ae.addKindsFromMessage(msg)
	return ae
}

// jsonDetailsInfo reads ErrorInfo.reason and Help links from details decoded as plain
// JSON maps (googleapi.Error.Details, Service Networking's Status.Details).
func jsonDetailsInfo(details []any) (reason string, links []string) {
	for _, d := range details {
		var m map[string]any
		switch d := d.(type) {
		case map[string]any:
			m = d
		case googleapi.RawMessage:
			if json.Unmarshal(d, &m) != nil {
				continue
			}
		case json.RawMessage:
			if json.Unmarshal(d, &m) != nil {
				continue
			}
		default:
			continue
		}
		typ, _ := m["@type"].(string)
		switch {
		case strings.HasSuffix(typ, "google.rpc.ErrorInfo"):
			if r, _ := m["reason"].(string); r != "" && reason == "" {
				reason = r
			}
		case strings.HasSuffix(typ, "google.rpc.Help"):
			ls, _ := m["links"].([]any)
			for _, l := range ls {
				if lm, ok := l.(map[string]any); ok {
					if u, _ := lm["url"].(string); u != "" {
						links = append(links, u)
					}
				}
			}
		}
	}
	return reason, links
}

// addKindsFromCode maps Compute operation error codes and google.rpc.Code names.
func (e *APIError) addKindsFromCode(c string) {
	switch {
	case c == "":
	case strings.Contains(c, "RESOURCE_POOL_EXHAUSTED") || c == "STOCKOUT":
		e.addKind(ErrStockout)
	case c == "RESOURCE_EXHAUSTED":
		// One code covers quotas, rate limits and stockouts; only the message tells them apart.
		e.addKindsFromMessage(e.Message)
		if len(e.kinds) == 0 {
			e.addKind(ErrQuotaExceeded)
		}
	case c == "QUOTA_EXCEEDED" || strings.HasSuffix(c, "_QUOTA_EXCEEDED"):
		e.addKind(ErrQuotaExceeded)
	case c == "NOT_FOUND" || c == "RESOURCE_NOT_FOUND":
		e.addKind(ErrNotFound)
	case c == "ALREADY_EXISTS" || c == "RESOURCE_ALREADY_EXISTS":
		e.addKind(ErrAlreadyExists)
		e.addKind(ErrConflict)
	case c == "ABORTED":
		e.addKind(ErrConflict)
	case c == "CONDITION_NOT_MET" || c == "FAILED_PRECONDITION":
		e.addKind(ErrPreconditionFailed)
	case c == "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE":
		e.addKind(ErrResourceInUse)
	case c == "RATE_LIMIT_EXCEEDED":
		e.addKind(ErrRateLimited)
	case c == "PERMISSION_DENIED" || c == "FORBIDDEN":
		e.addKind(ErrPermissionDenied)
	case c == "BAD_REQUEST" || c == "OUT_OF_RANGE" || strings.HasPrefix(c, "INVALID"):
		e.addKind(ErrInvalidArgument)
	}
}

// addKindsFromReason maps googleapi reasons (errors[].reason) and ErrorInfo reasons.
func (e *APIError) addKindsFromReason(r string) {
	switch r {
	case "":
	case "notFound":
		e.addKind(ErrNotFound)
	case "alreadyExists", "duplicate":
		e.addKind(ErrAlreadyExists)
		e.addKind(ErrConflict)
	case "conditionNotMet":
		e.addKind(ErrPreconditionFailed)
	case "resourceInUseByAnotherResource":
		e.addKind(ErrResourceInUse)
	case "quotaExceeded":
		e.addKind(ErrQuotaExceeded)
	case "rateLimitExceeded", "userRateLimitExceeded", "RATE_LIMIT_EXCEEDED":
		e.addKind(ErrRateLimited)
	case "invalid", "invalidParameter", "badRequest", "required", "invalidArgument":
		e.addKind(ErrInvalidArgument)
	case "forbidden", "insufficientPermissions", "accessNotConfigured", "IAM_PERMISSION_DENIED":
		e.addKind(ErrPermissionDenied)
	default:
		e.addKindsFromCode(r)
	}
}

func (e *APIError) addKindsFromMessage(msg string) {
	switch {
	case strings.Contains(msg, "does not have enough resources available"):
		e.addKind(ErrStockout)
	case isPerMinuteQuotaMessage(msg):
		e.addKind(ErrRateLimited)
	}
}

// addKindsFromHTTPStatus is the fallback when neither code nor reason said anything:
// the status alone is a weaker signal (a 403 may be a quota, a 400 a precondition).
func (e *APIError) addKindsFromHTTPStatus(s int) {
	if s == http.StatusConflict {
		e.addKind(ErrConflict)
	}
	if len(e.kinds) > 0 {
		return
	}
	switch s {
	case http.StatusNotFound:
		e.addKind(ErrNotFound)
	case http.StatusPreconditionFailed:
		e.addKind(ErrPreconditionFailed)
	case http.StatusBadRequest:
		e.addKind(ErrInvalidArgument)
	case http.StatusTooManyRequests:
		e.addKind(ErrRateLimited)
	case http.StatusForbidden:
		if strings.HasPrefix(e.Message, "Quota ") && strings.Contains(e.Message, "exceeded") {
			e.addKind(ErrQuotaExceeded)
		} else {
			e.addKind(ErrPermissionDenied)
		}
	}
}

// isPerMinuteQuotaMessage recognises the rate-limit flavour of "quota exceeded":
// "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' ...".
// Resource quotas ("Quota 'CPUS' exceeded. Limit: 24.0 in region ...") do not match.
func isPerMinuteQuotaMessage(msg string) bool {
	return strings.Contains(msg, "Quota exceeded for quota metric") &&
		(strings.Contains(msg, "per minute") || strings.Contains(msg, "per 100 seconds") ||
			strings.Contains(msg, "per second"))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
