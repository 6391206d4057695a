package slurm

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// UpdateNodeScontrol changes a node's state with `scontrol update`, for REST
// API versions without node updates (v0.0.38; see Client.UpdateNode). Like
// every Slurm command it needs SLURM_CONF in the environment and runs with
// the process's own Slurm identity (munge), so the agent runs it as root or
// SlurmUser on the controller.
func UpdateNodeScontrol(ctx context.Context, name string, u NodeUpdate) error {
	state, err := u.validate()
	if err != nil {
		return err
	}
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return fmt.Errorf("slurm: bad node name %q", name)
	}
	args := []string{"update", "nodename=" + name, "state=" + strings.ToLower(state)}
	if u.Reason != "" {
		args = append(args, "reason="+u.Reason)
	}
	out, err := exec.CommandContext(ctx, scontrolBin, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("slurm: scontrol %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
