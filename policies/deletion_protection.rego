package hypercompute.policy

rules["deletion_protection"] := {
	"environments": {"ml-prod"},
	"summary": "Filestore, Managed Lustre, buckets and training clusters have deletion_protection = true",
}

protected_types := {
	"hypercompute_filestore",
	"hypercompute_lustre",
	"hypercompute_bucket",
	"hypercompute_training_cluster",
}

deny contains violation("deletion_protection", rc, msg) if {
	applies("deletion_protection")
	some rc in judged
	rc.type in protected_types
	not unknown(rc, ["deletion_protection"])
	value := after(rc, ["deletion_protection"])
	value != true
	msg := sprintf(
		"deletion_protection = %s: in %s storage and clusters must refuse deletion; set deletion_protection = true",
		[json.marshal(value), environment],
	)
}

deny contains violation("deletion_protection", rc, unknown_msg("deletion_protection")) if {
	applies("deletion_protection")
	some rc in judged
	rc.type in protected_types
	unknown(rc, ["deletion_protection"])
}
