package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// registrationPending is how soon the controller looks again while a static
// node has not registered yet, so the provider's apply ends seconds after
// the last slurmd registers rather than at the next regular pass.
const registrationPending = 2 * time.Second

// registrations reports, per partition, registered-<partition>: the static
// nodes slurmctld sees registered. Partitions that are gone lose their
// report. It returns whether some static node is still missing.
func (c *controller) registrations(ctx context.Context, cluster cc.Cluster, parts []cc.Partition) (pending bool, err error) {
	want := map[string][]string{}
	for _, p := range parts {
		if p.StaticNodes <= 0 {
			continue
		}
		nodes, err := cc.ExpandHostlist(p.StaticNodeNames(cluster.Name))
		if err != nil {
			return false, fmt.Errorf("partition %s: %w", p.Name, err)
		}
		want[p.Name] = nodes
	}
	var states map[string]string
	if len(want) > 0 {
		if states, err = allNodeStates(ctx, cluster.Layout); err != nil {
			return false, fmt.Errorf("reading which static nodes registered: %w", err)
		}
	}
	reported := map[string]bool{}
	for _, p := range parts {
		nodes, ok := want[p.Name]
		if !ok {
			continue
		}
		var up []string
		for _, n := range nodes {
			if registeredState(states[n]) {
				up = append(up, n)
			}
		}
		if len(up) < len(nodes) {
			pending = true
		}
		reported[p.Name] = true
		if len(up) == 0 {
			c.rep.clear(ctx, cc.RegisteredAttr(p.Name))
		} else {
			c.rep.set(ctx, cc.RegisteredAttr(p.Name), cc.CompressHostlist(up))
		}
	}
	// A partition removed (or left without static nodes) must not leave a
	// report that a later partition of the same name would take for its own.
	for name := range c.registeredReported {
		if !reported[name] {
			c.rep.clear(ctx, cc.RegisteredAttr(name))
		}
	}
	c.registeredReported = reported
	return pending, nil
}

// allNodeStates maps every node slurmctld knows to sinfo's long state, in
// one call however many nodes the cluster has.
func allNodeStates(ctx context.Context, l cc.Layout) (map[string]string, error) {
	out, err := runCommand(ctx, slurmEnv(l), "sinfo", "-h", "-N", "-o", "%N %T")
	if err != nil {
		return nil, err
	}
	states := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			states[f[0]] = f[1]
		}
	}
	return states, nil
}

// registeredState reports whether a node in sinfo's long state has a
// slurmd that registered and answers: not powered down or powering up
// ("~", "#", "%", "!"), not unresponsive ("*"), and not in a state
// slurmctld gives nodes it has never heard from ("unknown", "future").
// Other suffixes ("$" reservation, "@" reboot pending, "+" more states)
// say nothing about registration.
func registeredState(state string) bool {
	if state == "" || strings.ContainsAny(state, "~#%!*") {
		return false
	}
	base := strings.TrimRight(state, "$@^-+")
	return base != "unknown" && base != "future"
}
