package agent_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// resumingJob counts steps in a checkpoint file on the shared /home and resumes from it when Slurm
// requeues it (the stand-in for a recipe job's trainer): a job that lost its node finishes from
// its last checkpoint instead of step 0.
const resumingJob = `#!/bin/sh
ck=/home/ckpt-$SLURM_JOB_ID
n=$(cat $ck 2>/dev/null || echo 0)
echo "start $n on $SLURMD_NODENAME" >> /home/starts-$SLURM_JOB_ID
while [ $n -lt 60 ]; do sleep 0.2; n=$((n+1)); echo $n > $ck.new; mv $ck.new $ck; done
echo done > /home/done-$SLURM_JOB_ID
`

// A health policy on real Slurm and the local cloud: a node whose /tmp runs out of space fails its
// disk check, drains itself with the check's reason, the controller requeues its job and reboots
// it through the Compute API, the node returns to IDLE and the job finishes from its checkpoint;
// the same node failing again within the escalation window is replaced (reportHostAsFaulty, a new
// physical host); three nodes failing at once are repaired one after another.
func TestHealthPolicyRepairsOnTheLocalRuntime(t *testing.T) {
	requireSlurm(t)
	c := startCloud(t)
	agentPath, agentSum := buildAgent(t)
	c.network()
	_, fsIP := c.createFilestore("home")
	cluster := cc.Cluster{
		Name:       "hp",
		Controller: cc.Controller{Hostname: cc.ControllerName("hp")},
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: fsIP, Share: "/home"}},
		Agents:     []cc.AgentRef{{Version: testVersion, URL: "file://" + agentPath, SHA256: agentSum}},
		Slurm:      cc.SlurmSettings{SchedulerParameters: []string{"batch_sched_delay=0", "sched_min_interval=0"}},
	}
	parts := []cc.Partition{{Name: "cpu", MachineType: "e2-standard-2", StaticNodes: 3, Default: true}}
	partition, err := cc.EncodePartition(cluster.Name, parts[0])
	if err != nil {
		t.Fatal(err)
	}
	policy := cc.HealthPolicy{
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
	pol, err := cc.EncodeHealthPolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	controller := cc.ControllerName("hp")
	ctlItems := payload(t, cluster, cc.RoleController, nil, nil)
	ctlItems[cc.ClusterKey] = encodeCluster(t, cluster)
	ctlItems[cc.PartitionKey("cpu")] = string(partition)
	ctlItems[cc.HealthPolicyKey("default")] = string(pol)
	c.createVM(controller, ctlItems)
	var nodes []string
	for i := range 3 {
		n := cc.NodeName(parts[0].Prefix("hp"), i)
		nodes = append(nodes, n)
		c.createVM(n, payload(t, cluster, cc.RoleCompute, &parts[0], nil))
	}

	slurm := func(cmd string) string {
		return strings.TrimSpace(c.tryExec(controller, "sh", "-c", "SLURM_CONF=/etc/slurm/slurm.conf "+cmd))
	}
	waitFor := func(what string, timeout time.Duration, ok func() (string, bool)) string {
		t.Helper()
		deadline := time.Now().Add(timeout)
		for {
			s, done := ok()
			if done {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: last seen %q\n--- sinfo ---\n%s\n--- controller agent log ---\n%s\n--- %s: health check by hand, slurmd log ---\n%s", what, s, slurm("sinfo -N -o '%N %T %E'"),
					c.tryExec(controller, "sh", "-c", "tail -n 20 /var/log/hypercompute/agent.log; cat /var/lib/hypercompute/health-state.json; SLURM_CONF=/etc/slurm/slurm.conf squeue; SLURM_CONF=/etc/slurm/slurm.conf scontrol show node "+nodes[0]), nodes[0],
					c.tryExec(nodes[0], "sh", "-c", "df -h /tmp; ls -l /var/lib/hypercompute/bin; /var/lib/hypercompute/bin/"+cc.HealthCheckProgramName+"; echo exit $?; grep -i health /var/log/slurm*/slurmd*.log /var/log/hypercompute/slurmd*.log 2>&1 | tail -n 10; tail -n 20 /var/log/hypercompute/agent.log"))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	nodeState := func(n string) string { return slurm("sinfo -h -N -n " + n + " -o '%T|%E'") }
	var lastHealth cc.ClusterHealth
	health := func() cc.ClusterHealth {
		// A loaded machine may miss an answer; keep the last report then.
		var h cc.ClusterHealth
		if json.Unmarshal([]byte(c.attrs(controller)[cc.GuestAttrHealth]), &h) == nil {
			lastHealth = h
		}
		return lastHealth
	}
	vm := func(n string) *computepb.Instance {
		inst, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: n})
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	// fill leaves /tmp with less free space than the disk check's minimum, until the VM reboots.
	fill := func(n string) { c.exec(n, "sh", "-c", "mount -t tmpfs -o size=1m hcfault /tmp") }

	c.waitAttrs(controller, "policy applied", 120*time.Second, func(a map[string]string) bool { return a[cc.HealthPolicyAttr("default")] == "g1" }, true)
	for _, n := range nodes {
		waitFor(n+" idle", 120*time.Second, func() (string, bool) { s := nodeState(n); return s, s == "idle|none" })
	}
	plan := c.exec(controller, "cat", "/home/.hypercompute/slurm/"+cc.SharedHealthPlan)
	if strings.Contains(plan, `"ecc"`) || !strings.Contains(plan, `"disk"`) {
		t.Errorf("the CPU partition's plan should run the disk check and skip the GPU ones:\n%s", plan)
	}
	if conf := c.exec(controller, "cat", "/etc/slurm/slurm.conf"); !strings.Contains(conf, "HealthCheckProgram=/var/lib/hypercompute/bin/"+cc.HealthCheckProgramName) || !strings.Contains(conf, "HealthCheckInterval=2\n") {
		t.Errorf("slurm.conf runs no health check program every 2 s:\n%s", conf)
	}

	// 1. A fault under a running job: drain with the check's reason, requeue, reboot, back to IDLE, resume.
	c.exec(controller, "sh", "-c", "cat > /home/job.sh <<'EOF'\n"+resumingJob+"EOF\nchmod 755 /home/job.sh")
	job := slurm("sbatch --parsable --requeue -N1 -o /dev/null /home/job.sh")
	node := waitFor("job "+job+" running", 30*time.Second, func() (string, bool) {
		s := slurm("squeue -h -j " + job + " -o '%T|%N'")
		st, n, _ := strings.Cut(s, "|")
		return n, st == "RUNNING" && n != ""
	})
	waitFor("a checkpoint", 30*time.Second, func() (string, bool) {
		s := slurm("cat /home/ckpt-" + job + " 2>/dev/null || echo 0")
		v, _ := strconv.Atoi(s)
		return s, v >= 10
	})
	slurmdStart := func(n string) string {
		for _, f := range strings.Fields(slurm("scontrol -o show node " + n)) {
			if strings.HasPrefix(f, "SlurmdStartTime=") {
				return f
			}
		}
		return ""
	}
	bootBefore := slurmdStart(node)
	faulted := time.Now()
	fill(node)
	reason := waitFor(node+" drained", 30*time.Second, func() (string, bool) {
		s := nodeState(node)
		return s, strings.HasPrefix(s, "drain") && strings.Contains(s, "hc:disk: /tmp has")
	})
	detected := time.Since(faulted)
	t.Logf("detection (fault → drain): %s: %s", detected.Round(time.Millisecond), reason)
	drained := time.Now()
	waitFor(node+" back in service", 120*time.Second, func() (string, bool) {
		s := nodeState(node)
		return s, s == "idle|none" || s == "allocated|none" || s == "mixed|none"
	})
	t.Logf("repair (drain → back in service): %s", time.Since(drained).Round(time.Millisecond))
	if after := slurmdStart(node); after == bootBefore {
		t.Errorf("%s is back without a reboot (%s)", node, after)
	}
	waitFor("job "+job+" done", 90*time.Second, func() (string, bool) {
		s := slurm("cat /home/done-" + job + " 2>/dev/null || true")
		return s, s == "done"
	})
	starts := strings.Split(slurm("cat /home/starts-"+job), "\n")
	if len(starts) < 2 || strings.HasPrefix(starts[len(starts)-1], "start 0 ") {
		t.Errorf("the job did not resume from its checkpoint after the requeue; its starts: %q", starts)
	}
	h := health()
	if !hasEvent(h, node, "detected") || !hasEvent(h, node, "requeued") || !hasRepair(h, node, cc.ActionReboot, "ok") {
		t.Errorf("health records lack the detection, requeue or reboot of %s: %+v", node, h)
	}

	// 2. The ladder: the same node failing again within the window is replaced on a new host.
	before := vm(node)
	fill(node)
	waitFor(node+" replaced", 120*time.Second, func() (string, bool) {
		h := health()
		return fmt.Sprint(h.Done), hasRepair(h, node, cc.ActionReplace, "ok")
	})
	waitFor(node+" back after the replace", 60*time.Second, func() (string, bool) { s := nodeState(node); return s, s == "idle|none" })
	if after := vm(node); after.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() {
		t.Errorf("%s was replaced on the same host %s", node, before.GetResourceStatus().GetPhysicalHost())
	}

	// 3. Three nodes failing at once, one repair at a time: never two in progress, all back.
	doneBefore := len(health().Done)
	for _, n := range nodes {
		fill(n)
	}
	maxInProgress := 0
	waitFor("three repairs", 180*time.Second, func() (string, bool) {
		h := health()
		maxInProgress = max(maxInProgress, len(h.InProgress))
		return fmt.Sprint(len(h.Done) - doneBefore), len(h.Done)-doneBefore >= 3 && len(h.InProgress) == 0
	})
	if maxInProgress > 1 {
		t.Errorf("%d repairs ran at once; the limit is 1", maxInProgress)
	}
	h = health()
	last := h.Done[doneBefore:]
	for i := 1; i < len(last); i++ {
		if last[i].Started.Before(last[i-1].Finished) {
			t.Errorf("repair of %s started at %s, before the repair of %s ended at %s", last[i].Node, last[i].Started, last[i-1].Node, last[i-1].Finished)
		}
	}
	for _, n := range nodes {
		waitFor(n+" idle again", 60*time.Second, func() (string, bool) { s := nodeState(n); return s, s == "idle|none" })
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
