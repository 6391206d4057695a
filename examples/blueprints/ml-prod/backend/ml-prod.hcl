# ml-prod's state on Google Cloud: terraform init -backend-config=backend/ml-prod.hcl
# The bucket is the one pipelines/bootstrap makes (object versioning and deletion protection on).
# Bucket names are global across Cloud Storage: put your own here and in the bootstrap's bucket_name.
bucket = "acme-ml-prod-tfstate"
prefix = "hypercompute/ml-prod"
