package nodepartition

import (
	"context"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The reads of the API objects a partition uses; a missing one is a *tfutil.NotFoundError.

func findReservation(ctx context.Context, cl *gcp.Clients, project, zone, name string) (*computepb.Reservation, error) {
	res, err := cl.Reservations.Get(ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: name})
	return tfutil.Lookup("reservation", name, res, err)
}

func findRegion(ctx context.Context, cl *gcp.Clients, project, region string) (*computepb.Region, error) {
	reg, err := cl.Regions.Get(ctx, &computepb.GetRegionRequest{Project: project, Region: region})
	return tfutil.Lookup("region", region, reg, err)
}

func findTemplate(ctx context.Context, cl *gcp.Clients, project, name string) (*computepb.InstanceTemplate, error) {
	t, err := cl.InstanceTemplates.Get(ctx, &computepb.GetInstanceTemplateRequest{Project: project, InstanceTemplate: name})
	return tfutil.Lookup("instance template", name, t, err)
}
