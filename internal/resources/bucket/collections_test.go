package bucket_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/bucket"
)

// labels = {} and unset labels plan nothing after apply, refresh and import (issue 19).
func TestAccBucket_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: bucket.NewResource,
		Body:      map[string]any{"name": "hc-collections"},
		Unprotect: map[string]any{"deletion_protection": false},
	})
}
