package trainingcluster

import (
	"context"
	"errors"
	"fmt"

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
// recreateLogins[pool]: their group's machine, disk or image changed), updated or deleted to match
// the counts,
// and then the apply waits until every VM reports ready and the controller reports the new
// configuration's hash. Each step finds what exists by name, so an interrupted apply is finished
// by the next one.
func (a *applier) apply(ctx context.Context, recreateLogins map[string]bool) (applyResult, error) {
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
	if err := clusterconfig.CheckMetadataSize(ctlItems); err != nil {
		return res, err
	}
	loginItems := map[string]map[string]string{}
	for _, g := range a.d.groups() {
		if loginItems[g.pool], err = a.groupMetadata(cluster, g); err != nil {
			return res, err
		}
		if err := clusterconfig.CheckMetadataSize(loginItems[g.pool]); err != nil {
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
	if err == nil {
		// The dashboard and alert policies follow the cluster the controller runs (cloudmon.go).
		err = a.applyCloud(ctx, cloudMonitoringOn(previous))
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

// applyLogins converges the login VMs of every group and returns the ones to wait for. A VM in
// another zone than its group's is recreated there, like one whose group's shape changed
// (recreate[pool]); the public IP, labels and metadata (OS Login, the payload) change in place. A
// group no longer configured, or VMs beyond its count, are deleted.
func (a *applier) applyLogins(ctx context.Context, items map[string]map[string]string, recreate map[string]bool) ([]string, error) {
	all, err := a.allLogins(ctx)
	if err != nil {
		return nil, err
	}
	groups := a.d.groups()
	existing := map[loginKey]*computepb.Instance{}
	var (
		want     []loginKey
		moved    []*computepb.Instance // wanted, but in another zone: deleted before re-creation
		unwanted []*computepb.Instance // beyond the count or of a group that is gone
	)
	for _, g := range groups {
		for i := range g.count {
			want = append(want, loginKey{g.pool, i})
		}
	}
	for _, inst := range all {
		pool, i, _ := clusterconfig.ParseLoginName(a.d.name, inst.GetName())
		g, ok := a.d.group(pool)
		switch {
		case !ok || i >= g.count:
			unwanted = append(unwanted, inst)
		case lastSegment(inst.GetZone()) != g.zone:
			moved = append(moved, inst)
		default:
			existing[loginKey{pool, i}] = inst
		}
	}
	removeAll := func(vms []*computepb.Instance) error {
		return tfutil.Parallel(vms, func(inst *computepb.Instance) error {
			return a.removeIn(ctx, lastSegment(inst.GetZone()), inst.GetName())
		})
	}
	if err := removeAll(moved); err != nil {
		return nil, err
	}
	err = tfutil.Parallel(want, func(k loginKey) error {
		g, _ := a.d.group(k.pool)
		name := a.d.vmName(k.pool, k.i)
		cur := existing[k]
		if cur != nil && recreate[k.pool] {
			if err := a.remove(ctx, name); err != nil {
				return err
			}
			cur = nil
		}
		if cur == nil {
			_, err := a.create(ctx, a.loginInstance(g, name, items[k.pool]))
			return err
		}
		if hasPublicIP(cur) != g.publicIP {
			if err := a.setPublicIP(ctx, cur, g.publicIP); err != nil {
				return err
			}
		}
		_, err := a.update(ctx, cur, items[k.pool], a.groupLabels(g))
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := removeAll(unwanted); err != nil {
		return nil, err
	}
	var names []string
	for _, k := range want {
		names = append(names, a.d.vmName(k.pool, k.i))
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
	if err := a.destroyCloud(ctx, controllerID(ctl.GetId())); err != nil {
		return err
	}
	return a.remove(ctx, ctl.GetName())
}
