package acctest

import (
	"context"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	servicenetworking "google.golang.org/api/servicenetworking/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

type (
	computeOperation               = compute.Operation
	servicenetworkingDeleteRequest = servicenetworking.DeleteConnectionRequest
)

func wait(ctx context.Context, c *gcp.Clients, call func() (*compute.Operation, error)) (*computepb.Operation, error) {
	op, err := call()
	if err != nil {
		return nil, gcp.Classify(err)
	}
	return c.WaitCompute(ctx, op)
}
