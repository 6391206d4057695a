package tfutil

import (
	"context"
	"errors"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// ErrNoController says a training cluster's controller VM does not exist: the cluster was never
// created, or it is gone (a dependent resource's Read then drops itself, its Delete has nothing to do).
var ErrNoController = errors.New("the cluster's controller VM does not exist")

// ReadController reads the controller VM of a training cluster and decodes the cluster's desired
// configuration from its metadata. Partitions, recipe jobs and health policies all attach to a
// cluster this way; the errors name the VM and say what is wrong with it.
func ReadController(ctx context.Context, cl *gcp.Clients, c cc.ClusterID) (*computepb.Instance, cc.Cluster, error) {
	name := cc.ControllerName(c.Name)
	inst, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: c.Project, Zone: c.Zone, Instance: name})
	inst, err = Lookup("VM", name, inst, err)
	if IsNotFound(err) {
		return nil, cc.Cluster{}, fmt.Errorf("%w: %s in %s (is the training cluster %s created?)", ErrNoController, name, c.Zone, c)
	}
	if err != nil {
		return nil, cc.Cluster{}, fmt.Errorf("reading the controller %s: %w", name, err)
	}
	raw, ok := MetadataMap(inst.GetMetadata())[cc.ClusterKey]
	if !ok {
		return nil, cc.Cluster{}, fmt.Errorf("the controller %s has no %s metadata: it was not created by hypercompute_training_cluster", name, cc.ClusterKey)
	}
	cfg, err := cc.DecodeCluster([]byte(raw))
	if err != nil {
		return nil, cc.Cluster{}, fmt.Errorf("the cluster configuration on %s is invalid: %w", name, err)
	}
	return inst, cfg, nil
}

// ControllerVM names a cluster's controller for the metadata and report helpers.
func ControllerVM(c cc.ClusterID) VM {
	return VM{Project: c.Project, Zone: c.Zone, Name: c.Controller()}
}

// DropControllerKey removes key from a cluster's controller metadata and waits (wait) until the
// controller's agent has acted on its removal: how a health policy or a recipe job is deleted. A
// cluster whose controller is gone has no agent left to act: nothing to do. waiting says err came
// from wait, after the key was removed.
func DropControllerKey(ctx context.Context, cl *gcp.Clients, c cc.ClusterID, key string, wait func(context.Context) error) (waiting bool, err error) {
	inst, _, err := ReadController(ctx, cl, c)
	if errors.Is(err, ErrNoController) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := SetMetadataKey(ctx, cl, ControllerVM(c), inst, key, nil); err != nil {
		return false, err
	}
	return true, wait(ctx)
}
