# A health policy is imported by its ID, the cluster's ID followed by /healthPolicies/{name}; the
# policy is read back from the controller's metadata.
terraform import hypercompute_health_policy.gpu projects/ml-prod-123456/zones/us-central1-a/clusters/prod/healthPolicies/gpu
