# A Filestore instance is imported by its ID, projects/{project}/locations/{location}/instances/{name};
# {project}/{location}/{name} and {location}/{name} (in the provider's project) work too.
terraform import hypercompute_filestore.home projects/ml-prod-123456/locations/us-central1-a/instances/ml-dev-home
