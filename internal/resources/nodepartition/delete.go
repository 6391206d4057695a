package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// destroy removes the partition from Slurm first (so nothing new is scheduled on it), then deletes
// its VMs, templates and placement policy. Every step skips what is already gone, so a destroy that
// was interrupted finishes on the next run.
func destroy(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name, project, zone string, poll time.Duration) error {
	prefix := cc.NodeNamePrefix(ref.Name, name)
	ctl, err := getController(ctx, cl, ref)
	switch {
	case errors.Is(err, tfutil.ErrNoController):
	case err != nil:
		return err
	default:
		if _, present := metadataItems(ctl)[cc.PartitionKey(name)]; present {
			if _, err := setPartitionKey(ctx, cl, ref, ctl, cc.PartitionKey(name), nil); err != nil {
				return err
			}
			// Slurm should let go of the nodes before their VMs go, but a controller that failed
			// or stopped answering must not keep the VMs alive: after a bounded wait they are
			// deleted anyway, and the controller drops the partition when it applies next.
			w := appliedWait{cl: cl, ref: ref, what: "partition " + name + " removed", poll: poll}
			wctx, cancel := context.WithTimeout(ctx, destroyWait)
			err := w.untilApplied(wctx)
			cancel()
			if err != nil && ctx.Err() != nil {
				return err
			}
		}
	}
	inv, err := listNodes(ctx, cl, project, zone, prefix)
	if err != nil {
		return err
	}
	if err := deleteNodes(ctx, cl, project, zone, inv.names()); err != nil {
		return err
	}
	tmpls, err := listTemplates(ctx, cl, project, prefix)
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range tmpls {
		if err := deleteTemplate(ctx, cl, project, t); err != nil {
			errs = append(errs, err)
		}
	}
	region, _ := catalog.RegionOf(zone)
	op, err := cl.ResourcePolicies.Delete(ctx, &computepb.DeleteResourcePolicyRequest{
		Project: project, Region: region, ResourcePolicy: placementPolicyName(prefix), RequestId: gcp.NewRequestIDPtr(),
	})
	if err == nil {
		_, err = cl.WaitCompute(ctx, op)
	}
	if err = gcp.IgnoreNotFound(err); err != nil {
		errs = append(errs, fmt.Errorf("deleting placement policy %s: %w", placementPolicyName(prefix), err))
	}
	return errors.Join(errs...)
}

// destroyWait bounds how long a destroy waits for the controller to drop the partition.
const destroyWait = 5 * time.Minute
