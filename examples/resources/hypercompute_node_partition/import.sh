# A partition is imported by its ID, the cluster's ID followed by /partitions/{name}; everything
# else is read back from the controller and the partition's instance template.
terraform import hypercompute_node_partition.a3mega projects/ml-prod-123456/zones/us-central1-a/clusters/prod/partitions/a3mega
