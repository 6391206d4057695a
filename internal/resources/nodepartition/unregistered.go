package nodepartition

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
	r, err := tfutil.ReadReport(ctx, a.cl, tfutil.ControllerVM(d.cluster))
	if err != nil {
		return err
	}
	registered := r.Registered(d.name)
	old = slices.DeleteFunc(old, func(v vm) bool { return slices.Contains(registered, v.name) })
	if len(old) == 0 {
		return nil
	}
	slices.SortFunc(old, func(x, y vm) int { return x.index - y.index })
	var lines []string
	for _, v := range old[:min(len(old), nodesInspected)] {
		lines = append(lines, a.describeUnregistered(ctx, v))
	}
	if more := len(old) - nodesInspected; more > 0 {
		lines = append(lines, fmt.Sprintf("and %d more", more))
	}
	names := make([]string, len(old))
	for i, v := range old {
		names[i] = v.name
	}
	a.notices.add(fmt.Sprintf("Partition %s: static node %s not registered in Slurm", d.name, cc.CompressHostlist(names)),
		fmt.Sprintf("This apply did not create or replace %s, so it did not wait for it; Slurm does not list it as registered:\n%s\nCheck its serial console; a health policy or a replacement (taint, or lower and raise static_node_count) repairs it.",
			cc.CompressHostlist(names), strings.Join(lines, "\n")))
	return nil
}

// describeUnregistered says what is known of a node that is not registered: its VM's status and
// its agent's last report.
func (a *applier) describeUnregistered(ctx context.Context, v vm) string {
	s := fmt.Sprintf("- %s: VM %s", v.name, strings.ToLower(firstNonEmpty(v.status, "status unknown")))
	r, err := tfutil.ReadReport(ctx, a.cl, tfutil.VM{Project: a.d.project, Zone: a.d.zone, Name: v.name})
	switch {
	case err != nil:
		return s + "; its report could not be read: " + err.Error()
	case !r.Any():
		return s + "; its agent reported nothing"
	}
	s += ", last phase " + firstNonEmpty(r.Phase, "none reported")
	if r.Error != "" {
		s += ", last error: " + r.Error
	}
	return s
}
