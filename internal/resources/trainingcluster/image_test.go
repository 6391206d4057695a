package trainingcluster_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// A controller or login image that does not resolve fails the plan, before any VM exists, with the one
// read-only call that found it missing.
func TestAccTrainingCluster_missingImage(t *testing.T) {
	env := acctest.New(t)
	const base = `  name = "hc"
  home = { nfs_source = "10.0.0.2:/home" }
  agent = { url = "file:///opt/hypercompute-agent", sha256 = "abababababababababababababababababababababababababababababababab" }
`
	cases := []struct{ name, body, want string }{
		{"controller", base + `  controller = { image = "projects/hc-acc-test/global/images/family/slurm-nope" }` + "\n",
			`controller\.image: image family "slurm-nope" \(no image in it\) does not exist in project hc-acc-test`},
		{"login", base + `  login = { image = "projects/debian-cloud/global/images/debian-12-no-such-build" }` + "\n",
			`login\.image: image "debian-12-no-such-build" does not exist in project debian-cloud`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps: []resource.TestStep{{
					Config:      env.Config("resource \"hypercompute_training_cluster\" \"test\" {\n  network = \"hc-net\"\n" + tc.body + "}\n"),
					PlanOnly:    true,
					ExpectError: acctest.ErrorMatching(tc.want),
				}},
			})
		})
	}
	if c := env.Calls(); c.Mutating != 0 || c.Total == 0 {
		t.Fatalf("missing images made %d mutating calls of %d; want none of at least one read: %v", c.Mutating, c.Total, c.Methods)
	}
}
