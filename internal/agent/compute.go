package agent

import (
	"context"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// compute runs a configless slurmd that fetches slurm.conf from the
// controller.
type compute struct {
	*host
	// supervised says whether systemd restarts slurmd; without it the
	// agent starts slurmd itself and tells slurmctld this is a fresh boot.
	supervised bool
	// bootMarker records that slurmd was started during this boot.
	bootMarker string
	// notices follows the host's stop notices once slurmd runs (notices.go).
	notices noticeFollower
}

func newCompute(h *host) *compute {
	return &compute{host: h, supervised: systemdRunning(), bootMarker: "/run/hypercompute/slurmd-started"}
}

func (cp *compute) reconcile(ctx context.Context, n cc.Node, _ map[string]string) error {
	if err := cp.mountShared(ctx, n); err != nil {
		return err
	}
	cp.rep.progress(ctx, cc.PhaseConfiguring)
	if err := cp.joinMunge(ctx, n); err != nil {
		return err
	}
	l := n.Layout.WithDefaults()
	for _, dir := range []string{l.SlurmdSpoolDir, path.Dir(l.SlurmdLogFile), path.Dir(l.SlurmdPidFile)} {
		if err := ensureDir(dir, 0o755, rootAccount); err != nil {
			return err
		}
	}
	if err := syncScripts(n.Mounts, l); err != nil {
		return err
	}
	// The user's script runs before slurmd: a node whose script fails takes no job.
	if err := cp.runStartupScript(ctx, n.StartupScript, os.Stderr); err != nil {
		return err
	}
	name, err := cp.md.InstanceName(ctx)
	if err != nil {
		return fmt.Errorf("reading this VM's name from the metadata server: %w", err)
	}
	d := slurmdDaemon(n, name, cp.firstStart())
	if !cp.sup.running(d) {
		if err := cp.sup.start(ctx, d); err != nil {
			return fmt.Errorf("starting slurmd: %w", err)
		}
		if err := os.WriteFile(cp.bootMarker, nil, 0o644); err != nil {
			return err
		}
	}
	if err := cp.waitConfig(ctx, d, l); err != nil {
		return err
	}
	cp.health(ctx, n, l, name)
	cp.notices.start(ctx, cp.host, name, l)
	cp.rep.ready(ctx)
	return nil
}

func (cp *compute) firstStart() bool {
	if cp.supervised {
		return false
	}
	_, err := os.Stat(cp.bootMarker)
	return os.IsNotExist(err)
}

// slurmdDaemon is a configless slurmd named after this VM. boot (-b) tells
// slurmctld the node just booted: a powered-up cloud node must register
// as rebooted, and where the kernel's boot time is not the VM's (the local
// cloud) only -b says so. It is passed once per boot, never on a restart
// with jobs running.
func slurmdDaemon(n cc.Node, name string, boot bool) daemon {
	server := n.Controller.Hostname
	if n.Controller.Address != "" {
		server = n.Controller.Address
	}
	port := n.SlurmctldPort
	if port == 0 {
		port = cc.DefaultSlurmctldPort
	}
	argv := []string{"/usr/sbin/slurmd", "-D", "--conf-server", server + ":" + strconv.Itoa(port), "-N", name}
	if boot {
		argv = append(argv, "-b")
	}
	return daemon{Name: "slurmd", Argv: argv, Delegate: true, KeepChildren: true}
}

// waitConfig waits until slurmd fetched the configuration from the
// controller, which proves munge, the network and the controller work.
func (cp *compute) waitConfig(ctx context.Context, d daemon, l cc.Layout) error {
	caches := slurmdConfCaches(l)
	deadline := time.Now().Add(cp.keyWait)
	for {
		for _, c := range caches {
			if _, err := os.Stat(c); err == nil {
				return nil
			}
		}
		if !cp.sup.running(d) {
			desc := cp.sup.describe(d)
			// A configless slurmd exits when slurmctld does not answer yet (a controller still
			// starting, or restarting for a new node set): that is no fault of this node, so
			// start it again until the wait is over instead of failing the boot.
			if strings.Contains(desc, "Unable to contact slurm controller") && time.Now().Before(deadline) {
				if err := sleepCtx(ctx, 2*time.Second); err != nil {
					return err
				}
				if err := cp.sup.start(ctx, d); err != nil {
					return fmt.Errorf("starting slurmd again: %w", err)
				}
				continue
			}
			return fmt.Errorf("slurmd stopped before it fetched its configuration from %s: %s", d.Argv[3], desc)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slurmd did not fetch its configuration from the controller %s within %s; %s", d.Argv[3], cp.keyWait, cp.sup.describe(d))
		}
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}

// syncScripts installs the controller's prolog and epilog scripts, which
// configless slurmd (Slurm 22.05) does not fetch.
func syncScripts(m cc.Mounts, l cc.Layout) error {
	shared := path.Join(m.SharedDir(), cc.SharedSlurmDir)
	for sub, dir := range map[string]string{"prolog.d": l.PrologDir, "epilog.d": l.EpilogDir} {
		entries, err := os.ReadDir(path.Join(shared, sub))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		want := map[string]bool{}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			body, err := os.ReadFile(path.Join(shared, sub, e.Name()))
			if err != nil {
				return err
			}
			want[e.Name()] = true
			if _, err := writeFile(path.Join(dir, e.Name()), body, 0o755, rootAccount); err != nil {
				return err
			}
		}
		// Scripts the cluster no longer has stop running here too; only
		// the cluster's own (50-cluster-*) are managed, so a health
		// policy's scripts are left alone.
		for _, name := range []string{cc.ClusterPrologScript, cc.ClusterEpilogScript} {
			if !want[name] {
				os.Remove(path.Join(dir, name))
			}
		}
	}
	return nil
}
