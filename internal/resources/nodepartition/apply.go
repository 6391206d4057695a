package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/bulk"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// applier reconciles the cloud towards one desired partition.
type applier struct {
	cl *gcp.Clients
	d  *desired
	// poll bounds the interval between looks at the controller's reports.
	poll time.Duration
	// notices are warnings the apply ends with (see notice).
	notices notices
	// create is the partition's key while a create runs (ownership.go); nil for an update.
	create *tfutil.OwnedKey
}

// changeSet is what one reconcile found and decided, before it changes anything.
type changeSet struct {
	ci       *clusterInfo
	props    *computepb.InstanceProperties
	template string // template name
	part     cc.Partition
	inv      inventory
	missing  []string // static node names without a VM
	remove   []vm     // VMs the partition no longer has room for
}

// prepare reads the cluster and the partition's VMs and settles everything the apply will do,
// checking all of it before anything is created: the cluster accepts the partition, the network
// has the GPU network set, the reservation and the quota cover the new static nodes.
func (a *applier) prepare(ctx context.Context) (*changeSet, error) {
	d := a.d
	ci, err := readCluster(ctx, a.cl, d.cluster)
	if err != nil {
		return nil, err
	}
	if ci.subnetwork != "" {
		if r := regionOfLink(ci.subnetwork); r != "" && r != d.region {
			return nil, fmt.Errorf("zone: the partition's zone %s is in region %s, but the cluster's subnet %s is in %s; pick a zone of %s",
				d.zone, d.region, lastSegment(ci.subnetwork), r, r)
		}
	}
	if err := storageError(ci.cfg.Mounts, d.storage); err != nil {
		return nil, err
	}
	nics, err := networkInterfaces(ctx, a.cl, d.machine, d.zone, d.region, ci.network, ci.subnetwork)
	if err != nil {
		return nil, err
	}
	policy := ""
	if d.compact {
		policy = fmt.Sprintf("%sprojects/%s/regions/%s/resourcePolicies/%s", computeV1, d.project, d.region, placementPolicyName(d.prefix))
	}
	props, err := instanceProperties(d, ci, nics, policy)
	if err != nil {
		return nil, err
	}
	tmpl, err := templateFor(d, props)
	if err != nil {
		return nil, err
	}
	if d.model == modelCalendar {
		fr, err := readFutureReservation(ctx, a.cl, d.project, d.zone, d.futureRes, d.machine.Name, d.static+d.dynamic)
		if err != nil {
			return nil, err
		}
		d.calendar = calendarOf(d.project, d.zone, fr)
	}
	p := &changeSet{ci: ci, props: props, template: tmpl, part: d.partition(templatePath(d.project, tmpl))}
	if err := cc.Validate(ci.cfg, ci.partitionsWith(d.name, &p.part)); err != nil {
		return nil, fmt.Errorf("the cluster would not accept this partition: %w", err)
	}
	if p.inv, err = listNodes(ctx, a.cl, d.project, d.zone, d.prefix); err != nil {
		return nil, err
	}
	if a.create != nil {
		if err := a.checkClaim(ctx, ci, p.inv); err != nil {
			return nil, err
		}
	}
	if d.providerCreatesNodes() {
		p.missing = p.inv.missing(d.prefix, d.static)
	}
	p.remove = a.toRemove(ci, p.inv)
	if err := preflight(ctx, a.cl, d, len(p.missing)); err != nil {
		return nil, err
	}
	return p, nil
}

// toRemove lists the VMs a scale-down takes away: static nodes at or above the static count and
// dynamic nodes at or above the dynamic count. Static and dynamic nodes have ranges of their own,
// so a change of one count never touches the other's nodes. A node of an earlier drain that is
// back inside its count stays (the agent returns it to service).
func (a *applier) toRemove(_ *clusterInfo, inv inventory) []vm {
	var out []vm
	for _, i := range slices.Sorted(maps.Keys(inv)) {
		if v := inv[i]; !v.within(a.d.static, a.d.dynamic) {
			out = append(out, v)
		}
	}
	return out
}

// reconcile converges the partition: the template, the placement policy, the missing static
// nodes and the partition's configuration on the controller, concurrently, so a create costs about
// one operation's latency however many nodes it has; then a scale-down's drain and deletes. It
// returns warnings for the state to carry on (partial success).
func (a *applier) reconcile(ctx context.Context) ([]string, error) {
	d := a.d
	p, err := a.prepare(ctx)
	if err != nil {
		return nil, err
	}
	wait := appliedWait{cl: a.cl, ref: d.cluster, what: "partition " + d.name, poll: a.poll}
	first := p.part
	var drain *cc.Drain
	if len(p.remove) > 0 && !d.forceScaleDown {
		// The removed nodes stay in slurm.conf while they drain (cc.Partition.SlurmStaticNames,
		// SlurmDynamicNames), so their jobs keep running.
		names := make([]string, len(p.remove))
		for i, v := range p.remove {
			names[i] = v.name
		}
		drain = &cc.Drain{ID: gcp.NewRequestID()[:8], Nodes: cc.CompressHostlist(names)}
		first.Drain = drain
	}

	ctl := p.ci.controller
	if a.create != nil {
		// The claim comes before every other change, so what the create makes is always marked
		// as an unfinished create's (ownership.go).
		b, err := cc.EncodePartition(d.cluster.Name, first)
		if err == nil {
			ctl, err = a.create.Claim(ctx, a.cl, ctl, string(b))
		}
		if err != nil {
			return nil, err
		}
	}
	var (
		g        tfutil.Group
		mu       sync.Mutex // guards created and warnings
		created  []string
		warnings []string
	)
	run := g.Go
	run(func() error { return ensureTemplate(ctx, a.cl, d.project, p.template, p.props) })
	run(func() error {
		if d.compact {
			if _, err := ensurePlacementPolicy(ctx, a.cl, d); err != nil {
				return err
			}
		}
		made, err := createNodes(ctx, a.cl, d, p.props, p.missing)
		mu.Lock()
		created = made
		mu.Unlock()
		var pe *provisionError
		if errors.As(err, &pe) && pe.partial {
			mu.Lock()
			warnings = append(warnings, pe.Error())
			mu.Unlock()
			return nil
		}
		return err
	})
	run(func() error { return a.writeConfig(ctx, ctl, first, wait) })
	if err := g.Wait(); err != nil {
		return warnings, a.explain(ctx, err)
	}
	if d.waitForNodes && len(created) > 0 {
		// The configuration is applied; the apply ends when the static nodes it made can take jobs.
		if err := a.registrationWaitFor(p.inv, created).untilRegistered(ctx); err != nil {
			return warnings, err
		}
	}
	if d.static > 0 && d.providerCreatesNodes() {
		if err := a.warnUnregistered(ctx, p.inv, created); err != nil {
			return warnings, err
		}
	}

	if len(p.remove) > 0 {
		del := func(names []string) error { return deleteNodes(ctx, a.cl, d.project, d.zone, names) }
		if drain != nil {
			// Each node goes once it is drained and idle; a running job keeps its node for at
			// most drain_timeout.
			requeue := func(rq cc.Drain) error {
				ctl, err := getController(ctx, a.cl, d.cluster)
				if err != nil {
					return err
				}
				part := first
				part.Drain = &rq
				return a.writeConfig(ctx, ctl, part, wait)
			}
			if err := a.drainAndDelete(ctx, wait, *drain, del, requeue); err != nil {
				return warnings, err
			}
		} else {
			names := make([]string, len(p.remove))
			for i, v := range p.remove {
				names[i] = v.name
			}
			if err := del(names); err != nil {
				return warnings, err
			}
		}
		if drain != nil {
			ctl, err := getController(ctx, a.cl, d.cluster)
			if err != nil {
				return warnings, err
			}
			if err := a.writeConfig(ctx, ctl, p.part, wait); err != nil {
				return warnings, err
			}
		}
	}
	// Static nodes created from an earlier node configuration are replaced, batch by batch. A
	// calendar partition's nodes are the controller's: they take the new template when it next
	// creates them.
	if d.providerCreatesNodes() {
		if err := a.roll(ctx, p, wait); err != nil {
			return warnings, err
		}
	}
	if err := a.relabel(ctx, p.inv); err != nil {
		return warnings, err
	}
	return warnings, a.pruneTemplates(ctx, p.template)
}

// writeConfig writes the partition's key on the controller and waits until the controller's agent
// has applied the configuration it is part of.
func (a *applier) writeConfig(ctx context.Context, ctl *computepb.Instance, part cc.Partition, wait appliedWait) error {
	v, err := a.configValue(part)
	if err != nil {
		return err
	}
	if _, err := setPartitionKey(ctx, a.cl, a.d.cluster, ctl, cc.PartitionKey(a.d.name), &v); err != nil {
		return err
	}
	return wait.untilApplied(ctx)
}

// explain adds to a failed apply how many of the partition's VMs exist now, so a stockout says
// exactly what is left (nothing, unless partial success was allowed).
func (a *applier) explain(ctx context.Context, err error) error {
	var pe *provisionError
	if !errors.As(err, &pe) {
		return err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	inv, lerr := listNodes(rctx, a.cl, a.d.project, a.d.zone, a.d.prefix)
	if lerr != nil {
		return err
	}
	exist := "none"
	if len(inv) > 0 {
		exist = fmt.Sprintf("%d (%s)", len(inv), cc.CompressHostlist(inv.names()))
	}
	advice := ""
	if pe.stockout() {
		advice = " Try again later, use another zone or a reservation (provisioning.model = \"reservation\"), flex_start (which waits for capacity), or allow_partial = true to keep what the zone can supply."
	}
	return fmt.Errorf("%w. VMs of partition %s that exist in %s: %s.%s", err, a.d.name, a.d.zone, exist, advice)
}

// relabel brings the labels of existing VMs to the partition's (new VMs get them from the
// template); each VM is one setLabels call, so only a label change costs calls.
func (a *applier) relabel(ctx context.Context, inv inventory) error {
	want := a.d.vmLabels()
	var stale []vm
	for _, v := range inv {
		if !maps.Equal(v.labels, want) && v.within(a.d.static, a.d.dynamic) {
			stale = append(stale, v)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	byName := make(map[string]vm, len(stale))
	names := make([]string, len(stale))
	for i, v := range stale {
		byName[v.name], names[i] = v, v.name
	}
	_, errs := bulk.ForEach(ctx, names, bulk.Parallelism, func(ctx context.Context, n string) error {
		v := byName[n]
		op, err := a.cl.Instances.SetLabels(ctx, &computepb.SetLabelsInstanceRequest{
			Project: a.d.project, Zone: a.d.zone, Instance: v.name, RequestId: gcp.NewRequestIDPtr(),
			InstancesSetLabelsRequestResource: &computepb.InstancesSetLabelsRequest{LabelFingerprint: proto.String(v.labelFingerprint), Labels: want},
		})
		if err == nil {
			_, err = a.cl.WaitCompute(ctx, op)
		}
		if err = gcp.IgnoreNotFound(err); err != nil {
			return fmt.Errorf("relabelling VM %s: %w", v.name, err)
		}
		return nil
	})
	return errors.Join(errs...)
}
