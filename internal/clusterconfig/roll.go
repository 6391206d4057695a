package clusterconfig

// A rolling replacement is how static nodes come to run a new node configuration (the cluster's
// agent build, mounts or controller changed: NodeConfigHash) without the partition going down:
// the provider drains a batch of them with the partition's Drain (Reason RollReason), waits for
// their jobs up to the partition's job timeout (then, as declared, fails or sets Requeue, which
// has the agent requeue the jobs so they run elsewhere), deletes and recreates the VMs from the
// new template, waits until they registered, and goes on with the next batch. Nodes drained for
// a roll are returned to service once no partition's Drain names them any more.
const RollReason = "hypercompute: rolling replacement"

// DrainReasonOf is the reason Slurm gets for a drain.
func DrainReasonOf(d Drain) string {
	if d.Reason != "" {
		return d.Reason
	}
	return DrainReason
}

// OwnDrainReason reports whether a node's reason is one the agent gave for a partition's drain,
// so a node it drained and no partition asks for any more is returned to service, while one an
// administrator or a health check drained is left alone.
func OwnDrainReason(reason string) bool {
	return reason == DrainReason || reason == RollReason
}
