package localrt

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
)

// noticeWatcher is what a guest does to learn of its host's plans: wait_for_change on the metadata server's
// notice keys, reporting each value it sees as a guest attribute (hc/maintenance-event, hc/preempted).
const noticeWatcher = `
watch() {
  etag=0
  while :; do
    v=$(curl -sS -D /tmp/h-$1 -H 'Metadata-Flavor: Google' \
      "http://metadata.google.internal/computeMetadata/v1/instance/$1?wait_for_change=true&last_etag=$etag") || { sleep 0.2; continue; }
    etag=$(sed -n 's/^ETag: *//Ip' /tmp/h-$1 | tr -d '\r')
    echo "$1: $v"
    curl -sS -X PUT -H 'Metadata-Flavor: Google' --data "$v" \
      http://metadata.google.internal/computeMetadata/v1/instance/guest-attributes/hc/$1
  done
}
(watch maintenance-event &) ; (watch preempted &)
`

// admin posts to one of the admin API's instance verbs and returns its answer.
func (c *cloud) admin(name, verb, body string) map[string]any {
	c.t.Helper()
	resp, err := http.Post(c.url+"/emulator/v1/projects/"+project+"/zones/"+zone+"/instances/"+name+":"+verb, "application/json", strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("%s:%s answered %d %v", name, verb, resp.StatusCode, out)
	}
	return out
}

// createScheduledVM is createVM with a scheduling policy.
func (c *cloud) createScheduledVM(name, script string, sc *computepb.Scheduling) *computepb.Instance {
	c.t.Helper()
	op, err := c.instances.Insert(c.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String("zones/" + zone + "/machineTypes/e2-standard-2"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), AutoDelete: proto.Bool(true),
			InitializeParams: &computepb.AttachedDiskInitializeParams{SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
		Metadata: &computepb.Metadata{Items: []*computepb.Items{
			{Key: proto.String("startup-script"), Value: proto.String(script)},
			{Key: proto.String("enable-guest-attributes"), Value: proto.String("TRUE")},
		}},
		Scheduling: sc,
	}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("creating VM %s: %v", name, err)
	}
	return c.get(name)
}

func (c *cloud) get(name string) *computepb.Instance {
	c.t.Helper()
	inst, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: name})
	if err != nil {
		c.t.Fatalf("reading VM %s: %v", name, err)
	}
	return inst
}

// waitFor polls cond every 50 ms until it holds, failing the test with what() after timeout.
func (c *cloud) waitFor(timeout time.Duration, cond func() bool, what func() string) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatal(what())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// attrIs waits for a guest attribute to read want.
func (c *cloud) attrIs(name, path, want string, timeout time.Duration) {
	c.t.Helper()
	var got string
	c.waitFor(timeout, func() bool { got = c.waitAttr(name, path, timeout); return got == want },
		func() string {
			return fmt.Sprintf("%s's %s is %q, want %q; console:\n%s", name, path, got, want, c.serial(name))
		})
}

// slurmdStart is the SlurmdStartTime the controller holds for node: it changes when the node's slurmd
// registers anew in a later second (Slurm keeps whole seconds).
func (c *cloud) slurmdStart(node string) string {
	c.t.Helper()
	out := c.exec("ctl", "bash", "-c", "SLURM_CONF=/etc/slurm/slurm.conf scontrol show node "+node)
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "SlurmdStartTime="); ok {
			return v
		}
	}
	c.t.Fatalf("scontrol show node %s has no SlurmdStartTime:\n%s", node, out)
	return ""
}

// nodeIdle waits until the controller sees node idle and runs a job there.
func (c *cloud) nodeIdle(node string, timeout time.Duration) {
	c.t.Helper()
	var state string
	c.waitFor(timeout, func() bool {
		state = strings.TrimSpace(c.exec("ctl", "bash", "-c", "SLURM_CONF=/etc/slurm/slurm.conf sinfo -h -N -n "+node+" -o %T"))
		return state == "idle"
	}, func() string {
		return fmt.Sprintf("%s is %q in Slurm, want idle; its console:\n%s", node, state, c.serial(node))
	})
	if out := c.exec("ctl", "bash", "-c", "SLURM_CONF=/etc/slurm/slurm.conf srun -w "+node+" hostname"); out != node+"\n" {
		c.t.Fatalf("srun -w %s hostname printed %q", node, out)
	}
}

// The host events of a Google VM on the local runtime: a host fault injected through the admin API reboots the
// VM on a new host and its node rejoins Slurm; a TERMINATE maintenance event is announced through the metadata
// server, then the VM stops and restarts on a new host and rejoins too; a Spot VM reads preempted=TRUE and then
// stops. One cluster (a controller and two nodes of real Slurm, plus a Spot VM) serves every step.
func TestHostEventsOnTheLocalRuntime(t *testing.T) {
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "srun", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("skipping: %s not installed (run scripts/install-deps.sh)", bin)
		}
	}
	c := startCloud(t)
	c.network()
	c.privateServiceAccess()
	fsIP := slurmShare(t, c)
	resp, err := http.Post(c.url+"/emulator/v1/noticeWindows", "application/json", bytes.NewReader([]byte(`{"maintenance":"5s","preemption":"1s","restart":"300ms"}`)))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("setting notice windows: %v %v", resp, err)
	}
	resp.Body.Close()

	script := fmt.Sprintf(slurmScript, fsIP) + noticeWatcher
	c.createVM("n1", script)
	c.createScheduledVM("n2", script, &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE"), AutomaticRestart: proto.Bool(true)})
	c.createVM("ctl", script)
	c.createScheduledVM("spot", noticeWatcher, &computepb.Scheduling{ProvisioningModel: proto.String("SPOT")})
	if got := c.waitAttr("ctl", "hc/srun", 40*time.Second); got != "n1 n2" {
		t.Fatalf("the cluster did not form: srun -N2 printed %q; controller console:\n%s", got, c.serial("ctl"))
	}

	t.Run("host fault", func(t *testing.T) {
		before := c.get("n1")
		started := c.slurmdStart("n1")
		// SlurmdStartTime has whole seconds: a slurmd that restarts within the second the first
		// one started in would look as if it never registered again.
		time.Sleep(time.Second)
		out := c.admin("n1", "hostFault", "")
		after := c.get("n1")
		if out["status"] != "RUNNING" || after.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() ||
			out["physicalHost"] != after.GetResourceStatus().GetPhysicalHost() {
			t.Fatalf(":hostFault answered %v; physicalHost %s → %s", out, before.GetResourceStatus().GetPhysicalHost(), after.GetResourceStatus().GetPhysicalHost())
		}
		serial := c.waitSerial("n1", "Finished running startup scripts.", 2, 30*time.Second)
		if !strings.Contains(serial, "hypercompute-runtime: reset") {
			t.Errorf("n1's console shows no reboot:\n%s", serial)
		}
		c.waitFor(30*time.Second, func() bool { return c.slurmdStart("n1") != started }, func() string {
			return "n1's slurmd never registered again; console:\n" + c.serial("n1")
		})
		c.nodeIdle("n1", 30*time.Second)
		t.Logf("n1 moved %s → %s; slurmd registered at %s, then %s", before.GetResourceStatus().GetPhysicalHost(),
			after.GetResourceStatus().GetPhysicalHost(), started, c.slurmdStart("n1"))
	})

	t.Run("maintenance", func(t *testing.T) {
		before := c.get("n2")
		started := c.slurmdStart("n2")
		c.attrIs("n2", "hc/maintenance-event", "NONE", 10*time.Second)
		ev := c.admin("n2", "maintenance", "")
		if ev["maintenanceEvent"] != "TERMINATE_ON_HOST_MAINTENANCE" {
			t.Fatalf(":maintenance answered %v", ev)
		}
		// The guest sees the notice while it still runs, before the host acts.
		c.attrIs("n2", "hc/maintenance-event", "TERMINATE_ON_HOST_MAINTENANCE", 4*time.Second)
		if st := c.get("n2").GetStatus(); st != "RUNNING" {
			t.Fatalf("n2 is %s during its notice", st)
		}
		c.waitSerial("n2", "Finished running startup scripts.", 2, 30*time.Second)
		after := c.get("n2")
		if after.GetStatus() != "RUNNING" || after.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() || after.GetLastStopTimestamp() == "" {
			t.Fatalf("after maintenance n2 is %s on %s (before %s), last stopped %q", after.GetStatus(),
				after.GetResourceStatus().GetPhysicalHost(), before.GetResourceStatus().GetPhysicalHost(), after.GetLastStopTimestamp())
		}
		c.attrIs("n2", "hc/maintenance-event", "NONE", 10*time.Second)
		c.waitFor(30*time.Second, func() bool { return c.slurmdStart("n2") != started }, func() string {
			return "n2's slurmd never registered again; console:\n" + c.serial("n2")
		})
		c.nodeIdle("n2", 30*time.Second)
	})

	t.Run("preemption", func(t *testing.T) {
		c.attrIs("spot", "hc/preempted", "FALSE", 10*time.Second)
		pids := pidsOf(t, c, "spot")
		c.admin("spot", "preempt", `{"notice":"3s"}`)
		c.attrIs("spot", "hc/preempted", "TRUE", 2500*time.Millisecond)
		c.waitFor(10*time.Second, func() bool { return c.get("spot").GetStatus() == "TERMINATED" }, func() string {
			return "spot is " + c.get("spot").GetStatus() + " after its preemption notice"
		})
		waitDead(t, c, "spot", pids)
	})
}

// slurmShare puts the cluster's munge key and configuration on a new Filestore share, as a bootstrap would,
// and returns the share's address for slurmScript.
func slurmShare(t *testing.T, c *cloud) string {
	t.Helper()
	fsName, fsIP := c.createFilestore("home", "home")
	share, ok := c.env.Server.Component(filestore.ComponentName).(*filestore.Service).BackingDir(fsName, "home")
	if !ok {
		t.Fatalf("Filestore %s has no backing directory", fsName)
	}
	proctrack, task, cgroupConf := "proctrack/linuxproc", "task/none", "CgroupPlugin=autodetect\n"
	if _, err := os.Stat("/sys/fs/cgroup/freezer/cgroup.procs"); err == nil {
		proctrack, task, cgroupConf = "proctrack/cgroup", "task/cgroup,task/affinity", "CgroupPlugin=cgroup/v1\n"
	}
	key := make([]byte, 1024)
	rand.Read(key)
	files := map[string]string{
		"munge.key":   string(key),
		"slurm.conf":  strings.NewReplacer("@PROCTRACK@", proctrack, "@TASK@", task).Replace(slurmConf),
		"cgroup.conf": cgroupConf,
	}
	if err := os.MkdirAll(filepath.Join(share, "cluster"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(share, "cluster", name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return fsIP
}
