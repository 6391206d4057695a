package hypercompute.policy

rules["no_public_ips"] := {
	"environments": {"ml-dev", "ml-staging", "ml-prod"},
	"summary": "training clusters keep enable_public_ips = false (no external IP on any controller, login or node VM)",
}

deny contains violation("no_public_ips", rc, msg) if {
	applies("no_public_ips")
	some rc in changes("hypercompute_training_cluster")
	after(rc, ["enable_public_ips"]) == true
	msg := sprintf(
		"enable_public_ips = true gives the controller, login and node VMs external IPs; in %s VMs reach the internet through the network's Cloud NAT and users connect through IAP: set enable_public_ips = false",
		[environment],
	)
}

deny contains violation("no_public_ips", rc, unknown_msg("enable_public_ips")) if {
	applies("no_public_ips")
	some rc in changes("hypercompute_training_cluster")
	unknown(rc, ["enable_public_ips"])
}
