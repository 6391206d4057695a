package trainingcluster

import (
	"context"
	"fmt"
	"maps"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Which cluster a create may take over (tfutil/label_ownership.go).
//
// A cluster is its controller VM: Read drops the cluster when the controller is gone, and the
// controller carries the cluster's configuration and every other resource's metadata key. So the
// controller decides. A create's inserts carry the creation marker on the controller and the login
// VMs, and the create removes it — login VMs first, the controller last — once the controller
// reported the configuration applied. A create that finds the controller adopts it only while it
// carries the marker; apply refuses any other (adoptable) before its first mutating call (the
// controller's insert or metadata, the login VMs), and Create records no state for it, so the
// refused state's destroy has nothing to delete.
//
// Login VMs are found by the cluster's label and adopted whatever their marker: with the controller
// gone no cluster owns them (its state was dropped by Read), and a create that finds the controller
// has already been refused or has adopted a marked one.

// resourceType names the resource in the import a refusal points to.
const resourceType = "hypercompute_training_cluster"

// adoptable is nil when an existing controller of this cluster still carries the creation marker
// (an unfinished create, which a create finishes), and the refusal otherwise.
func (a *applier) adoptable(ctl *computepb.Instance) error {
	if tfutil.HasCreateMarker(ctl.GetLabels()) {
		return nil
	}
	return tfutil.NotOurs(what, a.d.name+" (controller VM "+ctl.GetName()+")", resourceType, clusterID(a.d.project, a.d.zone, a.d.name))
}

// labels are the labels a VM of role gets from this apply: a create's carry the creation marker
// until it finished; an update's never do, so updating an imported unfinished cluster removes it.
func (a *applier) labels(role clusterconfig.Role) map[string]string {
	if a.creating {
		return tfutil.WithCreateMarker(a.d.vmLabels(role))
	}
	return a.d.vmLabels(role)
}

// unmark ends a create that finished: it removes the creation marker from the login VMs and then
// from the controller, so that a crash in between leaves a controller a retry still adopts.
func (a *applier) unmark(ctx context.Context) error {
	logins, err := a.logins(ctx)
	if err != nil {
		return err
	}
	var marked []*computepb.Instance
	for _, vm := range logins {
		if tfutil.HasCreateMarker(vm.GetLabels()) {
			marked = append(marked, vm)
		}
	}
	if err := tfutil.Parallel(marked, func(vm *computepb.Instance) error { return a.dropMarker(ctx, vm) }); err != nil {
		return err
	}
	ctl, err := a.findVM(ctx, a.d.controllerName())
	if err != nil {
		return fmt.Errorf("reading VM %s: %w", a.d.controllerName(), err)
	}
	if !tfutil.HasCreateMarker(ctl.GetLabels()) {
		return nil
	}
	return a.dropMarker(ctx, ctl)
}

// dropMarker removes the creation marker from a VM's labels and keeps every other label.
func (a *applier) dropMarker(ctx context.Context, vm *computepb.Instance) error {
	return a.setLabels(ctx, vm.GetName(), maps.Clone(tfutil.WithoutCreateMarker(vm.GetLabels())))
}
