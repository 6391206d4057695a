package agent_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// resumingJob counts steps in a checkpoint file on the shared /home and resumes from it when Slurm
// requeues it (the stand-in for a recipe job's trainer): a job that lost its node finishes from
// its last checkpoint instead of step 0.
const resumingJob = `#!/bin/sh
ck=/home/ckpt-$SLURM_JOB_ID
every=${CKPT_EVERY:-1}
n=$(cat $ck 2>/dev/null || echo 0)
echo "start $n on $SLURMD_NODENAME" >> /home/starts-$SLURM_JOB_ID
while [ $n -lt 60 ]; do
  sleep 0.2; n=$((n+1)); echo $n > /home/step-$SLURM_JOB_ID
  if [ $((n % every)) = 0 ]; then echo $n > $ck.new; mv $ck.new $ck; fi
done
echo done > /home/done-$SLURM_JOB_ID
`

// jobSteps and stepTime are resumingJob's length: 60 steps of 0.2 s.
const (
	jobSteps = 60
	stepTime = 200 * time.Millisecond
)

// healthCluster is a controller and static CPU nodes on the local runtime under one health
// policy, with what the tests and the benchmark look at.
type healthCluster struct {
	tb         testing.TB
	c          *cloud
	controller string
	nodes      []string
	part       cc.Partition
	lastHealth cc.ClusterHealth
}

func startHealthCluster(tb testing.TB, name string, nodes int, policy cc.HealthPolicy) *healthCluster {
	tb.Helper()
	return startHealthClusterOf(tb, name, "e2-standard-2", nodes, policy)
}

// startHealthClusterOf is startHealthCluster with one partition of a machine type ("cpu", or "gpu"
// for a machine type with GPUs, whose VMs get the GPU tool stand-ins and device files).
func startHealthClusterOf(tb testing.TB, name, machineType string, nodes int, policy cc.HealthPolicy) *healthCluster {
	tb.Helper()
	requireSlurm(tb)
	c := startCloud(tb)
	h := &healthCluster{tb: tb, c: c, controller: cc.ControllerName(name)}
	agentPath, agentSum := buildAgent(tb)
	c.network()
	_, fsIP := c.createFilestore("home")
	cluster := cc.Cluster{
		Name:       name,
		Controller: cc.Controller{Hostname: cc.ControllerName(name)},
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: fsIP, Share: "/home"}},
		Agents:     []cc.AgentRef{{Version: testVersion, URL: "file://" + agentPath, SHA256: agentSum}},
		Slurm:      cc.SlurmSettings{SchedulerParameters: []string{"batch_sched_delay=0", "sched_min_interval=0"}},
		// The machine type's CPUs and memory, not this machine's, as slurmd reports them.
		LocalRuntime: true,
	}
	pname := "cpu"
	if m, _ := catalog.Machine(machineType); m.HasGPU() {
		pname = "gpu"
	}
	parts := []cc.Partition{{Name: pname, MachineType: machineType, StaticNodes: nodes, Default: true}}
	h.part = parts[0]
	partition, err := cc.EncodePartition(cluster.Name, parts[0])
	if err != nil {
		tb.Fatal(err)
	}
	pol, err := cc.EncodeHealthPolicy(policy)
	if err != nil {
		tb.Fatal(err)
	}
	ctlItems := payload(tb, cluster, cc.RoleController, nil, nil)
	ctlItems[cc.ClusterKey] = encodeCluster(tb, cluster)
	ctlItems[cc.PartitionKey(pname)] = string(partition)
	ctlItems[cc.HealthPolicyKey(policy.Name)] = string(pol)
	c.createVM(h.controller, ctlItems)
	for i := range nodes {
		n := cc.NodeName(parts[0].Prefix(name), i)
		h.nodes = append(h.nodes, n)
		c.createVMOf(n, machineType, payload(tb, cluster, cc.RoleCompute, &parts[0], nil))
	}
	c.waitAttrs(h.controller, "policy applied", 120*time.Second, func(a map[string]string) bool {
		return a[cc.HealthPolicyAttr(policy.Name)] == policy.Generation
	}, true)
	for _, n := range h.nodes {
		h.waitFor(n+" idle", 120*time.Second, func() (string, bool) { s := h.nodeState(n); return s, s == "idle|none" })
	}
	h.c.exec(h.controller, "sh", "-c", "cat > /home/job.sh <<'EOF'\n"+resumingJob+"EOF\nchmod 755 /home/job.sh")
	return h
}

func (h *healthCluster) slurm(cmd string) string {
	return strings.TrimSpace(h.c.tryExec(h.controller, "sh", "-c", "SLURM_CONF=/etc/slurm/slurm.conf "+cmd))
}

func (h *healthCluster) waitFor(what string, timeout time.Duration, ok func() (string, bool)) string {
	h.tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s, done := ok()
		if done {
			return s
		}
		if time.Now().After(deadline) {
			h.tb.Fatalf("waiting for %s: last seen %q\n--- sinfo ---\n%s\n--- controller agent log ---\n%s\n--- %s: health check by hand, slurmd log ---\n%s", what, s, h.slurm("sinfo -N -o '%N %T %E'"),
				h.c.tryExec(h.controller, "sh", "-c", "tail -n 20 /var/log/hypercompute/agent.log; cat /var/lib/hypercompute/health-state.json; SLURM_CONF=/etc/slurm/slurm.conf squeue"), h.nodes[0],
				h.c.tryExec(h.nodes[0], "sh", "-c", "df -h /tmp; /var/lib/hypercompute/bin/"+cc.HealthCheckProgramName+"; echo exit $?; grep -i health /var/log/hypercompute/slurmd*.log | tail -n 10; tail -n 20 /var/log/hypercompute/agent.log"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (h *healthCluster) nodeState(n string) string {
	return h.slurm("sinfo -h -N -n " + n + " -o '%T|%E'")
}

// health is the controller's report; a loaded machine may miss an answer, then the last one is kept.
func (h *healthCluster) health() cc.ClusterHealth {
	var r cc.ClusterHealth
	if json.Unmarshal([]byte(h.c.attrs(h.controller)[cc.GuestAttrHealth]), &r) == nil {
		h.lastHealth = r
	}
	return h.lastHealth
}

func (h *healthCluster) vm(n string) *computepb.Instance {
	inst, err := h.c.instances.Get(h.c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: n})
	if err != nil {
		h.tb.Fatal(err)
	}
	return inst
}

// fill leaves /tmp with less free space than the disk check's minimum, until the VM reboots.
func (h *healthCluster) fill(n string) {
	h.c.exec(n, "sh", "-c", "mount -t tmpfs -o size=1m hcfault /tmp")
}

func (h *healthCluster) slurmdStart(n string) string {
	for _, f := range strings.Fields(h.slurm("scontrol -o show node " + n)) {
		if strings.HasPrefix(f, "SlurmdStartTime=") {
			return f
		}
	}
	return ""
}

// submit starts the resuming job checkpointing every `every` steps and returns its id and node.
func (h *healthCluster) submit(every int) (job, node string) {
	job = h.slurm(fmt.Sprintf("sbatch --parsable --requeue -N1 -o /dev/null --export=ALL,CKPT_EVERY=%d /home/job.sh", every))
	node = h.waitFor("job "+job+" running", 30*time.Second, func() (string, bool) {
		s := h.slurm("squeue -h -j " + job + " -o '%T|%N'")
		st, n, _ := strings.Cut(s, "|")
		return n, st == "RUNNING" && n != ""
	})
	return job, node
}

func (h *healthCluster) step(job string) int {
	v, _ := strconv.Atoi(h.slurm("cat /home/step-" + job + " 2>/dev/null || echo 0"))
	return v
}

func (h *healthCluster) waitDone(job string) {
	h.waitFor("job "+job+" done", 90*time.Second, func() (string, bool) {
		s := h.slurm("cat /home/done-" + job + " 2>/dev/null || true")
		return s, s == "done"
	})
}

func testPolicy() cc.HealthPolicy {
	p := cc.HealthPolicy{
		Name: "default",
		Checks: []cc.HealthCheckSpec{
			{Name: cc.CheckDisk, Paths: []string{"/tmp"}, MinFreeGB: 0.05, Schedules: []string{cc.SchedulePeriodic, cc.ScheduleBoot}, Action: cc.ActionReboot},
			// GPU checks on a CPU partition are dropped from the plan.
			{Name: cc.CheckECC, Schedules: []string{cc.SchedulePeriodic}, Action: cc.ActionReplace},
		},
		IntervalSeconds:       2,
		Escalation:            []string{cc.ActionReboot, cc.ActionReplace},
		EscalationWindowHours: 1,
		RequeueJobs:           true,
		Limits:                cc.HealthLimits{MaxConcurrentRepairs: 1, MaxUnavailablePercent: 34},
		Generation:            "g1",
	}
	return p
}

// A health policy on real Slurm and the local cloud: a node whose /tmp runs out of space fails its
// disk check, drains itself with the check's reason, the controller requeues its job and reboots
// it through the Compute API, the node returns to IDLE and the job finishes from its checkpoint;
// the same node failing again within the escalation window is replaced (reportHostAsFaulty, a new
// physical host); three nodes failing at once are repaired one after another.
func TestHealthPolicyRepairsOnTheLocalRuntime(t *testing.T) {
	h := startHealthCluster(t, "hp", 3, testPolicy())
	controller, nodes := h.controller, h.nodes
	plan := h.c.exec(controller, "cat", "/home/.hypercompute/slurm/"+cc.SharedHealthPlan)
	if strings.Contains(plan, `"ecc"`) || !strings.Contains(plan, `"disk"`) {
		t.Errorf("the CPU partition's plan should run the disk check and skip the GPU ones:\n%s", plan)
	}
	if conf := h.c.exec(controller, "cat", "/etc/slurm/slurm.conf"); !strings.Contains(conf, "HealthCheckProgram=/var/lib/hypercompute/bin/"+cc.HealthCheckProgramName) || !strings.Contains(conf, "HealthCheckInterval=2\n") {
		t.Errorf("slurm.conf runs no health check program every 2 s:\n%s", conf)
	}

	// 1. A fault under a running job: drain with the check's reason, requeue, reboot, back to IDLE, resume.
	job, node := h.submit(1)
	h.waitFor("a checkpoint", 30*time.Second, func() (string, bool) { v := h.step(job); return strconv.Itoa(v), v >= 10 })
	bootBefore := h.slurmdStart(node)
	faulted := time.Now()
	h.fill(node)
	reason := h.waitFor(node+" drained", 30*time.Second, func() (string, bool) {
		s := h.nodeState(node)
		return s, strings.HasPrefix(s, "drain") && strings.Contains(s, "hc:disk: /tmp has")
	})
	t.Logf("detection (fault → drain): %s: %s", time.Since(faulted).Round(time.Millisecond), reason)
	drained := time.Now()
	h.waitFor(node+" back in service", 120*time.Second, func() (string, bool) {
		s := h.nodeState(node)
		return s, s == "idle|none" || s == "allocated|none" || s == "mixed|none"
	})
	t.Logf("repair (drain → back in service): %s", time.Since(drained).Round(time.Millisecond))
	if after := h.slurmdStart(node); after == bootBefore {
		t.Errorf("%s is back without a reboot (%s)", node, after)
	}
	h.waitDone(job)
	starts := strings.Split(h.slurm("cat /home/starts-"+job), "\n")
	if len(starts) < 2 || strings.HasPrefix(starts[len(starts)-1], "start 0 ") {
		t.Errorf("the job did not resume from its checkpoint after the requeue; its starts: %q", starts)
	}
	r := h.health()
	if !hasEvent(r, node, "detected") || !hasEvent(r, node, "requeued") || !hasRepair(r, node, cc.ActionReboot, "ok") {
		t.Errorf("health records lack the detection, requeue or reboot of %s: %+v", node, r)
	}

	// 2. The ladder: the same node failing again within the window is replaced on a new host.
	before := h.vm(node)
	h.fill(node)
	h.waitFor(node+" replaced", 120*time.Second, func() (string, bool) {
		r := h.health()
		return fmt.Sprint(r.Done), hasRepair(r, node, cc.ActionReplace, "ok")
	})
	h.waitFor(node+" back after the replace", 60*time.Second, func() (string, bool) { s := h.nodeState(node); return s, s == "idle|none" })
	if after := h.vm(node); after.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() {
		t.Errorf("%s was replaced on the same host %s", node, before.GetResourceStatus().GetPhysicalHost())
	}

	// 3. Three nodes failing at once, one repair at a time: never two in progress, all back.
	doneBefore := len(h.health().Done)
	for _, n := range nodes {
		h.fill(n)
	}
	maxInProgress := 0
	h.waitFor("three repairs", 180*time.Second, func() (string, bool) {
		r := h.health()
		maxInProgress = max(maxInProgress, len(r.InProgress))
		return fmt.Sprint(len(r.Done) - doneBefore), len(r.Done)-doneBefore >= 3 && len(r.InProgress) == 0
	})
	if maxInProgress > 1 {
		t.Errorf("%d repairs ran at once; the limit is 1", maxInProgress)
	}
	last := h.health().Done[doneBefore:]
	for i := 1; i < len(last); i++ {
		if last[i].Started.Before(last[i-1].Finished) {
			t.Errorf("repair of %s started at %s, before the repair of %s ended at %s", last[i].Node, last[i].Started, last[i-1].Node, last[i-1].Finished)
		}
	}
	for _, n := range nodes {
		h.waitFor(n+" idle again", 60*time.Second, func() (string, bool) { s := h.nodeState(n); return s, s == "idle|none" })
	}
}

func hasEvent(h cc.ClusterHealth, node, kind string) bool {
	for _, e := range h.Events {
		if e.Node == node && e.Kind == kind {
			return true
		}
	}
	return false
}

func hasRepair(h cc.ClusterHealth, node, action, result string) bool {
	for _, r := range h.Done {
		if r.Node == node && r.Action == action && r.Result == result {
			return true
		}
	}
	return false
}
