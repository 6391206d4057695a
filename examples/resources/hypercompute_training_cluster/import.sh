# A training cluster is imported by its ID, projects/{project}/zones/{zone}/clusters/{name};
# {project}/{zone}/{name}, {zone}/{name} and {name} (the provider's project and zone) work too.
# Everything else is read from the controller VM and the cluster configuration in its metadata.
terraform import hypercompute_training_cluster.ml projects/ml-prod-123456/zones/us-central1-a/clusters/ml-dev
