package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// drainPending is how soon the controller looks again while a scale-down
// waits for jobs to leave nodes, so the provider deletes them promptly.
const drainPending = 5 * time.Second

// drains serves every partition's Drain (clusterconfig.Drain): the nodes a
// scale-down removes are drained in Slurm, and the partition's
// drained-<partition> guest attribute lists those that are drained and run
// no job any more. It reports whether some node still runs a job.
func (c *controller) drains(ctx context.Context, l cc.Layout, parts []cc.Partition) (pending bool, err error) {
	for _, p := range parts {
		if p.Drain == nil || strings.TrimSpace(p.Drain.Nodes) == "" {
			continue
		}
		nodes, err := cc.ExpandHostlist(p.Drain.Nodes)
		if err != nil {
			return false, fmt.Errorf("partition %s: drain: %w", p.Name, err)
		}
		states, err := nodeStates(ctx, l, p.Drain.Nodes)
		if err != nil {
			return false, fmt.Errorf("partition %s: reading the state of %s: %w", p.Name, p.Drain.Nodes, err)
		}
		var toDrain, drained []string
		for _, n := range nodes {
			st, known := states[n]
			switch {
			case !known:
				// Not in slurm.conf any more: nothing can run there.
				drained = append(drained, n)
			case strings.HasPrefix(st, "drained"):
				drained = append(drained, n)
			case strings.HasPrefix(st, "draining"):
			default:
				toDrain = append(toDrain, n)
			}
		}
		if len(toDrain) > 0 {
			list := cc.CompressHostlist(toDrain)
			if _, err := runCommand(ctx, slurmEnv(l), "scontrol", "update", "nodename="+list, "state=DRAIN", "reason="+cc.DrainReason); err != nil {
				return false, fmt.Errorf("partition %s: draining %s for a scale-down: %w", p.Name, list, err)
			}
			c.log.Info("draining nodes for a scale-down", "partition", p.Name, "nodes", list, "drain", p.Drain.ID)
			// Idle nodes are drained at once; report them in this pass.
			if states, err = nodeStates(ctx, l, list); err == nil {
				for _, n := range toDrain {
					if strings.HasPrefix(states[n], "drained") {
						drained = append(drained, n)
					}
				}
			}
		}
		if len(drained) < len(nodes) {
			pending = true
		}
		c.rep.set(ctx, cc.DrainedAttr(p.Name), cc.FormatDrained(p.Drain.ID, drained))
	}
	return pending, nil
}

// nodeStates maps each node of a hostlist to sinfo's long state
// ("idle", "drained~", "draining", ...).
func nodeStates(ctx context.Context, l cc.Layout, hostlist string) (map[string]string, error) {
	out, err := runCommand(ctx, slurmEnv(l), "sinfo", "-h", "-N", "-n", hostlist, "-o", "%N %T")
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
