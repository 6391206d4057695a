# A network is imported by its ID; the subnet, firewall rules, router, NAT, private service
# access and GPU networks it owns are found from their derived names. Import is also how a
# configuration takes over a network another state or tool made: a create refuses any existing
# network of its name except one its own earlier, interrupted create left half-made.
terraform import hypercompute_network.cluster projects/ml-prod-123456/global/networks/ml-dev
