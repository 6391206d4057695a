package hypercompute.policy

rules["shielded_vm"] := {
	"environments": {"ml-staging", "ml-prod"},
	"summary": "training clusters keep shielded_vm = true (Secure Boot, vTPM and integrity monitoring)",
}

deny contains violation("shielded_vm", rc, msg) if {
	applies("shielded_vm")
	some rc in changes("hypercompute_training_cluster")
	not unknown(rc, ["shielded_vm"])
	value := after(rc, ["shielded_vm"])
	value != true
	msg := sprintf(
		"shielded_vm = %s turns off Secure Boot, vTPM and integrity monitoring on the cluster's VMs; %s runs Shielded VMs only: set shielded_vm = true",
		[json.marshal(value), environment],
	)
}

deny contains violation("shielded_vm", rc, unknown_msg("shielded_vm")) if {
	applies("shielded_vm")
	some rc in changes("hypercompute_training_cluster")
	unknown(rc, ["shielded_vm"])
}
