package gcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/servicenetworking/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

var allKinds = []error{ErrNotFound, ErrAlreadyExists, ErrConflict, ErrPreconditionFailed, ErrQuotaExceeded,
	ErrStockout, ErrInvalidArgument, ErrResourceInUse, ErrRateLimited, ErrPermissionDenied}

// checkKinds asserts err matches exactly the wanted kinds and keeps the API's message.
func checkKinds(t *testing.T, err error, msg string, want ...error) {
	t.Helper()
	ce := Classify(err)
	var ae *APIError
	if !errors.As(ce, &ae) {
		t.Fatalf("Classify(%v) = %T, want *APIError", err, ce)
	}
	for _, k := range allKinds {
		wanted := false
		for _, w := range want {
			wanted = wanted || w == k
		}
		if got := errors.Is(ce, k); got != wanted {
			t.Errorf("errors.Is(%q, %v) = %v, want %v", ce, k, got, wanted)
		}
	}
	if msg != "" && !strings.Contains(ce.Error(), msg) {
		t.Errorf("Error() = %q, want it to keep %q", ce.Error(), msg)
	}
}

func TestClassifyComputeSynchronousErrors(t *testing.T) {
	// The errors travel through the real Compute REST client, which wraps a
	// *googleapi.Error in gax's *apierror.APIError.
	cases := []struct {
		status int
		reason string
		msg    string
		want   []error
	}{
		{404, "notFound", "The resource 'projects/p/global/networks/n' was not found", []error{ErrNotFound}},
		{409, "alreadyExists", "The resource 'projects/p/global/networks/n' already exists", []error{ErrAlreadyExists, ErrConflict}},
		{412, "conditionNotMet", "Supplied fingerprint does not match current metadata fingerprint.", []error{ErrPreconditionFailed}},
		{400, "invalid", "Invalid value for field 'resource.name': 'X'.", []error{ErrInvalidArgument}},
		{400, "resourceInUseByAnotherResource", "The network resource 'projects/p/global/networks/n' is already being used by 'projects/p/global/firewalls/f'", []error{ErrResourceInUse}},
		{403, "quotaExceeded", "Quota 'NETWORKS' exceeded.  Limit: 15.0 globally.", []error{ErrQuotaExceeded}},
		{403, "forbidden", "Required 'compute.networks.get' permission for 'projects/p/global/networks/n'", []error{ErrPermissionDenied}},
	}
	for _, tc := range cases {
		t.Run(tc.reason, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
				writeJSON(w, tc.status, computeError(tc.status, tc.reason, tc.msg))
			})
			c := emulatorClients(t, f)
			_, err := c.Networks.Get(context.Background(), &computepb.GetNetworkRequest{Project: "p", Network: "n"})
			if err == nil {
				t.Fatal("no error")
			}
			checkKinds(t, err, tc.msg, tc.want...)
			var ae *APIError
			errors.As(Classify(err), &ae)
			if ae.HTTPStatus != tc.status || ae.Reason != tc.reason {
				t.Errorf("HTTPStatus %d Reason %q", ae.HTTPStatus, ae.Reason)
			}
			var ge *googleapi.Error
			if !errors.As(Classify(err), &ge) {
				t.Error("the classified error no longer unwraps to *googleapi.Error")
			}
		})
	}
}

func TestClassifyFilestoreAIPErrors(t *testing.T) {
	// AIP-193 bodies (Filestore, Lustre) carry the canonical status instead of reasons.
	cases := []struct {
		status int
		code   string
		msg    string
		want   []error
	}{
		{404, "NOT_FOUND", "Resource 'projects/p/locations/z/instances/i' was not found", []error{ErrNotFound}},
		{400, "FAILED_PRECONDITION", "Instance is being deleted", []error{ErrPreconditionFailed}},
		{409, "ALREADY_EXISTS", "Resource already exists", []error{ErrAlreadyExists, ErrConflict}},
		{429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute'", []error{ErrRateLimited}},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
				writeJSON(w, tc.status, map[string]any{"error": map[string]any{"code": tc.status, "message": tc.msg, "status": tc.code}})
			})
			c := emulatorClients(t, f, func(c *Config) { c.Retry.Disabled = true })
			_, err := c.Filestore.GetInstance(context.Background(), &filestorepb.GetInstanceRequest{Name: "projects/p/locations/z/instances/i"})
			if err == nil {
				t.Fatal("no error")
			}
			checkKinds(t, err, tc.msg, tc.want...)
		})
	}
}

func TestClassifyGRPCStatus(t *testing.T) {
	cases := []struct {
		code codes.Code
		msg  string
		want []error
	}{
		{codes.NotFound, "instance not found", []error{ErrNotFound}},
		{codes.AlreadyExists, "instance exists", []error{ErrAlreadyExists, ErrConflict}},
		{codes.ResourceExhausted, "Quota 'CPUS' exceeded", []error{ErrQuotaExceeded}},
		{codes.ResourceExhausted, "The zone 'projects/p/zones/z' does not have enough resources available to fulfill the request.", []error{ErrStockout}},
		{codes.FailedPrecondition, "Cannot modify allocated ranges in CreateConnection. Please use UpdateConnection.", []error{ErrPreconditionFailed}},
		{codes.InvalidArgument, "capacity must be a multiple of 9000", []error{ErrInvalidArgument}},
		{codes.PermissionDenied, "denied", []error{ErrPermissionDenied}},
		{codes.Aborted, "concurrent update", []error{ErrConflict}},
	}
	for _, tc := range cases {
		err := fmt.Errorf("calling: %w", status.Error(tc.code, tc.msg))
		checkKinds(t, err, tc.msg, tc.want...)
	}
}

func TestClassifyLeavesOtherErrorsAlone(t *testing.T) {
	if Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
	for _, err := range []error{context.Canceled, context.DeadlineExceeded, errors.New("dial tcp: connection refused")} {
		if got := Classify(err); got != err {
			t.Errorf("Classify(%v) = %v, want it unchanged", err, got)
		}
		if IsNotFound(err) || IsQuotaExceeded(err) {
			t.Errorf("%v classified as an API error", err)
		}
	}
	nf := Classify(status.Error(codes.NotFound, "gone"))
	if Classify(nf) != nf {
		t.Error("classifying twice built a new error")
	}
	if IgnoreNotFound(nf) != nil || IgnoreNotFound(nil) != nil {
		t.Error("IgnoreNotFound kept a not-found error")
	}
	if !IsAlreadyExists(IgnoreNotFound(status.Error(codes.AlreadyExists, "x"))) {
		t.Error("IgnoreNotFound dropped another error")
	}
}

func TestComputeOperationError(t *testing.T) {
	done := computepb.Operation_DONE
	t.Run("success", func(t *testing.T) {
		if err := ComputeOperationError(&computepb.Operation{Name: proto.String("op"), Status: &done}); err != nil {
			t.Errorf("got %v", err)
		}
		ok := int32(200)
		if err := ComputeOperationError(&computepb.Operation{Status: &done, HttpErrorStatusCode: &ok}); err != nil {
			t.Errorf("2xx: got %v", err)
		}
	})
	t.Run("quota without httpErrorStatusCode", func(t *testing.T) {
		msg := "Quota 'DISKS_TOTAL_GB' exceeded.  Limit: 1100.0 in region us-central1."
		op := &computepb.Operation{Name: proto.String("operation-1"), Status: &done, Error: &computepb.Error{
			Errors: []*computepb.Errors{{Code: proto.String("QUOTA_EXCEEDED"), Message: proto.String(msg),
				ErrorDetails: []*computepb.ErrorDetails{{QuotaInfo: &computepb.QuotaExceededInfo{MetricName: proto.String("compute.googleapis.com/disks_total_storage")}}}}},
		}}
		err := ComputeOperationError(op)
		checkKinds(t, err, msg, ErrQuotaExceeded)
		var ae *APIError
		errors.As(err, &ae)
		if ae.Code != "QUOTA_EXCEEDED" || ae.Operation != "operation-1" || !strings.Contains(err.Error(), "QUOTA_EXCEEDED") {
			t.Errorf("%+v", ae)
		}
	})
	t.Run("stockout", func(t *testing.T) {
		msg := "The zone 'projects/p/zones/us-central1-a' does not have enough resources available to fulfill the request.  '(resource type:compute)'."
		code := int32(503)
		op := &computepb.Operation{Name: proto.String("operation-2"), Status: &done, HttpErrorStatusCode: &code,
			Error: &computepb.Error{Errors: []*computepb.Errors{{Code: proto.String("ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS"),
				Message: proto.String(msg), ErrorDetails: []*computepb.ErrorDetails{{Help: &computepb.Help{Links: []*computepb.HelpLink{
					{Url: proto.String("https://cloud.google.com/compute/docs/resource-error")}}}}}}}}}
		err := ComputeOperationError(op)
		checkKinds(t, err, msg, ErrStockout)
		var ae *APIError
		errors.As(err, &ae)
		if len(ae.HelpLinks) != 1 || ae.HTTPStatus != 503 {
			t.Errorf("%+v", ae)
		}
	})
	t.Run("several errors", func(t *testing.T) {
		op := &computepb.Operation{Name: proto.String("op-3"), Status: &done, Error: &computepb.Error{Errors: []*computepb.Errors{
			{Code: proto.String("QUOTA_EXCEEDED"), Message: proto.String("Quota 'GPUS' exceeded")},
			{Code: proto.String("ZONE_RESOURCE_POOL_EXHAUSTED"), Message: proto.String("no capacity")},
		}}}
		err := ComputeOperationError(op)
		checkKinds(t, err, "", ErrQuotaExceeded, ErrStockout)
		if !strings.Contains(err.Error(), "Quota 'GPUS' exceeded") || !strings.Contains(err.Error(), "no capacity") {
			t.Errorf("Error() = %q", err)
		}
	})
	t.Run("only httpErrorStatusCode", func(t *testing.T) {
		code := int32(404)
		op := &computepb.Operation{Status: &done, HttpErrorStatusCode: &code, HttpErrorMessage: proto.String("NOT FOUND")}
		checkKinds(t, ComputeOperationError(op), "NOT FOUND", ErrNotFound)
	})
	t.Run("already exists", func(t *testing.T) {
		op := &computepb.Operation{Status: &done, Error: &computepb.Error{Errors: []*computepb.Errors{
			{Code: proto.String("RESOURCE_ALREADY_EXISTS"), Message: proto.String("The resource 'x' already exists")}}}}
		checkKinds(t, ComputeOperationError(op), "already exists", ErrAlreadyExists, ErrConflict)
	})
}

func TestLROErrors(t *testing.T) {
	help, _ := anypb.New(&errdetails.Help{Links: []*errdetails.Help_Link{{Url: "https://example.com/help"}}})
	fsOp := &longrunningpb.Operation{Name: "projects/p/locations/z/operations/o", Done: true,
		Result: &longrunningpb.Operation_Error{Error: &spb.Status{Code: 8, Message: "Quota 'Basic HDD' exceeded", Details: []*anypb.Any{help}}}}
	err := LROError(fsOp)
	checkKinds(t, err, "Quota 'Basic HDD' exceeded", ErrQuotaExceeded)
	var ae *APIError
	errors.As(err, &ae)
	if ae.Operation != fsOp.Name || ae.Code != "RESOURCE_EXHAUSTED" || len(ae.HelpLinks) != 1 {
		t.Errorf("%+v", ae)
	}
	if LROError(&longrunningpb.Operation{Done: true}) != nil {
		t.Error("a successful LRO gave an error")
	}

	snOp := &servicenetworking.Operation{Name: "operations/x", Done: true, Error: &servicenetworking.Status{
		Code: 9, Message: "Cannot modify allocated ranges in CreateConnection. Please use UpdateConnection.",
		Details: []googleapi.RawMessage{googleapi.RawMessage(`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RANGES_ALLOCATED"}`)},
	}}
	err = ServiceNetworkingOperationError(snOp)
	checkKinds(t, err, "Please use UpdateConnection", ErrPreconditionFailed)
	errors.As(err, &ae)
	if ae.Reason != "RANGES_ALLOCATED" {
		t.Errorf("reason %q", ae.Reason)
	}

	le := &lustre.OperationError{Operation: "projects/p/locations/z/operations/l", Status: lustre.Status{Code: 3, Message: "bad capacity"}}
	checkKinds(t, fmt.Errorf("wait: %w", le), "bad capacity", ErrInvalidArgument)
	errors.As(Classify(le), &ae)
	if ae.Operation != le.Operation {
		t.Errorf("lost the operation name: %+v", ae)
	}
}
