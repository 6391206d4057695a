# A Managed Lustre instance is imported by its ID, projects/{project}/locations/{zone}/instances/{name};
# {project}/{zone}/{name} and {zone}/{name} (in the provider's project) work too. An imported
# instance starts with deletion_protection = true.
terraform import hypercompute_lustre.data projects/ml-prod-123456/locations/us-central1-b/instances/ml-dev-data
