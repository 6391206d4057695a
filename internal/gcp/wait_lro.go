package gcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/api/servicenetworking/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// Filestore's generated CreateInstanceOperation.Wait polls up to a minute apart and
// replaces the whole URL path with "/v1/...", losing an endpoint's path prefix (the
// emulator's /filestore). These functions poll operations.get through the client's own
// GetOperation instead, which keeps the prefix.

// WaitFilestoreOp polls the Filestore operation name (op.Name() of a client call)
// until it is done. If into is not nil the operation's response is unpacked into it.
func (c *Clients) WaitFilestoreOp(ctx context.Context, name string, into proto.Message) error {
	p := newPoller(c.poll)
	for {
		started := time.Now()
		op, err := c.Filestore.GetOperation(ctx, &longrunningpb.GetOperationRequest{Name: name})
		if err != nil {
			return Classify(err)
		}
		if op.GetDone() {
			if err := LROError(op); err != nil {
				return err
			}
			if into == nil || op.GetResponse() == nil {
				return nil
			}
			if err := op.GetResponse().UnmarshalTo(into); err != nil {
				return fmt.Errorf("reading the result of %s: %w", name, err)
			}
			return nil
		}
		if err := p.sleep(ctx, time.Since(started)); err != nil {
			return err
		}
	}
}

// WaitFilestoreInstance waits for a create or update operation and returns the instance.
func (c *Clients) WaitFilestoreInstance(ctx context.Context, name string) (*filestorepb.Instance, error) {
	inst := &filestorepb.Instance{}
	if err := c.WaitFilestoreOp(ctx, name, inst); err != nil {
		return nil, err
	}
	return inst, nil
}

// WaitServiceNetworkingOp polls a Service Networking operation until it is done and
// returns it; a failed operation gives an *APIError.
func (c *Clients) WaitServiceNetworkingOp(ctx context.Context, op *servicenetworking.Operation) (*servicenetworking.Operation, error) {
	if op == nil {
		return nil, errors.New("gcp: WaitServiceNetworkingOp on a nil operation")
	}
	p := newPoller(c.poll)
	for !op.Done {
		if err := p.sleep(ctx, 0); err != nil {
			return op, err
		}
		next, err := c.ServiceNetworking.Operations.Get(op.Name).Context(ctx).Do()
		if err != nil {
			return op, Classify(err)
		}
		op = next
	}
	return op, ServiceNetworkingOperationError(op)
}

// WaitLustreOp waits for a Lustre operation and returns the instance in its response
// (nil for a delete); errors are classified.
func (c *Clients) WaitLustreOp(ctx context.Context, op *lustre.Operation) (*lustre.Instance, error) {
	inst, err := c.Lustre.WaitOperation(ctx, op)
	return inst, Classify(err)
}
