# A recipe job is imported by its ID, the cluster's ID followed by /jobs/{name}, or as
# {cluster}/{name} in the provider's project and zone; the spec is read back from the job's key on
# the cluster's controller.
terraform import hypercompute_recipe_job.pretrain projects/ml-prod-123456/zones/us-central1-a/clusters/prod/jobs/tiny-gpt-pretrain
