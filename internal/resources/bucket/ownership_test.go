package bucket_test

import (
	"fmt"
	"strings"
	"testing"

	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	emustorage "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/storage"
)

// ownedBucket is the bucket under the ownership tests it shares with Filestore and Managed Lustre.
const ownedBucket = "hc-own"

func ownership(t *testing.T, env *acctest.Env) acctest.Ownership {
	svc := api(t, env)
	body := `  purpose       = "checkpoints"
  labels        = { team = "ml" }
  force_destroy = true
` + unprotected
	return acctest.Ownership{
		Factories: factories, Addr: addr, Kind: emustorage.KindBuckets, Name: ownedBucket,
		Instance: bucketConfig(ownedBucket, body),
		Alone:    bucketConfig(ownedBucket, body),
		Import: `
import {
  to = ` + addr + `
  id = "` + ownedBucket + `"
}
`,
		Patch: "storage.buckets.patch",
		CreateDirectly: func(t *testing.T) {
			_, err := svc.Buckets.Insert(acctest.Project, &storage.Bucket{
				Name: ownedBucket, Location: acctest.Region, Labels: map[string]string{"team": "ml"},
				HierarchicalNamespace: &storage.BucketHierarchicalNamespace{Enabled: true},
				IamConfiguration: &storage.BucketIamConfiguration{
					UniformBucketLevelAccess: &storage.BucketIamConfigurationUniformBucketLevelAccess{Enabled: true},
				},
			}).Do()
			if err != nil {
				t.Fatalf("creating the foreign bucket: %v", err)
			}
		},
		Labels: func(*acctest.Env) (map[string]string, error) {
			b, err := svc.Buckets.Get(ownedBucket).Do()
			if err != nil {
				return nil, err
			}
			return b.Labels, nil
		},
		// The first state's data: a checkpoint the refused state's destroy must not take with it.
		Populate: func(t *testing.T) {
			for _, n := range []string{"step-1/model.pt", "step-2/model.pt"} {
				if _, err := svc.Objects.Insert(ownedBucket, &storage.Object{Name: n}).Media(strings.NewReader("weights")).Do(); err != nil {
					t.Fatalf("uploading %s: %v", n, err)
				}
			}
		},
		Held: func(t *testing.T) string {
			objs, err := svc.Objects.List(ownedBucket).Versions(true).Do()
			if err != nil {
				return "listing the objects: " + err.Error()
			}
			var out []string
			for _, o := range objs.Items {
				out = append(out, fmt.Sprintf("%s#%d", o.Name, o.Generation))
			}
			return strings.Join(out, ",")
		},
		NothingLeft: noBuckets(env),
	}
}

// A second Terraform state applying the same bucket is refused and records nothing; its destroy
// leaves the first state's bucket and the objects in it, and the first state plans no change.
func TestAccBucket_otherStatesBucket(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestOtherState(t, env)
}

// A bucket made outside Terraform in the project is refused, then imported.
func TestAccBucket_foreignBucket(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestForeign(t, env)
}

// A create stopped after its insert (the bucket still carries its marker) is finished by a plain
// re-apply.
func TestAccBucket_adoptsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestUnfinished(t, env)
}

// An unfinished create that is imported instead of re-applied loses its marker at the next apply.
func TestAccBucket_importsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestImportUnfinished(t, env)
}
