package gcp

import (
	"errors"

	"cloud.google.com/go/compute/apiv1/computepb"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/api/servicenetworking/v1"
	"google.golang.org/grpc/status"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// ComputeOperationError returns the error of a finished Compute operation, or nil if it
// succeeded. An operation has failed when it carries error.errors[] — whether or not
// httpErrorStatusCode is set — or an httpErrorStatusCode outside 2xx. The error keeps
// each entry's code (QUOTA_EXCEEDED, ZONE_RESOURCE_POOL_EXHAUSTED ...) and message.
func ComputeOperationError(op *computepb.Operation) error {
	if op == nil {
		return nil
	}
	items := op.GetError().GetErrors()
	httpFailed := op.HttpErrorStatusCode != nil &&
		(op.GetHttpErrorStatusCode() < 200 || op.GetHttpErrorStatusCode() > 299)
	if len(items) == 0 && !httpFailed {
		return nil
	}
	ae := &APIError{HTTPStatus: int(op.GetHttpErrorStatusCode()), Operation: op.GetName()}
	for _, it := range items {
		ae.Errors = append(ae.Errors, ErrorItem{Code: it.GetCode(), Message: it.GetMessage(), Location: it.GetLocation()})
		ae.Details = append(ae.Details, it)
		for _, d := range it.GetErrorDetails() {
			if r := d.GetErrorInfo().GetReason(); r != "" && ae.Reason == "" {
				ae.Reason = r
			}
			for _, l := range d.GetHelp().GetLinks() {
				ae.HelpLinks = append(ae.HelpLinks, l.GetUrl())
			}
		}
		ae.addKindsFromCode(it.GetCode())
		ae.addKindsFromMessage(it.GetMessage())
	}
	if len(items) > 0 {
		ae.Code, ae.Message = items[0].GetCode(), items[0].GetMessage()
	} else {
		ae.Message = op.GetHttpErrorMessage()
	}
	ae.addKindsFromReason(ae.Reason)
	if httpFailed {
		ae.addKindsFromHTTPStatus(ae.HTTPStatus)
	}
	return ae
}

// LROError returns the error of a finished google.longrunning operation (Filestore),
// or nil if it succeeded.
func LROError(op *longrunningpb.Operation) error {
	st := op.GetError()
	if st == nil || st.GetCode() == 0 {
		return nil
	}
	return fromRPCStatus(op.GetName(), st.GetCode(), st.GetMessage(), status.FromProto(st).Details(), nil)
}

// ServiceNetworkingOperationError returns the error of a finished Service Networking
// operation, or nil if it succeeded.
func ServiceNetworkingOperationError(op *servicenetworking.Operation) error {
	if op == nil || op.Error == nil || op.Error.Code == 0 {
		return nil
	}
	details := make([]any, 0, len(op.Error.Details))
	for _, d := range op.Error.Details {
		details = append(details, d)
	}
	return fromRPCStatus(op.Name, int32(op.Error.Code), op.Error.Message, details, nil)
}

func fromLustreOperationError(err error) (*APIError, bool) {
	var le *lustre.OperationError
	if !errors.As(err, &le) {
		return nil, false
	}
	details := make([]any, 0, len(le.Status.Details))
	for _, d := range le.Status.Details {
		details = append(details, d)
	}
	return fromRPCStatus(le.Operation, int32(le.Status.Code), le.Status.Message, details, err), true
}
