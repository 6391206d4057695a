package bucket_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/terraform"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/bucket"
)

const addr = "hypercompute_bucket.test"

// factories serve the provider with this resource, whether or not the provider registers it yet.
var factories = acctest.FactoriesWith(bucket.NewResource)

const unprotected = "  deletion_protection = false\n"

// bucketConfig is a bucket named name; body goes inside the block.
func bucketConfig(name, body string) string {
	return fmt.Sprintf(`
resource "hypercompute_bucket" "test" {
  name = %q
%s}
`, name, body)
}

// api is a JSON API client on the test's emulator, for looking and changing behind Terraform's back.
func api(t *testing.T, env *acctest.Env) *storage.Service {
	t.Helper()
	svc, err := env.Clients().Storage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// checkBucket reads the bucket through the API and runs check on it.
func checkBucket(svc *storage.Service, name string, check func(*storage.Bucket) error) func(*terraform.State) error {
	return func(*terraform.State) error {
		b, err := svc.Buckets.Get(name).Do()
		if err != nil {
			return err
		}
		return check(b)
	}
}

// noBuckets is CheckDestroy: the emulator holds no bucket any more.
func noBuckets(env *acctest.Env) func(*terraform.State) error {
	return func(*terraform.State) error {
		if recs := env.Store().List("storage.buckets", ""); len(recs) > 0 {
			var keys []string
			for _, r := range recs {
				keys = append(keys, r.Key)
			}
			return fmt.Errorf("buckets left after destroy: %s", strings.Join(keys, ", "))
		}
		return nil
	}
}
