# A network is imported by its ID; the subnet, firewall rules, router, NAT, private service
# access and GPU networks it owns are found from their derived names.
terraform import hypercompute_network.cluster projects/ml-prod-123456/global/networks/ml-dev
