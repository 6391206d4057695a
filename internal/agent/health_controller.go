package agent

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// withHealth takes the resolved health policies for the passes and repairs, and writes the
// HealthCheckProgram wrapper slurm.conf's hook runs, which the validator insists exists.
func (c *controller) withHealth(a cc.Applied, policies []cc.HealthPolicy) error {
	c.policies, c.plan = policies, a.Health
	if a.Cluster.Health == nil {
		return nil
	}
	return writeHealthProgram(a.Cluster.Layout)
}

func writeHealthProgram(l cc.Layout) error {
	if err := ensureDir(l.ProgramDir, 0o755, rootAccount); err != nil {
		return err
	}
	_, err := writeFile(path.Join(l.ProgramDir, cc.HealthCheckProgramName), cc.HealthProgram(l, cc.SchedulePeriodic), 0o755, rootAccount)
	return err
}

// health is the compute node's part: the HealthCheckProgram wrapper and the agent it execs, then
// the boot checks once per boot.
func (cp *compute) health(ctx context.Context, n cc.Node, l cc.Layout, name string) {
	if err := writeHealthProgram(l); err != nil {
		cp.log.Warn("installing the health check program", "error", err.Error())
	}
	if err := installAgentBinary(cp.exe, l.AgentBinary); err != nil {
		cp.log.Warn("installing the agent for health checks", "error", err.Error())
	}
	cp.bootHealth(ctx, n, name)
}

// repairPending is how often the controller looks while a health repair runs or waits.
const repairPending = 2 * time.Second

// healthWatch is how often the controller looks for nodes a check drained while a policy applies:
// a node drains itself, which changes no metadata.
const healthWatch = 3 * time.Second

// healthPass records failures, starts repairs within the limits and finishes those whose node is
// back. It reports whether a repair runs or waits.
func (c *controller) healthPass(ctx context.Context, cluster cc.Cluster, parts []cc.Partition, nodes slurmNodes) (bool, error) {
	if len(c.policies) == 0 || nodes.err != nil {
		if nodes.err == nil {
			c.releaseSpares(ctx, cluster, parts, nodes)
		}
		c.reportPolicies(ctx)
		return false, nodes.err
	}
	l := cluster.Layout
	st := c.loadHealth()
	now := time.Now()
	byPart := map[string]cc.Partition{}
	total := map[string]int{}
	nodePart := map[string]string{}
	for _, p := range parts {
		byPart[p.Name] = p
		names, _ := cc.ExpandHostlist(p.StaticNodeNames(cluster.Name))
		for _, n := range names {
			nodePart[n] = p.Name
			total[p.Name]++
		}
	}
	policy := map[string]cc.HealthPolicy{}
	for _, pol := range c.policies {
		policy[pol.Name] = pol.WithDefaults()
	}
	inRepair := map[string]bool{}
	for _, r := range st.InProgress {
		inRepair[r.Node] = true
	}
	// Node records.
	for n, pname := range nodePart {
		rec := st.Nodes[n]
		if rec == nil {
			rec = &nodeRecord{NodeHealth: cc.NodeHealth{Node: n, Partition: pname}}
			st.Nodes[n] = rec
		}
		rec.State, rec.Reason = nodes.state[n], nodes.reason[n]
		if rec.InService.IsZero() && rec.State != "" && !strings.ContainsAny(rec.State, "~#%!*") && !strings.HasPrefix(rec.State, "drain") {
			rec.InService = now
		}
	}
	// Finish repairs whose node is back.
	var still []HealthRepair
	resumed := map[string]bool{}
	for _, r := range st.InProgress {
		done, ok, detail := c.repairDone(ctx, cluster, r, nodes)
		if !done {
			pol := policy[c.plan.Partitions[nodePart[r.Node]].Policy]
			if now.Sub(r.Started) > time.Duration(pol.Limits.RepairTimeoutSeconds)*time.Second {
				done, ok, detail = true, false, "the node was not back in service within the repair timeout"
			} else {
				still = append(still, r)
				continue
			}
		}
		r.Finished, r.Detail = now, detail
		if ok {
			if err := slurmCLI(l).UpdateNodes(ctx, r.Node, slurm.NodeUpdate{State: "RESUME"}); err != nil {
				c.log.Warn("returning a repaired node to service", "node", r.Node, "error", err.Error())
				still = append(still, r)
				continue
			}
			r.Result = "ok"
			c.metrics().Repair(nodePart[r.Node], r.Action, "ok", false)
			resumed[r.Node] = true
			if rec := st.Nodes[r.Node]; rec != nil {
				rec.InService = now
			}
			st.Events = append(st.Events, HealthEvent{Time: now, Node: r.Node, Kind: "repaired", Action: r.Action, Detail: detail})
			c.log.Info("health repair done; node back in service", "node", r.Node, "action", r.Action)
		} else {
			r.Result = "failed"
			c.metrics().Repair(nodePart[r.Node], r.Action, "failed", false)
			st.Events = append(st.Events, HealthEvent{Time: now, Node: r.Node, Kind: "repair-failed", Action: r.Action, Detail: detail})
			c.log.Warn("health repair failed", "node", r.Node, "action", r.Action, "detail", detail)
		}
		st.Done = append(st.Done, r)
	}
	st.InProgress = still
	inRepair = map[string]bool{}
	underRepair := map[string]int{}
	for _, r := range st.InProgress {
		inRepair[r.Node] = true
		underRepair[nodePart[r.Node]]++
	}
	// Stragglers among the running recipe jobs' nodes drain here, then take their repair below.
	c.drainStragglers(ctx, l, nodePart, nodes)
	// New failures, oldest node name first so repairs go in a stable order.
	var failed []string
	for n := range nodePart {
		if check, ok := cc.ParseHealthDrainReason(nodes.reason[n]); ok && !inRepair[n] && !resumed[n] && strings.HasPrefix(nodes.state[n], "drain") {
			_ = check
			failed = append(failed, n)
		}
	}
	sort.Strings(failed)
	for _, n := range failed {
		reason := nodes.reason[n]
		check, _ := cc.ParseHealthDrainReason(reason)
		rec := st.Nodes[n]
		if rec.LastFailure != reason {
			rec.LastFailure, rec.LastFailedAt, rec.InService = reason, now, time.Time{}
			st.Events = append(st.Events, HealthEvent{Time: now, Node: n, Kind: "detected", Check: check, Detail: reason})
			c.metrics().HealthDrain(nodePart[n], check)
			c.log.Warn("health check failed", "node", n, "reason", reason)
		}
		ph, ok := c.plan.Partitions[nodePart[n]]
		if !ok {
			continue
		}
		pol := policy[ph.Policy]
		action := nextAction(pol, ph, check, n, st.Done, now)
		if action == cc.ActionDrain {
			continue
		}
		// Limits: never a repair storm.
		if len(st.InProgress) >= pol.Limits.MaxConcurrentRepairs {
			continue
		}
		allowed := max(1, total[nodePart[n]]*pol.Limits.MaxUnavailablePercent/100)
		if underRepair[nodePart[n]] >= allowed {
			continue
		}
		if !st.LastStart.IsZero() && now.Sub(st.LastStart) < time.Duration(pol.Limits.CooldownSeconds)*time.Second {
			continue
		}
		// The node's jobs leave it first: a VM reset under a job still completing leaves the job
		// COMPLETING on a node that no longer runs it.
		if jobs := c.jobsOn(ctx, l, n); len(jobs) > 0 && (rec.RequeuedAt.IsZero() || now.Sub(rec.RequeuedAt) < jobsLeaveWait) {
			if pol.RequeueJobs && rec.RequeuedAt.IsZero() {
				rec.Requeued = c.requeueJobs(ctx, l, n, jobs, st, now)
				rec.RequeuedAt = now
			}
			if pol.RequeueJobs {
				continue
			}
		}
		if !rec.RequeuedAt.IsZero() {
			c.releaseRequeued(ctx, l, rec.Requeued)
		}
		rec.RequeuedAt, rec.Requeued = time.Time{}, nil
		r, err := c.startRepair(ctx, cluster, parts, byPart[nodePart[n]], n, action, check)
		r.Check, r.Reason, r.Started = check, reason, now
		escalated := action != checkAction(ph, check)
		c.metrics().Repair(nodePart[n], action, "started", escalated)
		if err != nil {
			r.Finished, r.Result = now, "failed"
			c.metrics().Repair(nodePart[n], action, "failed", false)
			st.Done = append(st.Done, r)
			st.Events = append(st.Events, HealthEvent{Time: now, Node: n, Kind: "repair-failed", Action: action, Detail: err.Error()})
			c.log.Warn("starting a health repair failed", "node", n, "action", action, "error", err.Error())
			continue
		}
		st.InProgress = append(st.InProgress, r)
		underRepair[nodePart[n]]++
		st.LastStart = now
		rec.Repairs++
		st.Events = append(st.Events, HealthEvent{Time: now, Node: n, Kind: "repair-started", Check: check, Action: action})
		c.log.Info("health repair started", "node", n, "action", action, "reason", reason)
	}
	c.keepSpares(ctx, l, nodePart, nodes, st, now)
	for n, rec := range st.Nodes {
		rec.Spare = slices.Contains(st.Spares[rec.Partition], n)
	}
	if err := c.saveHealth(st); err != nil {
		return true, err
	}
	c.reportHealth(ctx, st)
	return len(st.InProgress) > 0 || len(failed) > 0, nil
}
