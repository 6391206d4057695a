package clusterconfig

// reasonOverride is why a key whose product default slurm.extra may replace still counts as
// managed: the provider accepts the replacement, production policy refuses it.
const reasonOverride = "hypercompute writes its own value, which the cluster is tested with, and slurm.extra would replace it"

// ManagedSlurmKeys lists the slurm.conf keys hypercompute writes itself, keyed by Slurm's spelling,
// each with the reason: the keys slurm.extra may never set (ValidateExtraSlurmSettings refuses them)
// and those whose product default it may replace. Comma lists the product fills and users extend
// (SchedulerParameters ...) are not in it. The policies (policies/, internal/policy) read this list,
// so it is written down once.
func ManagedSlurmKeys() map[string]string { return managedKeys(globalKeySpecs) }

// ManagedPartitionKeys is ManagedSlurmKeys for a partition's slurm.extra (PartitionName settings).
func ManagedPartitionKeys() map[string]string { return managedKeys(partitionKeySpecs) }

func managedKeys(specs map[string]keySpec) map[string]string {
	out := map[string]string{}
	for k, spec := range specs {
		switch spec.rule {
		case keyOwned:
			out[k] = spec.reason
		case keyOverride:
			out[k] = reasonOverride
		}
	}
	return out
}
