package bucket_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Bad input is refused at plan time, names the attribute, and never reaches the API.
func TestAccBucket_invalidInput(t *testing.T) {
	env := acctest.New(t)
	cases := []struct{ name, bucket, body, want string }{
		{"uppercase name", "Checkpoints", "", `name: bucket name "Checkpoints" is invalid: it may contain only lowercase letters`},
		{"google in the name", "my-google-data", "", `name: bucket name "my-google-data" is invalid: it must not contain "google"`},
		{"unknown location", "hc-b", `  location = "mars-north1"`, `location "mars-north1" is not a Cloud Storage location: use a region \((?s:.*)us-central1`},
		{"unknown purpose", "hc-b", `  purpose = "scratch"`, `purpose value must be one of`},
		{"unknown class", "hc-b", `  storage_class = "WARM"`, `storage_class: storage class "WARM" is not one of STANDARD, NEARLINE, COLDLINE, ARCHIVE`},
		{"hns without uniform access", "hc-b", `  purpose = "checkpoints"
  uniform_bucket_level_access = false`, `uniform_bucket_level_access: a hierarchical namespace requires uniform bucket-level access`},
		{"hns asked for without uniform access", "hc-b", `  hierarchical_namespace = true
  uniform_bucket_level_access = false`, `uniform_bucket_level_access: a hierarchical namespace requires`},
		{"autoclass on a cold class", "hc-b", `  purpose = "datasets"
  storage_class = "COLDLINE"`, `storage_class: Autoclass requires storage_class = "STANDARD"`},
		{"terminal class without autoclass", "hc-b", `  autoclass_terminal_storage_class = "ARCHIVE"`, `autoclass_terminal_storage_class: it only applies with autoclass = true`},
		{"terminal class COLDLINE", "hc-b", `  purpose = "datasets"
  autoclass_terminal_storage_class = "COLDLINE"`, `autoclass_terminal_storage_class value must be one of`},
		{"soft delete of 3 days", "hc-b", `  soft_delete_retention_seconds = 259200`, `soft_delete_retention_seconds: soft delete retention 72h0m0s is out of range: 0 \(off\) or 7 to 90 days`},
		{"versioning with a hierarchical namespace", "hc-b", `  purpose    = "checkpoints"
  versioning = true`, `versioning: object versioning is not supported on a bucket with a hierarchical namespace`},
		{"label key with uppercase", "hc-b", `  labels = { Team = "ml" }`, `labels: label key "Team" is invalid`},
		{"the provider's creation marker", "hc-b", `  labels = { hypercompute-create = "pending" }`, `labels: label key "hypercompute-create" is reserved`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, env.Config(bucketConfig(tc.bucket, tc.body+"\n")), tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}
