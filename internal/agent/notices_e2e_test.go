package agent_test

import (
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// checkpointJob is a training job's batch script reduced to what matters here: it traps SIGUSR1, the
// checkpoint signal, writes its checkpoint to the shared /home and ends.
const checkpointJob = `#!/bin/sh
trap 'echo "checkpoint of job $SLURM_JOB_ID" > /home/ckpt-$SLURM_JOB_ID; exit 0' USR1
echo started > /home/started-$SLURM_JOB_ID
while :; do sleep 0.1; done
`

// The agent on a compute node reacts to a maintenance notice from the metadata server before the host stops
// the VM: the node is drained with a reason naming the notice and the running job's batch script gets SIGUSR1
// and checkpoints; after the VM restarted on a new host, the agent returns its node to service.
func TestStopNoticeDrainsAndCheckpointsOnTheLocalRuntime(t *testing.T) {
	requireSlurm(t)
	start := time.Now()
	c := startCloud(t)
	agentPath, agentSum := buildAgent(t)
	c.network()
	_, fsIP := c.createFilestore("home")
	cluster := cc.Cluster{
		Name:       "nt",
		Controller: cc.Controller{Hostname: cc.ControllerName("nt")},
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: fsIP, Share: "/home"}},
		Agents:     []cc.AgentRef{{Version: testVersion, URL: "file://" + agentPath, SHA256: agentSum}},
	}
	parts := []cc.Partition{{Name: "gpu", MachineType: "e2-standard-2", StaticNodes: 1, Default: true}}
	partition, err := cc.EncodePartition(cluster.Name, parts[0])
	if err != nil {
		t.Fatal(err)
	}
	controller, node := cc.ControllerName("nt"), cc.NodeName(parts[0].Prefix("nt"), 0)
	ctlItems := payload(t, cluster, cc.RoleController, nil, nil)
	ctlItems[cc.ClusterKey] = encodeCluster(t, cluster)
	ctlItems[cc.PartitionKey("gpu")] = string(partition)
	c.createVM(controller, ctlItems)
	// GPU VMs stop for maintenance; this one stands in for them.
	c.createScheduledVM(node, payload(t, cluster, cc.RoleCompute, &parts[0], nil),
		&computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE"), AutomaticRestart: proto.Bool(true)})

	slurm := func(cmd string) string {
		return strings.TrimSpace(c.exec(controller, "sh", "-c", "SLURM_CONF=/etc/slurm/slurm.conf "+cmd))
	}
	waitSlurm := func(what, cmd string, ok func(string) bool, timeout time.Duration) string {
		t.Helper()
		deadline := time.Now().Add(timeout)
		var seen []string // what the command printed, each change once: the test's log shows the node's path
		prev := "\x00"
		for {
			out := slurm(cmd)
			if out != prev {
				seen, prev = append(seen, time.Now().Format("15:04:05.000")+" "+strings.ReplaceAll(out, "\n", "; ")), out
			}
			if ok(out) {
				t.Logf("%s: %s", what, strings.Join(seen, ", "))
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: %s printed %q\n--- %s console ---\n%s\n--- agent log ---\n%s", what, cmd, out, node, c.serial(node),
					c.tryExec(node, "sh", "-c", "tail -n 30 /var/log/hypercompute/*.log"))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	c.waitAttrs(node, "phase=ready", 90*time.Second, func(a map[string]string) bool { return a[cc.GuestAttrPhase] == cc.PhaseReady }, true)
	waitSlurm(node+" idle", "sinfo -h -N -n "+node+" -o %T", func(s string) bool { return s == "idle" }, 30*time.Second)
	t.Logf("cluster up after %s", time.Since(start).Round(time.Millisecond))

	c.exec(controller, "sh", "-c", "cat > /home/job.sh <<'EOF'\n"+checkpointJob+"EOF\nchmod 755 /home/job.sh")
	job := slurm("sbatch --parsable -p gpu -w " + node + " -o /dev/null /home/job.sh")
	waitSlurm("job "+job+" running", "cat /home/started-"+job+" 2>/dev/null || true", func(s string) bool { return s == "started" }, 30*time.Second)

	svc := c.env.Server.Component("instances").(*instances.Service)
	before, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: node})
	if err != nil {
		t.Fatal(err)
	}
	noticed := time.Now()
	if _, err := svc.Maintenance(instances.InstanceKey(project, zone, node), 6*time.Second); err != nil {
		t.Fatal(err)
	}
	reason := waitSlurm("the notice drain", "sinfo -h -N -n "+node+" -o '%T|%E'", func(s string) bool { return strings.HasPrefix(s, "drain") }, 5*time.Second)
	if !strings.Contains(reason, "hypercompute: stop notice: host maintenance (instance/maintenance-event=TERMINATE_ON_HOST_MAINTENANCE)") {
		t.Errorf("drain reason %q names no notice", reason)
	}
	ckpt := waitSlurm("the job's checkpoint", "cat /home/ckpt-"+job+" 2>/dev/null || true", func(s string) bool { return s != "" }, 5*time.Second)
	if ckpt != "checkpoint of job "+job {
		t.Errorf("checkpoint file holds %q", ckpt)
	}
	if st, _ := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: node}); st.GetStatus() != "RUNNING" {
		t.Fatalf("the VM was %s before its job checkpointed", st.GetStatus())
	}
	t.Logf("drained and checkpointed %s after the notice", time.Since(noticed).Round(time.Millisecond))

	// The host acts: the VM stops and restarts on a new host; the agent there puts the node back in service.
	inService := func(s string) bool {
		state, reason, _ := strings.Cut(s, "|")
		return reason == "none" && (state == "idle" || state == "mixed" || state == "allocated")
	}
	waitSlurm(node+" back in service", "sinfo -h -N -n "+node+" -o '%T|%E'", inService, 90*time.Second)
	if out := slurm("timeout 30 srun -p gpu -w " + node + " hostname"); out != node {
		t.Errorf("srun on the node back in service printed %q", out)
	}
	t.Logf("back in service %s after the notice", time.Since(noticed).Round(time.Millisecond))
	after, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: node})
	if err != nil {
		t.Fatal(err)
	}
	if after.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() || after.GetLastStartTimestamp() == before.GetLastStartTimestamp() {
		t.Errorf("the node is back without its VM restarting on a new host: %s → %s", before.GetResourceStatus().GetPhysicalHost(), after.GetResourceStatus().GetPhysicalHost())
	}
}

// createScheduledVM is createVM with a scheduling policy.
func (c *cloud) createScheduledVM(name string, items map[string]string, sc *computepb.Scheduling) {
	c.t.Helper()
	md := &computepb.Metadata{}
	all := map[string]string{cc.GuestAttributesKey: "TRUE", "enable-oslogin": "TRUE", "block-project-ssh-keys": "TRUE"}
	for k, v := range items {
		all[k] = v
	}
	for k, v := range all {
		md.Items = append(md.Items, &computepb.Items{Key: proto.String(k), Value: proto.String(v)})
	}
	op, err := c.instances.Insert(c.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String("zones/" + zone + "/machineTypes/e2-standard-2"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), AutoDelete: proto.Bool(true),
			InitializeParams: &computepb.AttachedDiskInitializeParams{SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
		Metadata:          md,
		Scheduling:        sc,
	}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("creating VM %s: %v", name, err)
	}
}
