package gcp

import (
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
)

func TestWithRequestID(t *testing.T) {
	a := WithRequestID(&computepb.InsertNetworkRequest{Project: "p"})
	b := WithRequestID(&computepb.InsertNetworkRequest{Project: "p"})
	if _, err := uuid.Parse(a.GetRequestId()); err != nil {
		t.Fatalf("requestId %q is not a UUID", a.GetRequestId())
	}
	if a.GetRequestId() == b.GetRequestId() {
		t.Error("two logical calls got the same requestId")
	}

	kept := WithRequestID(&computepb.SetMetadataInstanceRequest{RequestId: proto.String("chosen")})
	if kept.GetRequestId() != "chosen" {
		t.Errorf("an existing requestId was replaced by %q", kept.GetRequestId())
	}

	get := &computepb.GetNetworkRequest{Project: "p", Network: "n"}
	if !proto.Equal(WithRequestID(get), &computepb.GetNetworkRequest{Project: "p", Network: "n"}) {
		t.Error("a request without a request_id field was changed")
	}

	if p := NewRequestIDPtr(); p == nil || *p == "" || *p == NewRequestID() {
		t.Errorf("NewRequestIDPtr() = %v", p)
	}
}
