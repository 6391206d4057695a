package hypercompute.policy

rules["slurm_managed_keys"] := {
	"environments": {"ml-staging", "ml-prod"},
	"summary": "slurm.extra of clusters and partitions sets no slurm.conf key hypercompute manages",
}

# The keys come from the provider (clusterconfig.ManagedSlurmKeys and ManagedPartitionKeys): the
# ones it refuses in slurm.extra, so a plan made by another build cannot slip them in, and the
# product defaults slurm.extra may replace, which production keeps.
managed_keys := {
	"hypercompute_training_cluster": {"keys": data.hypercompute.context.managed_slurm_keys.cluster, "what": "slurm.conf key"},
	"hypercompute_node_partition": {"keys": data.hypercompute.context.managed_slurm_keys.partition, "what": "PartitionName setting"},
}

deny contains violation("slurm_managed_keys", rc, msg) if {
	applies("slurm_managed_keys")
	some type, managed in managed_keys
	some rc in changes(type)
	not unknown(rc, ["slurm", "extra"])
	some key, _ in object.get(rc.change.after, ["slurm", "extra"], {})

	# slurm.conf keys are case-insensitive.
	some name, reason in managed.keys
	lower(trim_space(key)) == lower(name)
	msg := sprintf(
		"slurm.extra sets %s, a %s hypercompute manages: %s; in %s slurm.extra overrides no managed key, remove it",
		[key_shown(key, name), managed.what, reason, environment],
	)
}

# key_shown names the key as given, and Slurm's spelling when that differs.
key_shown(key, name) := sprintf("%q", [key]) if key == name

key_shown(key, name) := sprintf("%q (%s)", [key, name]) if key != name

deny contains violation("slurm_managed_keys", rc, unknown_msg("slurm.extra")) if {
	applies("slurm_managed_keys")
	some type, _ in managed_keys
	some rc in changes(type)
	unknown(rc, ["slurm", "extra"])
}
