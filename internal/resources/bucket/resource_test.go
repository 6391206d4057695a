package bucket_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

func value(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), v)
}

// A checkpoint bucket gets a hierarchical namespace, uniform access and no soft delete, in the provider's
// region; it imports back to the same state.
func TestAccBucket_checkpoints(t *testing.T) {
	env := acctest.New(t)
	svc := api(t, env)
	cfg := env.Config(bucketConfig("hc-ckpt", `  purpose = "checkpoints"
  labels  = { run = "llama" }
`+unprotected))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             noBuckets(env),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					value("id", knownvalue.StringExact("hc-ckpt")),
					value("project", knownvalue.StringExact(acctest.Project)),
					value("location", knownvalue.StringExact(acctest.Region)),
					value("location_type", knownvalue.StringExact("region")),
					value("hierarchical_namespace", knownvalue.Bool(true)),
					value("uniform_bucket_level_access", knownvalue.Bool(true)),
					value("autoclass", knownvalue.Bool(false)),
					value("autoclass_terminal_storage_class", knownvalue.Null()),
					value("soft_delete_retention_seconds", knownvalue.Int64Exact(0)),
					value("storage_class", knownvalue.StringExact("STANDARD")),
					value("url", knownvalue.StringExact("gs://hc-ckpt")),
					value("self_link", knownvalue.StringExact("https://www.googleapis.com/storage/v1/b/hc-ckpt")),
					value("force_destroy", knownvalue.Bool(false)),
				},
				Check: checkBucket(svc, "hc-ckpt", func(b *storage.Bucket) error {
					if b.Location != "US-CENTRAL1" || b.HierarchicalNamespace == nil || !b.HierarchicalNamespace.Enabled ||
						!b.IamConfiguration.UniformBucketLevelAccess.Enabled || b.SoftDeletePolicy.RetentionDurationSeconds != 0 ||
						b.Labels["run"] != "llama" || b.ProjectNumber == 0 {
						return fmt.Errorf("bucket in the API: location %s, hns %+v, uniform %+v, soft delete %+v, labels %v",
							b.Location, b.HierarchicalNamespace, b.IamConfiguration.UniformBucketLevelAccess, b.SoftDeletePolicy, b.Labels)
					}
					return nil
				}),
			},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: "hc-ckpt",
				ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"}},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: acctest.Project + "/hc-ckpt",
				ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"}},
		},
	})
}

// A dataset bucket gets Autoclass; labels, soft delete, Autoclass's terminal class and the storage class
// change in place with one patch each apply.
func TestAccBucket_datasetsUpdateInPlace(t *testing.T) {
	env := acctest.New(t)
	svc := api(t, env)
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             noBuckets(env),
		Steps: []resource.TestStep{
			{
				Config: env.Config(bucketConfig("hc-data", `  purpose  = "datasets"
  location = "US"
  labels   = { team = "ml", tier = "hot" }
`+unprotected)),
				ConfigStateChecks: []statecheck.StateCheck{
					value("location", knownvalue.StringExact("US")),
					value("location_type", knownvalue.StringExact("multi-region")),
					value("autoclass", knownvalue.Bool(true)),
					value("autoclass_terminal_storage_class", knownvalue.StringExact("NEARLINE")),
					value("hierarchical_namespace", knownvalue.Bool(false)),
					value("soft_delete_retention_seconds", knownvalue.Int64Exact(604800)),
				},
			},
			{
				PreConfig: env.ResetCalls,
				Config: env.Config(bucketConfig("hc-data", `  purpose  = "datasets"
  location = "us"
  labels   = { team = "ml", owner = "alice" }
  soft_delete_retention_seconds    = 1209600
  autoclass_terminal_storage_class = "ARCHIVE"
`+unprotected)),
				ConfigPlanChecks: update,
				Check: resource.ComposeAggregateTestCheckFunc(
					// Metageneration 3: the insert, the create's removal of its creation marker, and
					// this update's single patch.
					checkBucket(svc, "hc-data", func(b *storage.Bucket) error {
						if len(b.Labels) != 2 || b.Labels["owner"] != "alice" || b.Labels["team"] != "ml" ||
							b.SoftDeletePolicy.RetentionDurationSeconds != 1209600 || b.Autoclass.TerminalStorageClass != "ARCHIVE" || b.Metageneration != 3 {
							return fmt.Errorf("after the update: labels %v, soft delete %d, terminal %s, metageneration %d",
								b.Labels, b.SoftDeletePolicy.RetentionDurationSeconds, b.Autoclass.TerminalStorageClass, b.Metageneration)
						}
						return nil
					}),
					func(*terraform.State) error {
						if n := env.CallCount("storage.buckets.patch"); n != 1 {
							return fmt.Errorf("storage.buckets.patch called %d times, want 1", n)
						}
						return nil
					},
				),
			},
			{
				// Autoclass off, a colder class, no labels: still in place.
				Config: env.Config(bucketConfig("hc-data", `  purpose       = "datasets"
  location      = "US"
  autoclass     = false
  storage_class = "NEARLINE"
  uniform_bucket_level_access = false
`+unprotected)),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					value("autoclass_terminal_storage_class", knownvalue.Null()),
				},
				Check: checkBucket(svc, "hc-data", func(b *storage.Bucket) error {
					if b.Autoclass.Enabled || b.StorageClass != "NEARLINE" || len(b.Labels) != 0 || b.IamConfiguration.UniformBucketLevelAccess.Enabled {
						return fmt.Errorf("after the update: autoclass %+v, class %s, labels %v, uniform %+v", b.Autoclass, b.StorageClass, b.Labels,
							b.IamConfiguration.UniformBucketLevelAccess)
					}
					return nil
				}),
			},
		},
	})
}

// A bucket deleted outside Terraform is dropped from state and created again by the next apply.
func TestAccBucket_disappears(t *testing.T) {
	env := acctest.New(t)
	svc := api(t, env)
	cfg := env.Config(bucketConfig("hc-gone", unprotected))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             noBuckets(env),
		Steps: []resource.TestStep{
			{
				Config:             cfg,
				Check:              func(*terraform.State) error { return svc.Buckets.Delete("hc-gone").Do() },
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)}},
				Check:            checkBucket(svc, "hc-gone", func(*storage.Bucket) error { return nil }),
			},
		},
	})
}

// Destroying a protected bucket is refused at plan; a bucket with objects is only deleted with force_destroy,
// which takes its objects with it.
func TestAccBucket_dataSafety(t *testing.T) {
	env := acctest.New(t)
	svc := api(t, env)
	refused := func(config, want string) resource.TestStep {
		return resource.TestStep{PreConfig: env.ResetCalls, Config: config, ExpectError: acctest.ErrorMatching(want)}
	}
	put := func() {
		for _, n := range []string{"step-1/model.pt", "step-2/model.pt"} {
			if _, err := svc.Objects.Insert("hc-safe", &storage.Object{Name: n}).Media(strings.NewReader("weights")).Do(); err != nil {
				t.Fatalf("uploading %s: %v", n, err)
			}
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             noBuckets(env),
		Steps: []resource.TestStep{
			{Config: env.Config(bucketConfig("hc-safe", `  purpose = "checkpoints"`+"\n"))},
			refused(env.Config(""), `deletion_protection: Cloud Storage bucket hc-safe is protected and would be destroyed`),
			refused(env.Config(bucketConfig("hc-safe", `  purpose  = "checkpoints"
  location = "us-east1"
`)), `(?s)location: cannot change from "us-central1" to "us-east1" on Cloud Storage bucket hc-safe.*replacing the bucket would destroy its objects`),
			refused(env.Config(bucketConfig("hc-safe", `  purpose = "general"`+"\n")), `hierarchical_namespace: cannot change from true to false`),
			{
				PreConfig: env.ResetCalls,
				Config:    env.Config(bucketConfig("hc-safe", `  purpose = "checkpoints"`+"\n")),
				Check:     env.CheckNoWrites("storage."),
			},
			{PreConfig: put, Config: env.Config(bucketConfig("hc-safe", `  purpose = "checkpoints"`+"\n"+unprotected))},
			// Not empty and no force_destroy: the API refuses, nothing is deleted.
			{Config: env.Config(""), ExpectError: acctest.ErrorMatching(`still holds objects and force_destroy is false`)},
			{
				Config: env.Config(bucketConfig("hc-safe", `  purpose       = "checkpoints"
  force_destroy = true
`+unprotected)),
				Check: func(*terraform.State) error {
					objs, err := svc.Objects.List("hc-safe").Do()
					if err != nil || len(objs.Items) != 2 {
						return fmt.Errorf("the refused destroy lost objects: %v, %v", objs, err)
					}
					return nil
				},
			},
		},
	})
}

// A name taken by another project is an error that says so; the other project's bucket is untouched.
func TestAccBucket_nameTakenElsewhere(t *testing.T) {
	env := acctest.New(t)
	svc := api(t, env)
	if _, err := svc.Buckets.Insert("someone-else", &storage.Bucket{Name: "hc-taken"}).Do(); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:      env.Config(bucketConfig("hc-taken", unprotected)),
			ExpectError: acctest.ErrorMatching(`bucket name hc-taken is taken by another project`),
		}},
	})
}
