package nodepartition

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// warnUnregistered looks once at the static nodes this apply did not create or replace and warns
// about each that Slurm does not list as registered, naming it with what is known of why: its VM's
// status and its agent's last phase and error. An apply waits only for the nodes it made
// (registrationWaitFor); a node that died before it is the operator's to repair (the health
// policy, or a replacement), not a reason to hold up an unrelated change until its timeout.
func (a *applier) warnUnregistered(ctx context.Context, inv inventory, made []string) error {
	d := a.d
	var old []vm
	for i, v := range inv {
		if i < d.static && !slices.Contains(made, v.name) {
			old = append(old, v)
		}
	}
	if len(old) == 0 {
		return nil
	}
	slices.SortFunc(old, func(x, y vm) int { return x.index - y.index })
	// A node that answers may show as not registered for a few seconds after slurmctld restarted
	// for a new node set ("idle*"): such nodes get unregisteredGrace to come back. A node whose VM
	// is not running or whose agent reports a failure is warned about at once.
	deadline := time.Now().Add(unregisteredGrace)
	for {
		r, err := tfutil.ReadReport(ctx, a.cl, tfutil.ControllerVM(d.cluster))
		if err != nil {
			return err
		}
		registered := r.Registered(d.name)
		old = slices.DeleteFunc(old, func(v vm) bool { return slices.Contains(registered, v.name) })
		if len(old) == 0 {
			return nil
		}
		lines, dead := a.describeUnregistered(ctx, old)
		if dead || !time.Now().Before(deadline) {
			a.warnNotRegistered(old, lines)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(a.poll, time.Until(deadline))):
		}
	}
}

// unregisteredGrace is how long an apply gives an untouched static node that seems alive to show
// as registered again before it warns. A variable so tests can shorten it.
var unregisteredGrace = 30 * time.Second

func (a *applier) warnNotRegistered(old []vm, lines []string) {
	if more := len(old) - nodesInspected; more > 0 {
		lines = append(lines, fmt.Sprintf("and %d more", more))
	}
	names := make([]string, len(old))
	for i, v := range old {
		names[i] = v.name
	}
	a.notices.add(fmt.Sprintf("Partition %s: static node %s not registered in Slurm", a.d.name, cc.CompressHostlist(names)),
		fmt.Sprintf("This apply did not create or replace %s, so it did not wait for it; Slurm does not list it as registered:\n%s\nCheck its serial console; a health policy or a replacement (taint, or lower and raise static_node_count) repairs it.",
			cc.CompressHostlist(names), strings.Join(lines, "\n")))
}

// describeUnregistered says what is known of the first nodes that are not registered: each VM's
// status and its agent's last report. dead is true when one of them certainly failed: its VM is
// not running or its agent reports an error.
func (a *applier) describeUnregistered(ctx context.Context, nodes []vm) (lines []string, dead bool) {
	for _, v := range nodes[:min(len(nodes), nodesInspected)] {
		s := fmt.Sprintf("- %s: VM %s", v.name, strings.ToLower(firstNonEmpty(v.status, "status unknown")))
		dead = dead || v.status != "RUNNING"
		r, err := tfutil.ReadReport(ctx, a.cl, tfutil.VM{Project: a.d.project, Zone: a.d.zone, Name: v.name})
		switch {
		case err != nil:
			s += "; its report could not be read: " + err.Error()
		case !r.Any():
			s += "; its agent reported nothing"
		default:
			s += ", last phase " + firstNonEmpty(r.Phase, "none reported")
			if r.Error != "" {
				s += ", last error: " + r.Error
			}
			dead = dead || r.Failed()
		}
		lines = append(lines, s)
	}
	return lines, dead
}
