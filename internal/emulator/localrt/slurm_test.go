package localrt

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
)

// slurmConf is the cluster's configuration, shared through the Filestore share. @PROCTRACK@ and @TASK@ are the
// cgroup plugins where cgroup v1 is mounted (this project's machines), the no-cgroup ones elsewhere.
const slurmConf = `ClusterName=localrt
SlurmctldHost=ctl
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MailProg=/bin/true
ProctrackType=@PROCTRACK@
TaskPlugin=@TASK@
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
NodeName=n1,n2 CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
`

// slurmScript configures a VM from the share alone: munge with the cluster's key, slurm.conf, then the VM's
// daemon by its name. The controller waits for both nodes and reports `srun -N2 hostname` as a guest
// attribute, as the production agent reports through guest attributes.
const slurmScript = `set -euo pipefail
export SLURM_CONF=/etc/slurm/slurm.conf
mount -t nfs %s:/home /home
mkdir -p /var/log/munge /var/lib/munge /run/munge /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
install -m 400 -o root -g root /home/cluster/munge.key /etc/munge/munge.key
chown root:root /etc/munge /var/log/munge /var/lib/munge /run/munge
munged
install -m 644 /home/cluster/slurm.conf /home/cluster/cgroup.conf /etc/slurm/
case $(hostname) in
ctl)
  slurmctld
  for i in $(seq 300); do
    [ "$(sinfo -h -N -t idle -o %%N | sort -u | wc -l)" = 2 ] && break
    sleep 0.1
  done
  sinfo -N
  out=$(srun -N2 hostname | sort | paste -sd ' ')
  echo "srun printed: $out"
  curl -sSf -X PUT -H 'Metadata-Flavor: Google' --data "$out" \
    http://metadata.google.internal/computeMetadata/v1/instance/guest-attributes/hc/srun
  ;;
*)
  slurmd
  ;;
esac
`

// A controller VM running slurmctld and two VMs running slurmd, configured by their startup scripts from a
// Filestore share, form a real Slurm cluster: srun -N2 hostname prints both node VMs' names.
func TestSlurmClusterOfThreeVMs(t *testing.T) {
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "srun", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("skipping: %s not installed (run scripts/install-deps.sh)", bin)
		}
	}
	c := startCloud(t)
	c.network()
	c.privateServiceAccess()
	fsName, fsIP := c.createFilestore("home", "home")

	// The operator puts the cluster's secrets and configuration on the share, as a bootstrap would.
	share, ok := c.env.Server.Component(filestore.ComponentName).(*filestore.Service).BackingDir(fsName, "home")
	if !ok {
		t.Fatalf("Filestore %s has no backing directory", fsName)
	}
	proctrack, task, cgroupConf := "proctrack/linuxproc", "task/none", "CgroupPlugin=autodetect\n"
	if _, err := os.Stat("/sys/fs/cgroup/freezer/cgroup.procs"); err == nil {
		proctrack, task, cgroupConf = "proctrack/cgroup", "task/cgroup,task/affinity", "CgroupPlugin=cgroup/v1\n"
	}
	mungeKey := make([]byte, 1024)
	rand.Read(mungeKey)
	files := map[string]string{
		"munge.key":   string(mungeKey),
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

	script := fmt.Sprintf(slurmScript, fsIP)
	for _, name := range []string{"n1", "n2", "ctl"} {
		c.createVM(name, script)
	}
	for _, name := range []string{"n1", "n2"} {
		serial := c.waitSerial(name, "Finished running startup scripts.", 1, 20*time.Second)
		if !strings.Contains(serial, "startup-script exit status 0") {
			t.Fatalf("%s's startup script failed:\n%s", name, serial)
		}
	}
	got := c.waitAttr("ctl", "hc/srun", 40*time.Second)
	if got != "n1 n2" {
		log := c.exec("ctl", "tail", "-n", "30", "/var/log/slurm/slurmctld.log")
		t.Fatalf("srun -N2 hostname on the controller printed %q, want \"n1 n2\"; console:\n%s\nslurmctld.log:\n%s", got, c.serial("ctl"), log)
	}
	// An operator's shell on the controller (SLURM_CONF set, as always) sees the same cluster.
	out := c.exec("ctl", "bash", "-c", "SLURM_CONF=/etc/slurm/slurm.conf srun -N2 hostname | sort")
	if out != "n1\nn2\n" {
		t.Errorf("srun -N2 hostname from a shell on ctl printed %q", out)
	}
	if _, err := os.Stat("/etc/slurm/slurm.conf"); err == nil {
		t.Errorf("a VM wrote the machine's /etc/slurm/slurm.conf")
	}
}
