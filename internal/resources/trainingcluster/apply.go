package trainingcluster

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// applyResult is what an apply learned on the way, for the state: the mounts it resolved.
type applyResult struct {
	mounts *clusterconfig.Mounts
}

// apply converges the cluster's VMs to the desired cluster, the same way for create and update: the
// controller is created or gets the new payload, login VMs are created, recreated (when
// recreateLogins: their machine, disk or image changed), updated or deleted to match the count,
// and then the apply waits until every VM reports ready and the controller reports the new
// configuration's hash. Each step finds what exists by name, so an interrupted apply is finished
// by the next one.
func (a *applier) apply(ctx context.Context, recreateLogins bool) (applyResult, error) {
	var res applyResult
	mounts, err := resolveMounts(ctx, a.c, a.d)
	if err != nil {
		return res, err
	}
	res.mounts = &mounts
	ctlName := a.d.controllerName()
	ctl, findErr := a.findVM(ctx, ctlName)
	cluster := a.d.cluster(mounts)
	if err := clusterconfig.ValidateCluster(cluster); err != nil {
		return res, err
	}
	if findErr == nil && a.owned(ctl) {
		if cluster.Rewrite, err = a.rewriteGeneration(ctx, ctl); err != nil {
			return res, err
		}
	}
	ctlItems, err := a.metadata(cluster, clusterconfig.RoleController)
	if err != nil {
		return res, err
	}
	loginItems, err := a.metadata(cluster, clusterconfig.RoleLogin)
	if err != nil {
		return res, err
	}
	for _, items := range []map[string]string{ctlItems, loginItems} {
		if err := clusterconfig.CheckMetadataSize(items); err != nil {
			return res, err
		}
	}

	var previous string
	switch err = findErr; {
	case tfutil.IsNotFound(err):
		_, err = a.create(ctx, a.instance(ctlName, clusterconfig.RoleController, a.d.controller, ctlItems))
	case err != nil:
		err = fmt.Errorf("reading VM %s: %w", ctlName, err)
	case !a.owned(ctl):
		err = a.notOurs(ctl)
	case a.creating && a.adoptable(ctl) != nil:
		// Another state's cluster (ownership.go): refused before the first change to anything.
		err = a.adoptable(ctl)
	default:
		previous = metadataMap(ctl.GetMetadata())[clusterconfig.ClusterKey]
		_, err = a.update(ctx, ctl, ctlItems, a.labels(clusterconfig.RoleController))
	}
	if err != nil {
		return res, err
	}

	waitLogins, err := a.applyLogins(ctx, loginItems, recreateLogins)
	if err != nil {
		return res, err
	}

	err = a.waitAll(ctx, ctlName, expectCluster(cluster, ctlItems[clusterconfig.ClusterKey]), waitLogins)
	var rejected *ConfigRejectedError
	if errors.As(err, &rejected) && previous != "" {
		// The controller runs the previous configuration; put it back in metadata so that the
		// state, the next plan and partitions all see what really runs.
		if rerr := a.restoreCluster(ctx, ctlName, ctlItems[clusterconfig.ClusterKey], previous); rerr != nil {
			err = fmt.Errorf("%w\n\nRestoring the previous cluster configuration in the controller's metadata failed too: %v", err, rerr)
		}
	}
	return res, err
}

// restoreCluster writes the previous cluster config back, unless someone else changed the value.
func (a *applier) restoreCluster(ctx context.Context, vm, rejected, previous string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultRestoreTimeout)
	defer cancel()
	_, err := tfutil.EditMetadata(rctx, a.c, a.vm(vm), nil, func(cur map[string]string) {
		if cur[clusterconfig.ClusterKey] == rejected {
			cur[clusterconfig.ClusterKey] = previous
		}
	})
	return err
}

// applyLogins converges the login VMs and returns the ones to wait for. A VM in another zone than
// login.zone is recreated there like one whose shape changed (recreate); the public IP, labels and
// metadata (OS Login, the payload) change in place.
func (a *applier) applyLogins(ctx context.Context, items map[string]string, recreate bool) ([]string, error) {
	all, err := a.allLogins(ctx)
	if err != nil {
		return nil, err
	}
	labels := a.labels(clusterconfig.RoleLogin)
	existing := map[int]*computepb.Instance{}
	var (
		want []int
		gone []*computepb.Instance
	)
	for i := range a.d.loginCount {
		want = append(want, i)
	}
	for _, inst := range all {
		i, _ := loginIndex(a.d.name, inst.GetName())
		if i >= a.d.loginCount || lastSegment(inst.GetZone()) != a.d.loginZone {
			// Beyond the count, or left in another zone: deleted (the latter before its
			// replacement is made, so a login host name never runs twice).
			gone = append(gone, inst)
			continue
		}
		existing[i] = inst
	}
	removeGone := func(keep func(*computepb.Instance) bool) error {
		var del []*computepb.Instance
		for _, inst := range gone {
			if !keep(inst) {
				del = append(del, inst)
			}
		}
		return tfutil.Parallel(del, func(inst *computepb.Instance) error {
			return a.removeIn(ctx, lastSegment(inst.GetZone()), inst.GetName())
		})
	}
	// Zone moves first: the wanted index's old VM goes before its new one is made.
	if err := removeGone(func(inst *computepb.Instance) bool {
		i, _ := loginIndex(a.d.name, inst.GetName())
		return i >= a.d.loginCount
	}); err != nil {
		return nil, err
	}
	err = tfutil.Parallel(want, func(i int) error {
		name := a.d.loginName(i)
		cur := existing[i]
		if cur != nil && recreate {
			if err := a.remove(ctx, name); err != nil {
				return err
			}
			cur = nil
		}
		if cur == nil {
			_, err := a.create(ctx, a.loginInstance(name, items))
			return err
		}
		if hasPublicIP(cur) != a.d.loginPublicIP {
			if err := a.setPublicIP(ctx, cur, a.d.loginPublicIP); err != nil {
				return err
			}
		}
		_, err := a.update(ctx, cur, items, maps.Clone(labels))
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := removeGone(func(inst *computepb.Instance) bool {
		i, _ := loginIndex(a.d.name, inst.GetName())
		return i < a.d.loginCount
	}); err != nil {
		return nil, err
	}
	var names []string
	for _, i := range want {
		names = append(names, a.d.loginName(i))
	}
	return names, nil
}

// waitAll waits for the controller and the login VMs together. The first failure ends every wait
// (a login VM waits for the controller's munge key, so it would only time out after a controller
// failure); the controller's own error comes first in the message.
func (a *applier) waitAll(ctx context.Context, ctlName string, expect expectFunc, logins []string) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	vms := append([]string{ctlName}, logins...)
	errs := make([]error, len(vms))
	_ = tfutil.Parallel(indexes(len(vms)), func(i int) error {
		var e expectFunc
		if i == 0 {
			e = expect
		}
		if err := a.waitReady(wctx, vms[i], e); err != nil {
			errs[i] = err
			cancel()
		}
		return nil
	})
	var out []error
	for _, err := range errs {
		// A wait cut short because another VM failed adds nothing.
		if err != nil && !errors.Is(err, errWaitCut) {
			out = append(out, err)
		}
	}
	return errors.Join(out...)
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// destroy deletes the login VMs and then the controller. Filestore and Lustre are never touched:
// their data outlives the cluster.
func (a *applier) destroy(ctx context.Context) error {
	all, err := a.allLogins(ctx)
	if err != nil {
		return err
	}
	if err := tfutil.Parallel(all, func(inst *computepb.Instance) error {
		return a.removeIn(ctx, lastSegment(inst.GetZone()), inst.GetName())
	}); err != nil {
		return err
	}
	ctl, err := a.findVM(ctx, a.d.controllerName())
	if tfutil.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !a.owned(ctl) {
		return nil // not this cluster's: leave it alone
	}
	return a.remove(ctx, ctl.GetName())
}
