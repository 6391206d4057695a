# /home for a training cluster: a Zonal instance on the cluster network's private service access
# range, protected against deletion. Mount it on every node with
#   mount -t nfs -o <mount_options> <mount_source> /home
resource "hypercompute_network" "cluster" {
  name = "ml-dev"

  subnet = {
    cidr = "10.0.0.0/20"
  }
}

resource "hypercompute_filestore" "home" {
  name     = "ml-dev-home"
  location = "us-central1-a"
  tier     = "ZONAL"
  protocol = "NFS_V4_1"

  share = {
    name        = "home"
    capacity_gb = 1024 # grow in place later: 1024-9984 in steps of 256
  }

  network = {
    name              = hypercompute_network.cluster.name
    reserved_ip_range = hypercompute_network.cluster.private_service_access.range_name
  }

  labels = {
    purpose = "home"
  }

  deletion_protection        = true
  deletion_protection_reason = "home directories of the ml team"
}

output "home_mount" {
  value = "${hypercompute_filestore.home.mount_source} (${hypercompute_filestore.home.mount_options})"
}

# A small Basic HDD share reached by direct peering on a /29 of your choice.
resource "hypercompute_filestore" "scratch" {
  name = "ml-dev-scratch"
  tier = "BASIC_HDD"

  share = {
    name        = "scratch"
    capacity_gb = 1024
  }

  network = {
    name              = hypercompute_network.cluster.self_link
    connect_mode      = "DIRECT_PEERING"
    reserved_ip_range = "10.200.0.0/29"
  }

  deletion_protection = false
}
