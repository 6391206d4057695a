# ml-staging's state on Google Cloud: terraform init -backend-config=backend/ml-staging.hcl
# The bucket is the one pipelines/bootstrap makes (object versioning and deletion protection on).
# Bucket names are global across Cloud Storage: put your own here and in the bootstrap's bucket_name.
bucket = "acme-ml-staging-tfstate"
prefix = "hypercompute/ml-staging"
