package gcp

import (
	"context"
	"errors"
	"strings"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
)

// Compute operations are awaited with operations.wait (POST .../operations/{op}/wait),
// which the server holds open until the operation is DONE or about two minutes pass, and
// may answer earlier; the loop simply asks again. The client library's own Operation.Wait
// polls operations.get with a 1s→60s backoff and misses failures that lack
// httpErrorStatusCode, so it is not used.

// WaitCompute waits for the operation returned by a Compute client call.
// It returns the final operation and, if the operation failed, an *APIError.
func (c *Clients) WaitCompute(ctx context.Context, op *compute.Operation) (*computepb.Operation, error) {
	if op == nil {
		return nil, errors.New("gcp: WaitCompute on a nil operation")
	}
	return c.WaitComputeOp(ctx, op.Proto())
}

// WaitComputeOp waits for a Compute operation, choosing zoneOperations,
// regionOperations or globalOperations from the operation's zone and region fields.
// The project comes from the operation's links, else from Config.Project.
func (c *Clients) WaitComputeOp(ctx context.Context, op *computepb.Operation) (*computepb.Operation, error) {
	if op == nil {
		return nil, errors.New("gcp: WaitComputeOp on a nil operation")
	}
	if op.GetStatus() == computepb.Operation_DONE {
		return op, ComputeOperationError(op)
	}
	project := operationProject(op, c.Config.Project)
	switch {
	case op.GetZone() != "":
		return c.WaitZoneOp(ctx, project, lastSegment(op.GetZone()), op.GetName())
	case op.GetRegion() != "":
		return c.WaitRegionOp(ctx, project, lastSegment(op.GetRegion()), op.GetName())
	default:
		return c.WaitGlobalOp(ctx, project, op.GetName())
	}
}

// WaitZoneOp waits for zonal operation name.
func (c *Clients) WaitZoneOp(ctx context.Context, project, zone, name string) (*computepb.Operation, error) {
	return c.waitComputeLoop(ctx, func(ctx context.Context) (*computepb.Operation, error) {
		return c.ZoneOperations.Wait(ctx, &computepb.WaitZoneOperationRequest{Project: project, Zone: zone, Operation: name})
	})
}

// WaitRegionOp waits for regional operation name.
func (c *Clients) WaitRegionOp(ctx context.Context, project, region, name string) (*computepb.Operation, error) {
	return c.waitComputeLoop(ctx, func(ctx context.Context) (*computepb.Operation, error) {
		return c.RegionOperations.Wait(ctx, &computepb.WaitRegionOperationRequest{Project: project, Region: region, Operation: name})
	})
}

// WaitGlobalOp waits for global operation name.
func (c *Clients) WaitGlobalOp(ctx context.Context, project, name string) (*computepb.Operation, error) {
	return c.waitComputeLoop(ctx, func(ctx context.Context) (*computepb.Operation, error) {
		return c.GlobalOperations.Wait(ctx, &computepb.WaitGlobalOperationRequest{Project: project, Operation: name})
	})
}

func (c *Clients) waitComputeLoop(ctx context.Context, wait func(context.Context) (*computepb.Operation, error)) (*computepb.Operation, error) {
	p := newPoller(c.poll)
	for {
		started := time.Now()
		op, err := wait(ctx)
		if err != nil {
			return nil, Classify(err)
		}
		if op.GetStatus() == computepb.Operation_DONE {
			return op, ComputeOperationError(op)
		}
		// An early answer is normal; the poll interval only keeps a server that
		// answers at once from being asked in a tight loop.
		if err := p.sleep(ctx, time.Since(started)); err != nil {
			return op, err
		}
	}
}

// operationProject finds the project in the operation's selfLink, targetLink or
// zone/region URL ("…/projects/P/…").
func operationProject(op *computepb.Operation, fallback string) string {
	for _, link := range []string{op.GetSelfLink(), op.GetTargetLink(), op.GetZone(), op.GetRegion()} {
		if _, rest, ok := strings.Cut(link, "projects/"); ok {
			if p, _, _ := strings.Cut(rest, "/"); p != "" {
				return p
			}
		}
	}
	return fallback
}

// lastSegment returns "us-central1-a" for both "us-central1-a" and
// "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a".
func lastSegment(s string) string {
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndex(s, "/"); i >= 0 {
		return s[i+1:]
	}
	return s
}
