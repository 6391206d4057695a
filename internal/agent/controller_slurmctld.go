package agent

// Running slurmctld: start, restart, reconfigure and the wait until it answers.

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func slurmctldDaemon(l cc.Layout) daemon {
	return daemon{
		Name: "slurmctld",
		Argv: []string{"/usr/sbin/slurmctld", "-D", "-f", path.Join(l.ConfDir, cc.SlurmConfFile)},
		User: l.SlurmUser,
	}
}

func slurmEnv(l cc.Layout) []string {
	return []string{"SLURM_CONF=" + path.Join(l.ConfDir, cc.SlurmConfFile)}
}

// startSlurmctld starts slurmctld and waits until it answers.
func (c *controller) startSlurmctld(ctx context.Context, l cc.Layout) error {
	d := slurmctldDaemon(l)
	if err := c.sup.start(ctx, d); err != nil {
		return fmt.Errorf("starting slurmctld: %w; %s", err, slurmctldLogTail(l))
	}
	return c.waitSlurmctld(ctx, l, 60*time.Second)
}

// restartSlurmctld restarts slurmctld on the new files, for changes a reconfigure cannot take.
func (c *controller) restartSlurmctld(ctx context.Context, l cc.Layout) error {
	c.log.Info("the node set changed: restarting slurmctld instead of reconfiguring")
	if err := c.sup.restart(ctx, slurmctldDaemon(l)); err != nil {
		return fmt.Errorf("restarting slurmctld: %w; %s", err, slurmctldLogTail(l))
	}
	return c.waitSlurmctld(ctx, l, 60*time.Second)
}

// sameNodeDefinitions reports whether two slurm.conf files define the same nodes (NodeName and
// NodeSet lines), the one part of a configuration Slurm 22.05 cannot reconfigure in place.
func sameNodeDefinitions(a, b []byte) bool {
	nodes := func(conf []byte) []string {
		var out []string
		for _, line := range strings.Split(string(conf), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "NodeName=") || strings.HasPrefix(line, "NodeSet=") {
				out = append(out, line)
			}
		}
		return out
	}
	return slices.Equal(nodes(a), nodes(b))
}

// reconfigure makes the running slurmctld read the new files. A
// reconfigure that kills slurmctld (which validation exists to prevent) is
// reported with slurmctld's last words.
func (c *controller) reconfigure(ctx context.Context, l cc.Layout) error {
	if err := slurmCLI(l).Reconfigure(ctx); err != nil {
		return fmt.Errorf("scontrol reconfigure failed: %w; %s", err, slurmctldLogTail(l))
	}
	return c.waitSlurmctld(ctx, l, 30*time.Second)
}

func (c *controller) waitSlurmctld(ctx context.Context, l cc.Layout, timeout time.Duration) error {
	d := slurmctldDaemon(l)
	deadline := time.Now().Add(timeout)
	for {
		out, err := slurmCLI(l).Ping(ctx)
		if err == nil && strings.Contains(out, "is UP") {
			return nil
		}
		if !c.sup.running(d) {
			return fmt.Errorf("slurmctld stopped: %s; %s", slurmctldLogTail(l), c.sup.describe(d))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slurmctld did not answer scontrol ping within %s (last answer: %s); %s", timeout, firstNonEmpty(out, errString(err)), slurmctldLogTail(l))
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func slurmctldLogTail(l cc.Layout) string {
	b, err := os.ReadFile(l.SlurmctldLogFile)
	if err != nil || len(b) == 0 {
		return "slurmctld's log " + l.SlurmctldLogFile + " is empty"
	}
	return "slurmctld's log ends: " + lastLines(string(b), 5)
}
