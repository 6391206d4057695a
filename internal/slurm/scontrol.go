package slurm

import "context"

// UpdateNodeScontrol changes a node's state with `scontrol update`, for REST
// API versions without node updates (v0.0.38; see Client.UpdateNode), with
// the environment's SLURM_CONF (CLI.UpdateNodes).
func UpdateNodeScontrol(ctx context.Context, name string, u NodeUpdate) error {
	return CLI{}.UpdateNodes(ctx, name, u)
}
