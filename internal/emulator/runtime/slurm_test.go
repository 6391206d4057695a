//go:build linux

package vmruntime

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Three hosts form a real Slurm cluster through their startup scripts alone;
// srun on the controller runs on both compute hosts.
func TestSlurmClusterAcrossHosts(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "srun"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("skipping: %s not installed (run scripts/install-deps.sh)", bin)
		}
	}
	share := t.TempDir()
	key := make([]byte, 1024)
	rand.Read(key)
	conf, err := os.ReadFile("testdata/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	// cgroup v1 (this machine kind): the production plugins; elsewhere the
	// fallback that needs no cgroups.
	_, err = os.Stat("/sys/fs/cgroup/freezer/cgroup.procs")
	cgroupV1 := err == nil
	proctrack, task := "proctrack/linuxproc", "task/none"
	if cgroupV1 {
		proctrack, task = "proctrack/cgroup", "task/cgroup,task/affinity"
	}
	conf = []byte(strings.NewReplacer("@PROCTRACK@", proctrack, "@TASK@", task).Replace(string(conf)))
	files := map[string][]byte{
		"munge.key":   key,
		"slurm.conf":  conf,
		"cgroup.conf": []byte("CgroupPlugin=cgroup/v1\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(share, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile("testdata/slurm-startup.sh")
	if err != nil {
		t.Fatal(err)
	}
	r := newTestRuntime(t, Config{ResolveStorage: func(fstype, source string) (string, error) {
		if fstype == "nfs" && source == "10.7.0.100:/share" {
			return share, nil
		}
		return "", fmt.Errorf("no share %s", source)
	}})
	hosts := []struct{ name, ip string }{{"ctl", "10.7.0.10"}, {"n1", "10.7.0.11"}, {"n2", "10.7.0.12"}}
	for _, h := range hosts {
		bootOK(t, r, HostSpec{Name: h.name, Network: "slurm-vpc", IP: h.ip, StartupScript: string(script)})
	}
	for _, h := range hosts {
		if code := waitStartup(t, r, h.name); code != 0 {
			serial, _, _ := r.SerialOutput(h.name, 0)
			t.Fatalf("%s startup exit %d:\n%s", h.name, code, serial)
		}
	}
	slurm := func(cmd string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, stderr, err := r.Exec(ctx, "ctl", "bash", "-c", "SLURM_CONF=/etc/slurm/slurm.conf "+cmd)
		if err != nil {
			return "", fmt.Errorf("%s: %v: %s", cmd, err, stderr)
		}
		return string(out), nil
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := slurm("sinfo -h -N -o '%N %T'")
		if err == nil && strings.Count(out, " idle") == 2 {
			break
		}
		if time.Now().After(deadline) {
			logs, _, _ := r.Exec(context.Background(), "ctl", "tail", "-n", "30", "/var/log/slurm/slurmctld.log")
			t.Fatalf("nodes not idle: %q %v\nslurmctld.log:\n%s", out, err, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, err := slurm("srun -N2 hostname | sort")
	if err != nil {
		t.Fatal(err)
	}
	if out != "n1\nn2\n" {
		t.Errorf("srun -N2 hostname printed %q, want n1 and n2", out)
	}
	if cgroupV1 {
		// slurmd built its cgroups inside the host's own cgroup, not on the
		// machine's hierarchy where same-named nodes of another cluster would
		// collide.
		execOK(t, r, "n1", "test", "-d", "/sys/fs/cgroup/freezer/slurm_n1")
		if _, err := os.Stat("/sys/fs/cgroup/freezer/slurm_n1"); err == nil {
			t.Errorf("slurmd's cgroup landed on the machine's hierarchy")
		}
	}
	// Each host keeps its own Slurm files; the machine's stay untouched.
	if _, err := os.Stat("/etc/slurm/slurm.conf"); err == nil {
		t.Errorf("a host wrote the machine's /etc/slurm/slurm.conf")
	}
}
