# How partitions obtain their VMs: production GPU capacity is reserved or queued for (flex-start),
# and Spot capacity, which Compute may take back at any time, only where the owners said their jobs
# may be preempted.
package hypercompute.policy

rules["gpu_capacity"] := {
	"environments": {"ml-prod"},
	"summary": "GPU partitions consume a reservation or flex-start (or Spot, when labelled preemptible = \"true\"), never on-demand capacity",
}

rules["spot_preemptible"] := {
	"environments": {"ml-prod"},
	"summary": "Spot partitions carry the label preemptible = \"true\"",
}

# A partition is marked preemptible by this label on the partition (its `labels`, which its VMs
# carry), since the resource has no attribute of its own for it.
preemptible_label := "preemptible"

# An unset provisioning model is the resource's default, on-demand.
provisioning_model(rc) := model if {
	model := after(rc, ["provisioning", "model"])
	model != null
} else := "standard"

capacity_models := {"reservation", "flex_start", "spot"}

gpu_partition(rc) if after(rc, ["machine_type"]) in data.hypercompute.context.gpu_machine_types

deny contains violation("gpu_capacity", rc, msg) if {
	applies("gpu_capacity")
	some rc in changes("hypercompute_node_partition")
	gpu_partition(rc)
	not unknown(rc, ["provisioning", "model"])
	model := provisioning_model(rc)
	not model in capacity_models
	msg := sprintf(
		"GPU partition on %s uses provisioning.model = %q (on-demand capacity, which stockouts take away); in %s GPU partitions consume a reservation (model \"reservation\") or flex-start (\"flex_start\"), or Spot when labelled %s = \"true\"",
		[after(rc, ["machine_type"]), model, environment, preemptible_label],
	)
}

deny contains violation("gpu_capacity", rc, unknown_msg("machine_type")) if {
	applies("gpu_capacity")
	some rc in changes("hypercompute_node_partition")
	unknown(rc, ["machine_type"])
	not provisioning_model(rc) in capacity_models
}

deny contains violation("gpu_capacity", rc, unknown_msg("provisioning.model")) if {
	applies("gpu_capacity")
	some rc in changes("hypercompute_node_partition")
	gpu_partition(rc)
	unknown(rc, ["provisioning", "model"])
}

deny contains violation("spot_preemptible", rc, msg) if {
	applies("spot_preemptible")
	some rc in changes("hypercompute_node_partition")
	not unknown(rc, ["provisioning", "model"])
	provisioning_model(rc) == "spot"
	not unknown(rc, ["labels", preemptible_label])
	after(rc, ["labels", preemptible_label]) != "true"
	msg := sprintf(
		"provisioning.model = \"spot\" but the partition is not labelled %s = \"true\"; in %s Spot VMs, which Compute may preempt at any time, are only for partitions whose jobs may be preempted: add the label, or use a reservation or flex-start",
		[preemptible_label, environment],
	)
}

deny contains violation("spot_preemptible", rc, unknown_msg("provisioning.model")) if {
	applies("spot_preemptible")
	some rc in changes("hypercompute_node_partition")
	unknown(rc, ["provisioning", "model"])
}

deny contains violation("spot_preemptible", rc, unknown_msg(sprintf("labels.%s", [preemptible_label]))) if {
	applies("spot_preemptible")
	some rc in changes("hypercompute_node_partition")
	provisioning_model(rc) == "spot"
	unknown(rc, ["labels", preemptible_label])
}
