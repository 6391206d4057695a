package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// healthPolicies decodes every health policy on the controller's metadata, sorted by name.
func healthPolicies(attrs map[string]string) ([]cc.HealthPolicy, error) {
	var keys []string
	for k := range attrs {
		if strings.HasPrefix(k, cc.HealthPolicyKeyPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []cc.HealthPolicy
	for _, k := range keys {
		p, err := cc.DecodeHealthPolicy([]byte(attrs[k]))
		if err != nil {
			return nil, fmt.Errorf("metadata key %s: %w", k, err)
		}
		if want := cc.HealthPolicyKey(p.Name); want != k {
			return nil, fmt.Errorf("metadata key %s holds health policy %q, which belongs under %s", k, p.Name, want)
		}
		out = append(out, p)
	}
	return out, nil
}

// withHealth resolves the health policies into the cluster's slurm.conf hook and the files the
// nodes need (the plan, the prolog/epilog scripts), and writes the HealthCheckProgram wrapper,
// which the validator insists exists.
func (c *controller) withHealth(cluster cc.Cluster, parts []cc.Partition, policies []cc.HealthPolicy, files map[string][]byte) (cc.Cluster, map[string][]byte, error) {
	c.policies = policies
	if len(policies) == 0 {
		return cluster, files, nil
	}
	l := cluster.Layout
	plan := cc.ResolveHealth(policies, parts)
	c.plan = plan
	cluster.Health = plan.HealthHook(l)
	if cluster.Health == nil {
		return cluster, files, nil
	}
	if err := writeHealthProgram(l); err != nil {
		return cluster, nil, err
	}
	files, err := cc.RenderFiles(cluster, parts)
	if err != nil {
		return cluster, nil, err
	}
	for p, b := range plan.HealthScripts(l) {
		files[p] = b
	}
	b, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return cluster, nil, err
	}
	files[path.Join(l.ConfDir, cc.SharedHealthPlan)] = append(b, '\n')
	return cluster, files, nil
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

// Health records: kept in the controller's state dir and reported (clusterconfig.ClusterHealth).
type (
	HealthEvent  = cc.HealthEvent
	HealthRepair = cc.HealthRepair
)

// nodeRecord is a node's record and what only the controller needs of it.
type nodeRecord struct {
	cc.NodeHealth
	// RequeuedAt: the node's jobs were requeued and the repair waits for them to leave.
	RequeuedAt time.Time `json:"requeued_at,omitzero"`
	Requeued   []string  `json:"requeued,omitempty"`
}

// healthState is what the controller remembers between passes and restarts.
type healthState struct {
	Nodes      map[string]*nodeRecord `json:"nodes"`
	InProgress []HealthRepair         `json:"in_progress"`
	Done       []HealthRepair         `json:"done"`
	Events     []HealthEvent          `json:"events"`
	LastStart  time.Time              `json:"last_start,omitzero"`
	// Spares: each partition's nodes held in its spare reservation.
	Spares map[string][]string `json:"spares,omitempty"`
}

const maxHealthRecords = 200

func (c *controller) healthStatePath() string { return filepath.Join(c.stateDir, "health-state.json") }

func (c *controller) loadHealth() *healthState {
	s := &healthState{Nodes: map[string]*nodeRecord{}}
	if b, err := os.ReadFile(c.healthStatePath()); err == nil {
		if json.Unmarshal(b, s) != nil || s.Nodes == nil {
			s = &healthState{Nodes: map[string]*nodeRecord{}}
		}
	}
	return s
}

func (c *controller) saveHealth(s *healthState) error {
	if len(s.Events) > maxHealthRecords {
		s.Events = s.Events[len(s.Events)-maxHealthRecords:]
	}
	if len(s.Done) > maxHealthRecords {
		s.Done = s.Done[len(s.Done)-maxHealthRecords:]
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = writeFile(c.healthStatePath(), append(b, '\n'), 0o600, rootAccount)
	return err
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
			resumed[r.Node] = true
			if rec := st.Nodes[r.Node]; rec != nil {
				rec.InService = now
			}
			st.Events = append(st.Events, HealthEvent{Time: now, Node: r.Node, Kind: "repaired", Action: r.Action, Detail: detail})
			c.log.Info("health repair done; node back in service", "node", r.Node, "action", r.Action)
		} else {
			r.Result = "failed"
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
		if err != nil {
			r.Finished, r.Result = now, "failed"
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

// nextAction is the repair a node's failure takes: the check's action, or the next step of the
// policy's escalation ladder when the node was repaired within the escalation window.
func nextAction(pol cc.HealthPolicy, ph cc.PartitionHealth, check, node string, done []HealthRepair, now time.Time) string {
	action := cc.ActionDrain
	for _, c := range ph.Checks {
		if c.Name == check {
			action = c.Action
		}
	}
	if len(pol.Escalation) == 0 || action == cc.ActionDrain {
		return action
	}
	window := time.Duration(pol.EscalationWindowHours * float64(time.Hour))
	for i := len(done) - 1; i >= 0; i-- {
		r := done[i]
		if r.Node != node || now.Sub(r.Started) > window {
			continue
		}
		step := slices.Index(pol.Escalation, r.Action)
		return pol.Escalation[min(step+1, len(pol.Escalation)-1)]
	}
	return action
}

// jobsLeaveWait bounds how long a repair waits for the requeued jobs to leave their node.
const jobsLeaveWait = time.Minute

// jobsOn lists the jobs Slurm has on a node (running, starting or completing).
func (c *controller) jobsOn(ctx context.Context, l cc.Layout, node string) []int {
	jobs, err := slurmCLI(l).JobsOn(ctx, node, "RUNNING", "CONFIGURING", "COMPLETING")
	if err != nil {
		c.log.Warn("listing the jobs of a failed node", "node", node, "error", err.Error())
		return nil
	}
	return slurm.JobIDs(jobs)
}

// requeueJobs requeues the jobs of a failed node, so they resume from their checkpoint.
func (c *controller) requeueJobs(ctx context.Context, l cc.Layout, node string, jobs []int, st *healthState, now time.Time) []string {
	var done []string
	cli := slurmCLI(l)
	for _, id := range jobs {
		if err := cli.RequeueJob(ctx, id); err != nil {
			c.log.Warn("requeueing a job of a failed node", "node", node, "job", id, "error", err.Error())
			continue
		}
		done = append(done, strconv.Itoa(id))
		st.Events = append(st.Events, HealthEvent{Time: now, Node: node, Kind: "requeued", Detail: "job " + strconv.Itoa(id)})
	}
	return done
}

// releaseRequeued lets requeued jobs start at once: Slurm holds a requeued batch job back
// (BeginTime) for a while, time a job that lost its node would lose again.
func (c *controller) releaseRequeued(ctx context.Context, l cc.Layout, jobs []string) {
	cli := slurmCLI(l)
	for _, job := range jobs {
		id, err := strconv.Atoi(job)
		if err == nil {
			err = cli.StartJobNow(ctx, id)
		}
		if err != nil {
			c.log.Warn("releasing a requeued job", "job", job, "error", err.Error())
		}
	}
}

// startRepair starts a repair through the Compute API with the controller's own credentials.
func (c *controller) startRepair(ctx context.Context, cluster cc.Cluster, parts []cc.Partition, p cc.Partition, node, action, check string) (HealthRepair, error) {
	r := HealthRepair{Node: node, Action: action, Check: check}
	env, err := c.computeEnv(ctx, cluster)
	if err != nil {
		return r, err
	}
	project, zone := firstNonEmpty(p.Project, env.project), firstNonEmpty(p.Zone, env.zone)
	inst, err := env.clients.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: node})
	if err != nil {
		return r, fmt.Errorf("reading VM %s: %w", node, err)
	}
	r.Host = inst.GetResourceStatus().GetPhysicalHost()
	if r.SlurmdBefore, err = slurmCLI(cluster.Layout).SlurmdStartTime(ctx, node); err != nil {
		return r, err
	}
	switch action {
	case cc.ActionReboot:
		_, err = env.clients.Instances.Reset(ctx, &computepb.ResetInstanceRequest{Project: project, Zone: zone, Instance: node})
	case cc.ActionReplace:
		_, err = env.clients.Instances.ReportHostAsFaulty(ctx, &computepb.ReportHostAsFaultyInstanceRequest{Project: project, Zone: zone, Instance: node,
			InstancesReportHostAsFaultyRequestResource: &computepb.InstancesReportHostAsFaultyRequest{
				DisruptionSchedule: proto.String("IMMEDIATE"),
				FaultReasons:       []*computepb.InstancesReportHostAsFaultyRequestFaultReason{{Behavior: proto.String(faultBehavior(r.Check)), Description: proto.String("hypercompute health check failed")}},
			}})
	case cc.ActionReimage:
		// A new VM from the partition's instance template, the way Slurm's power saving creates
		// one: delete, then bulkInsert under the same name. It runs beside the controller's loop
		// (a minute on Compute); the repair ends when the new VM's slurmd registers.
		env := power.Env{Clients: env.clients, Project: env.project, Zone: env.zone, Cluster: cluster, Partitions: parts}
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Minute)
			defer cancel()
			err := power.Suspend(ctx, env, node)
			if err == nil {
				err = power.Resume(ctx, env, node)
			}
			if err != nil {
				c.log.Warn("reimaging a node", "node", node, "error", err.Error())
			}
		}()
	default:
		err = fmt.Errorf("action %q repairs nothing", action)
	}
	if err != nil {
		return r, fmt.Errorf("%s of VM %s: %w", action, node, err)
	}
	return r, nil
}

func faultBehavior(check string) string {
	switch check {
	case cc.CheckNCCL, cc.CheckStraggler:
		return "PERFORMANCE"
	case cc.CheckGPU, cc.CheckECC, cc.CheckDCGM, cc.CheckNVLink:
		return "UNRECOVERABLE_GPU_ERROR"
	}
	return "BEHAVIOR_UNSPECIFIED"
}

// repairDone reports whether a repair's VM restarted (on a new host for a replace) and its slurmd
// answers again.
func (c *controller) repairDone(ctx context.Context, cluster cc.Cluster, r HealthRepair, nodes slurmNodes) (done, ok bool, detail string) {
	state := nodes.state[r.Node]
	if strings.ContainsAny(state, "*~#%") || !strings.HasPrefix(state, "drain") {
		return false, false, ""
	}
	// A reset keeps the VM RUNNING with its lastStartTimestamp; slurmd starting again after the
	// repair began says the VM rebooted.
	started, err := slurmCLI(cluster.Layout).SlurmdStartTime(ctx, r.Node)
	if err != nil || !started.After(r.SlurmdBefore) {
		return false, false, ""
	}
	env, err := c.computeEnv(ctx, cluster)
	if err != nil {
		return false, false, ""
	}
	inst, err := env.clients.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: env.project, Zone: env.zone, Instance: r.Node})
	if err != nil || inst.GetStatus() != "RUNNING" {
		return false, false, ""
	}
	host := inst.GetResourceStatus().GetPhysicalHost()
	if r.Action == cc.ActionReplace && host == r.Host {
		return true, false, "the VM restarted on the same host " + host
	}
	return true, true, "slurmd started again at " + started.Format(time.RFC3339) + " on host " + host
}

// reportHealth reports the repairs and newest events, and each node's record that changed.
func (c *controller) reportHealth(ctx context.Context, st *healthState) {
	rep := cc.ClusterHealth{InProgress: st.InProgress, Done: st.Done, Events: st.Events, Policies: map[string]string{}}
	for _, p := range c.policies {
		rep.Policies[p.Name] = p.Generation
	}
	c.rep.set(ctx, cc.GuestAttrHealth, cc.EncodeClusterHealth(rep, maxHealthAttr))
	if c.reportedNodes == nil {
		c.reportedNodes = map[string]string{}
	}
	for name, rec := range st.Nodes {
		b, err := json.Marshal(rec.NodeHealth)
		if err != nil || c.reportedNodes[name] == string(b) {
			continue
		}
		c.rep.set(ctx, cc.HealthNodeAttr(name), string(b))
		c.reportedNodes[name] = string(b)
	}
	c.reportPolicies(ctx)
}

// maxHealthAttr keeps the report within one guest attribute value (4 KB in the local cloud;
// Compute does not document its limit).
const maxHealthAttr = 4000

// reportPolicies reports each policy's applied generation and withdraws the report of a policy
// whose key is gone, which the provider's destroy waits for.
func (c *controller) reportPolicies(ctx context.Context) {
	now := map[string]bool{}
	for _, p := range c.policies {
		now[p.Name] = true
		c.rep.set(ctx, cc.HealthPolicyAttr(p.Name), p.Generation)
	}
	for name := range c.reportedPolicies {
		if !now[name] {
			c.rep.clear(ctx, cc.HealthPolicyAttr(name))
		}
	}
	c.reportedPolicies = now
}

// healthCompute is the Compute API as the controller's repairs use it.
type healthCompute struct {
	clients *gcp.Clients
	project string
	zone    string
}

// computeEnv creates the Compute clients once, with the VM's own credentials (or the local
// cloud's API where HYPERCOMPUTE_EMULATOR_HOST says so).
func (c *controller) computeEnv(ctx context.Context, cluster cc.Cluster) (*healthCompute, error) {
	if c.healthAPI != nil {
		return c.healthAPI, nil
	}
	project, err := c.md.Project(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the project from the metadata server: %w", err)
	}
	zone, err := c.md.Zone(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the zone from the metadata server: %w", err)
	}
	clients, err := gcp.NewClients(ctx, gcp.Config{Project: project, Zone: zone,
		EmulatorHost: os.Getenv("HYPERCOMPUTE_EMULATOR_HOST"), UserAgent: "hypercompute-agent"})
	if err != nil {
		return nil, fmt.Errorf("creating Compute API clients: %w", err)
	}
	c.healthAPI = &healthCompute{clients: clients, project: project, zone: zone}
	return c.healthAPI, nil
}
