# A bucket is imported by its name (in the provider's project), PROJECT/NAME or projects/PROJECT/buckets/NAME.
terraform import hypercompute_bucket.checkpoints ml-prod-123456/ml-prod-checkpoints
