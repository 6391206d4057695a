package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// HealthCheck runs this node's checks for a schedule (slurmd's HealthCheckProgram, the prolog and
// epilog, the boot, or on demand) and drains the node with the first failed check's reason. It
// returns an error when a check failed, so a prolog's exit status fails the job's launch too.
func HealthCheck(ctx context.Context, schedule string, stdout io.Writer) error {
	if !slices.Contains(cc.HealthSchedules, schedule) {
		return fmt.Errorf("unknown schedule %q; use %s", schedule, strings.Join(cc.HealthSchedules, ", "))
	}
	if os.Getenv("PATH") == "" {
		// slurmd runs HealthCheckProgram with an empty environment.
		os.Setenv("PATH", strings.Join(toolDirs, ":"))
	}
	md := NewMetadata()
	attrs, err := md.Attributes(ctx)
	if err != nil {
		return err
	}
	n, err := NodeConfig(attrs)
	if err != nil {
		return err
	}
	name := os.Getenv("SLURMD_NODENAME")
	if name == "" {
		if name, err = md.InstanceName(ctx); err != nil {
			return err
		}
	}
	failures, skipped, err := runNodeHealth(ctx, n, schedule)
	for _, s := range skipped {
		fmt.Fprintf(stdout, "%s: %s check %s: %s\n", name, schedule, s.Check, s.Why)
	}
	if err == errNoHealthPlan {
		return nil
	}
	if err != nil {
		return err
	}
	if len(failures) == 0 {
		fmt.Fprintf(stdout, "%s: %s checks passed\n", name, schedule)
		return nil
	}
	f := failures[0]
	reason := cc.HealthDrainReason(f.Check, f.Evidence)
	if err := drainSelf(ctx, n.Layout.WithDefaults(), name, reason); err != nil {
		return fmt.Errorf("%s; and draining the node failed: %w", reason, err)
	}
	return fmt.Errorf("%s", reason)
}

// runNodeHealth runs the node's partition's checks of a schedule from the published plan.
// Checks that did not apply come back as skipped, for the output and the log.
func runNodeHealth(ctx context.Context, n cc.Node, schedule string) ([]healthFailure, []healthSkip, error) {
	plan, err := readHealthPlan(n.Mounts)
	if err != nil {
		return nil, nil, err
	}
	ph, ok := plan.Partitions[n.Partition]
	if !ok {
		return nil, nil, errNoHealthPlan
	}
	r := newHealthRunner(ph.GPUs)
	failures := r.run(ctx, ph.ChecksFor(schedule))
	recordCheckRuns(StateDir, schedule, r.results)
	return failures, r.skipped, nil
}

func healthPlanPath(m cc.Mounts) string {
	return path.Join(m.SharedDir(), cc.SharedSlurmDir, cc.SharedHealthPlan)
}

func readHealthPlan(m cc.Mounts) (cc.HealthPlan, error) {
	var plan cc.HealthPlan
	b, err := os.ReadFile(healthPlanPath(m))
	if os.IsNotExist(err) {
		return plan, errNoHealthPlan
	}
	if err != nil {
		return plan, err
	}
	if err := json.Unmarshal(b, &plan); err != nil {
		return plan, fmt.Errorf("%s: %w", healthPlanPath(m), err)
	}
	return plan, nil
}

// drainSelf drains this node in Slurm with a health reason. Compute nodes run configless, so
// scontrol reads slurmd's cached configuration. A node someone else drained (an administrator, a
// scale-down) keeps that reason: the health reason would hand it to the controller's repairs,
// which return nodes to service.
func drainSelf(ctx context.Context, l cc.Layout, node, reason string) error {
	cli := slurm.CLI{Run: runCommand}
	for _, c := range slurmdConfCaches(l) {
		if _, err := os.Stat(c); err == nil {
			cli.Conf = c
			break
		}
	}
	if nodes, err := cli.Nodes(ctx, node); err == nil {
		n := nodes[node]
		if strings.HasPrefix(n.State, "drain") && n.Reason != "" && !strings.HasPrefix(n.Reason, cc.HealthDrainPrefix) {
			return nil
		}
	}
	return cli.UpdateNodes(ctx, node, slurm.NodeUpdate{State: "DRAIN", Reason: reason})
}

// bootHealth runs the boot checks once slurmd registered after a boot; a failure drains the node
// before it takes a job.
func (cp *compute) bootHealth(ctx context.Context, n cc.Node, name string) {
	if _, err := os.Stat(cp.bootMarker + ".health"); err == nil {
		return
	}
	failures, skipped, err := runNodeHealth(ctx, n, cc.ScheduleBoot)
	for _, s := range skipped {
		cp.log.Info("boot health check skipped", "node", name, "check", s.Check, "why", s.Why)
	}
	if err != nil && err != errNoHealthPlan {
		cp.log.Warn("boot health checks", "error", err.Error())
		return
	}
	os.WriteFile(cp.bootMarker+".health", nil, 0o644)
	if len(failures) > 0 {
		f := failures[0]
		reason := cc.HealthDrainReason(f.Check, f.Evidence)
		cp.log.Warn("boot health check failed", "node", name, "reason", reason)
		if err := drainSelf(ctx, n.Layout.WithDefaults(), name, reason); err != nil {
			cp.log.Warn("draining after a failed boot check", "error", err.Error())
		}
	}
}
