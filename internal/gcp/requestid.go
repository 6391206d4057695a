package gcp

import (
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// NewRequestID returns a fresh requestId (a random UUID) for one logical mutating call.
func NewRequestID() string { return uuid.NewString() }

// NewRequestIDPtr is NewRequestID for the *string RequestId fields of computepb requests.
func NewRequestIDPtr() *string {
	id := NewRequestID()
	return &id
}

// WithRequestID sets a fresh requestId on a Compute request message that has a
// request_id field and none set yet, and returns the message, so a call reads
//
//	c.Networks.Insert(ctx, gcp.WithRequestID(&computepb.InsertNetworkRequest{...}))
//
// A message that already carries an id keeps it (the caller chose to replay a logical
// call); a message without the field is returned untouched.
func WithRequestID[M proto.Message](req M) M {
	m := req.ProtoReflect()
	if !m.IsValid() {
		return req
	}
	fd := m.Descriptor().Fields().ByName("request_id")
	if fd == nil || fd.Kind() != protoreflect.StringKind || m.Has(fd) {
		return req
	}
	m.Set(fd, protoreflect.ValueOfString(NewRequestID()))
	return req
}
