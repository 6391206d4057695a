package nodepartition_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// A partition naming an image or family that does not exist fails at plan, before any VM or template is
// made, and the check is the one read-only call (no cluster exists in this test's cloud).
func TestAccNodePartition_missingImage(t *testing.T) {
	env := acctest.New(t)
	const cluster = "projects/hc-acc-test/zones/us-central1-a/clusters/hcx"
	cases := []struct{ name, image, want, method string }{
		{"family", "projects/hc-acc-test/global/images/family/slurm-gpu-nope",
			`image: image family "slurm-gpu-nope" \(no image in it\) does not exist in project hc-acc-test`, "compute.images.getFromFamily"},
		{"image", "projects/debian-cloud/global/images/debian-12-no-such-build",
			`image: image "debian-12-no-such-build" does not exist in project debian-cloud`, "compute.images.get"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env.ResetCalls()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      env.Config(partitionConfig(cluster, "cpu", "n2-standard-8", 1, 0, `  image = "`+tc.image+`"`)),
					PlanOnly:    true,
					ExpectError: acctest.ErrorMatching(tc.want),
				}},
			})
			if c := env.Calls(); c.Mutating != 0 || env.CallCount(tc.method) == 0 {
				t.Errorf("the plan made %d mutating calls and %d %s calls; want 0 and at least 1: %v", c.Mutating, env.CallCount(tc.method), tc.method, c.Methods)
			}
		})
	}
}
