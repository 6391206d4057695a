package localrt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
	vmruntime "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime/runtimetest"
)

// pairScript is the startup script of each VM of the pair: mount the Filestore share on /home and the Lustre
// file system, leave a file in each, wait for the peer's file, and report through a guest attribute what the
// VM's own metadata server calls it and what the peer wrote.
const pairScript = `set -euo pipefail
mount -t nfs %[1]s:/home /home
mkdir -p /tmp/lustre
mount -t lustre %[2]s /tmp/lustre
me=$(curl -sSf -H 'Metadata-Flavor: Google' http://metadata.google.internal/computeMetadata/v1/instance/name)
echo "written by $me" > /home/from-$(hostname)
echo "checkpoint of $me" > /tmp/lustre/ckpt-$(hostname)
for i in $(seq 300); do [ -f /home/from-%[3]s ] && break; sleep 0.05; done
peer=$(cat /home/from-%[3]s)
curl -sSf -X PUT -H 'Metadata-Flavor: Google' --data "me=$me; peer: $peer" \
  http://metadata.google.internal/computeMetadata/v1/instance/guest-attributes/hc/ready
echo "reported ready"
`

// Two VMs on one subnet boot from the Compute API alone: each mounts the Filestore share and the Lustre file
// system created through their APIs, sees the other's file, reports through its own metadata server, and the
// two talk TCP by IP and by name.
func TestTwoVMsShareStorageMetadataAndNetwork(t *testing.T) {
	c := startCloud(t)
	c.network()
	c.privateServiceAccess()
	fsName, fsIP := c.createFilestore("home", "home")
	lustreMount := c.createLustre("data", "lfs")

	ips := map[string]string{}
	for _, p := range [][2]string{{"vm-a", "vm-b"}, {"vm-b", "vm-a"}} {
		inst := c.createVM(p[0], fmt.Sprintf(pairScript, fsIP, lustreMount, p[1]))
		ips[p[0]] = inst.GetNetworkInterfaces()[0].GetNetworkIP()
	}
	for name, peer := range map[string]string{"vm-a": "vm-b", "vm-b": "vm-a"} {
		got := c.waitAttr(name, "hc/ready", 30*time.Second)
		if want := fmt.Sprintf("me=%s; peer: written by %s", name, peer); got != want {
			t.Errorf("%s's guest attribute hc/ready = %q, want %q", name, got, want)
		}
		serial := c.waitSerial(name, "Finished running startup scripts.", 1, 10*time.Second)
		if !strings.Contains(serial, "reported ready") || !strings.Contains(serial, "startup-script exit status 0") {
			t.Errorf("%s's console lacks the script's output and status:\n%s", name, serial)
		}
		if got := c.exec(name, "hostname"); got != name+"\n" {
			t.Errorf("hostname in %s = %q", name, got)
		}
		if got := c.exec(name, "ip", "-4", "-o", "addr", "show", "dev", "eth0"); !strings.Contains(got, " "+ips[name]+"/20 ") {
			t.Errorf("%s's eth0 is %q, want the API's networkIP %s in %s", name, got, ips[name], subnetCIDR)
		}
	}

	// The files live in the emulator's backing directories, not on the machine's /home.
	fs := c.env.Server.Component(filestore.ComponentName).(*filestore.Service)
	dir, ok := fs.BackingDir(fsName, "home")
	if !ok {
		t.Fatalf("Filestore %s has no backing directory", fsName)
	}
	for _, name := range []string{"vm-a", "vm-b"} {
		if b, err := os.ReadFile(filepath.Join(dir, "from-"+name)); err != nil || string(b) != "written by "+name+"\n" {
			t.Errorf("share file of %s: %q %v", name, b, err)
		}
		if _, err := os.Stat("/home/from-" + name); err == nil {
			t.Errorf("%s wrote to the machine's /home", name)
		}
	}
	_, dataDir, _ := c.env.Emulator.LocalRuntimeConfig()
	ckpts, _ := filepath.Glob(filepath.Join(dataDir, "lustre", "*", "*", "data", "ckpt-*"))
	if len(ckpts) != 2 {
		t.Errorf("Lustre backing dir holds %v, want both VMs' checkpoints", ckpts)
	}

	runtimetest.TCPRoundTrip(t, keyedHosts{c.env.Runtime}, "vm-a", "vm-b", ips["vm-b"])
	runtimetest.TCPRoundTrip(t, keyedHosts{c.env.Runtime}, "vm-b", "vm-a", "vm-a")
	runtimetest.TCPRoundTrip(t, keyedHosts{c.env.Runtime}, "vm-a", "vm-b", "vm-b."+zone+".c."+project+".internal")
}

// keyedHosts reaches the runtime's hosts by VM name.
type keyedHosts struct{ *vmruntime.Runtime }

func (h keyedHosts) Command(vm string, argv ...string) (*exec.Cmd, error) {
	return h.Runtime.Command(key(vm), argv...)
}

func (h keyedHosts) Exec(ctx context.Context, vm string, argv ...string) ([]byte, []byte, error) {
	return h.Runtime.Exec(ctx, key(vm), argv...)
}

// bootCounter counts boots in a private directory that survives reboots and leaves a daemon running.
const bootCounter = `n=$(( $(cat /var/spool/boots 2>/dev/null || echo 0) + 1 ))
echo $n > /var/spool/boots
echo "boot number $n"
setsid -f sleep 1000 </dev/null >/dev/null 2>&1
`

// The VM lifecycle through the API is the host's: reset and stop/start rerun the startup script, delete kills
// every process (daemons included) and removes the host, and a failing script's error is on the console.
func TestLifecycleThroughTheAPI(t *testing.T) {
	c := startCloud(t)
	c.network()
	c.createVM("life", bootCounter)
	// The error the field fears most: a bootstrap whose storage is not there.
	c.createVM("broken", "set -e\necho mounting home\nmount -t nfs 10.20.0.99:/missing /home\necho never here\n")

	c.waitSerial("life", "boot number 1", 1, 15*time.Second)
	// A reset while the first boot's script still runs would cut it short: count from a finished boot.
	c.waitSerial("life", "Finished running startup scripts.", 1, 10*time.Second)
	op, err := c.instances.Reset(c.ctx, &computepb.ResetInstanceRequest{Project: project, Zone: zone, Instance: "life"})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		t.Fatalf("reset: %v", err)
	}
	c.waitSerial("life", "boot number 2", 1, 15*time.Second)
	c.waitSerial("life", "Finished running startup scripts.", 2, 10*time.Second)
	if got := c.exec("life", "bash", "-c", "pgrep -c -x sleep"); got != "1\n" {
		t.Errorf("after reset, the first boot's daemon survived: %q sleep processes", got)
	}

	op, err = c.instances.Stop(c.ctx, &computepb.StopInstanceRequest{Project: project, Zone: zone, Instance: "life"})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		t.Fatalf("stop: %v", err)
	}
	waitDead(t, c, "life", pidsOf(t, c, "life"))
	op, err = c.instances.Start(c.ctx, &computepb.StartInstanceRequest{Project: project, Zone: zone, Instance: "life"})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	c.waitSerial("life", "boot number 3", 1, 15*time.Second)
	c.waitSerial("life", "Finished running startup scripts.", 3, 10*time.Second)

	procs := procsOf(pidsOf(t, c, "life"))
	if len(procs) < 2 {
		t.Fatalf("life runs only %v", procs)
	}
	op, err = c.instances.Delete(c.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "life"})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for hasHost(c, "life") {
		if time.Now().After(deadline) {
			t.Fatal("the runtime still holds life's host after delete")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range procs {
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", p.pid)); err == nil && ns == p.netns {
			t.Errorf("process %d of the deleted VM still runs", p.pid)
		}
	}

	serial := c.waitSerial("broken", "Finished running startup scripts.", 1, 15*time.Second)
	for _, want := range []string{"startup-script: mounting home",
		"mount.nfs: mounting 10.20.0.99:/missing on /home failed: no READY Filestore instance exports 10.20.0.99:/missing",
		"startup-script exit status 32"} {
		if !strings.Contains(serial, want) {
			t.Errorf("broken's console lacks %q:\n%s", want, serial)
		}
	}
	if strings.Contains(serial, "never here") {
		t.Errorf("broken's script went on after its failure:\n%s", serial)
	}
}

func pidsOf(t *testing.T, c *cloud, name string) []int {
	t.Helper()
	pids, err := c.env.Runtime.Pids(key(name))
	if err != nil {
		t.Fatalf("pids of %s: %v", name, err)
	}
	return pids
}

// waitDead waits until the host runs no process (a stop is applied shortly after its operation completes).
func waitDead(t *testing.T, c *cloud, name string, before []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(pidsOf(t, c, name)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s still runs %v after stop (before: %v)", name, pidsOf(t, c, name), before)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func hasHost(c *cloud, name string) bool {
	for _, id := range c.env.Runtime.Hosts() {
		if id == key(name) {
			return true
		}
	}
	return false
}
