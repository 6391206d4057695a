# ml-prod's state on the local cloud's Cloud Storage (HYPERCOMPUTE_EMULATOR_HOST). pipelines/run.sh
# adds the endpoint, which changes with the emulator's address:
#   -backend-config=storage_custom_endpoint=http://$HYPERCOMPUTE_EMULATOR_HOST/storage/v1/
#   -backend-config=access_token=local-cloud (the local cloud takes any token)
bucket = "hypercompute-tfstate"
prefix = "hypercompute/ml-prod"
