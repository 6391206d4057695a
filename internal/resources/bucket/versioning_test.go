package bucket_test

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// A Terraform state bucket: with versioning on, each write of an object keeps the one it replaced as a
// noncurrent generation that can still be read (how a team gets an earlier state back); versioning turns off in
// place, after which an overwrite keeps nothing, while the generations kept before stay; a destroy with
// force_destroy removes every generation and the bucket.
func TestAccBucket_versioning(t *testing.T) {
	env := acctest.New(t)
	svc := api(t, env)
	const name, object = "hc-tfstate", "ml-dev/default.tfstate"
	write := func(content string) func(*terraform.State) error {
		return func(*terraform.State) error {
			_, err := svc.Objects.Insert(name, &storage.Object{Name: object}).Media(strings.NewReader(content)).Do()
			return err
		}
	}
	// holds checks what every generation of the state object holds, oldest first.
	holds := func(want ...string) func(*terraform.State) error {
		return func(*terraform.State) error {
			objs, err := svc.Objects.List(name).Versions(true).Do()
			if err != nil {
				return err
			}
			slices.SortFunc(objs.Items, func(a, b *storage.Object) int { return int(a.Generation - b.Generation) })
			var got []string
			for _, o := range objs.Items {
				resp, err := svc.Objects.Get(name, o.Name).Generation(o.Generation).Download()
				if err != nil {
					return fmt.Errorf("reading generation %d of %s: %w", o.Generation, o.Name, err)
				}
				body, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err != nil {
					return err
				}
				got = append(got, string(body))
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("the state object's generations hold %q, want %q", got, want)
			}
			return nil
		}
	}
	versioningInAPI := func(on bool) func(*terraform.State) error {
		return checkBucket(svc, name, func(b *storage.Bucket) error {
			if got := b.Versioning != nil && b.Versioning.Enabled; got != on {
				return fmt.Errorf("versioning in the API is %t, want %t", got, on)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             noBuckets(env),
		Steps: []resource.TestStep{
			{
				Config: env.Config(bucketConfig(name, "  versioning = true\n")),
				ConfigStateChecks: []statecheck.StateCheck{
					value("versioning", knownvalue.Bool(true)),
					value("deletion_protection", knownvalue.Bool(true)),
				},
				Check: resource.ComposeTestCheckFunc(versioningInAPI(true), write("serial 1"), write("serial 2"), holds("serial 1", "serial 2")),
			},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: name,
				ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"}},
			{
				Config:           env.Config(bucketConfig(name, "  versioning    = false\n  force_destroy = true\n"+unprotected)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check:            resource.ComposeTestCheckFunc(versioningInAPI(false), write("serial 3"), holds("serial 1", "serial 3")),
			},
		},
	})
}
