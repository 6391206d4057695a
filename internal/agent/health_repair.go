package agent

import (
	"context"
	"fmt"
	"os"
	"slices"
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

// nextAction is the repair a node's failure takes: the check's action, or the next step of the
// policy's escalation ladder when the node was repaired within the escalation window.
func nextAction(pol cc.HealthPolicy, ph cc.PartitionHealth, check, node string, done []HealthRepair, now time.Time) string {
	action := checkAction(ph, check)
	if len(pol.Escalation) == 0 || action == cc.ActionDrain {
		return action
	}
	if check == cc.CheckUnrepairableMemory {
		// A ladder step below replace would keep the VM on the host whose GPU memory is broken.
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

// checkAction is the repair a check's failure takes before any escalation (drain for a check the
// partition does not run).
func checkAction(ph cc.PartitionHealth, check string) string {
	action := cc.ActionDrain
	for _, c := range ph.Checks {
		if c.Name == check {
			action = c.Action
		}
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
		EmulatorHost: os.Getenv("HYPERCOMPUTE_EMULATOR_HOST"), MetadataToken: true, UserAgent: "hypercompute-agent"})
	if err != nil {
		return nil, fmt.Errorf("creating Compute API clients: %w", err)
	}
	c.healthAPI = &healthCompute{clients: clients, project: project, zone: zone}
	return c.healthAPI, nil
}
