package agent

import (
	"context"
	"fmt"
	"path"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
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
			if slurm.RegisteredState(states[n]) {
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
	all, err := slurmCLI(l).Nodes(ctx, "")
	n := slurmNodes{state: map[string]string{}, reason: map[string]string{}, err: err}
	for name, node := range all {
		n.state[name] = node.State
		if node.Reason != "" {
			n.reason[name] = node.Reason
		}
	}
	return n
}

// slurmCLI runs Slurm's commands against the controller's slurm.conf.
func slurmCLI(l cc.Layout) slurm.CLI {
	return slurm.CLI{Conf: path.Join(l.ConfDir, cc.SlurmConfFile), Run: runCommand}
}
