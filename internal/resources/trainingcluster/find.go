package trainingcluster

import (
	"context"

	"cloud.google.com/go/compute/apiv1/computepb"
	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The reads of the API objects the cluster uses; a missing one is a *tfutil.NotFoundError.

func (a *applier) findVM(ctx context.Context, vm string) (*computepb.Instance, error) {
	inst, err := a.c.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: a.d.project, Zone: a.zoneOf(vm), Instance: vm})
	return tfutil.Lookup("VM", vm, inst, err)
}

func findFilestore(ctx context.Context, c *gcp.Clients, name string) (*filestorepb.Instance, error) {
	inst, err := c.Filestore.GetInstance(ctx, &filestorepb.GetInstanceRequest{Name: name})
	return tfutil.Lookup("Filestore instance", name, inst, err)
}

func findLustre(ctx context.Context, c *gcp.Clients, name string) (*lustre.Instance, error) {
	inst, err := c.Lustre.GetInstance(ctx, name)
	return tfutil.Lookup("Managed Lustre instance", name, inst, err)
}
