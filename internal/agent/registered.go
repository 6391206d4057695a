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
func (c *controller) registrations(ctx context.Context, cluster cc.Cluster, parts []cc.Partition, nodes slurmNodes) (pending bool, err error) {
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
	if len(want) > 0 && nodes.err != nil {
		return false, fmt.Errorf("reading which static nodes registered: %w", nodes.err)
	}
	states := nodes.state
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

// slurmNodes is one pass's view of every node slurmctld knows: sinfo's long state and the reason a
// node is drained or down. Registration reports, scale-down drains and the return of abandoned
// drains all read it, so a pass asks slurmctld once however many partitions and nodes there are.
type slurmNodes struct {
	state, reason map[string]string
	err           error
}

func readSlurmNodes(ctx context.Context, l cc.Layout) slurmNodes {
	out, err := runCommand(ctx, slurmEnv(l), "sinfo", "-h", "-N", "-o", "%N|%T|%E")
	n := slurmNodes{state: map[string]string{}, reason: map[string]string{}, err: err}
	if err != nil {
		return n
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "|", 3)
		if len(f) != 3 || f[0] == "" {
			continue
		}
		n.state[f[0]] = f[1]
		if r := strings.TrimSpace(f[2]); r != "" && r != "none" {
			n.reason[f[0]] = r
		}
	}
	return n
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
