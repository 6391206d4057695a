# ml-dev's state on Google Cloud: terraform init -backend-config=backend/ml-dev.hcl
# The bucket is the one pipelines/bootstrap makes (object versioning and deletion protection on).
# Bucket names are global across Cloud Storage: put your own here and in the bootstrap's bucket_name.
bucket = "acme-ml-dev-tfstate"
prefix = "hypercompute/ml-dev"
