package machinetype_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

func config(env *acctest.Env, name, zone string) string {
	z := ""
	if zone != "" {
		z = fmt.Sprintf("  zone = %q\n", zone)
	}
	return env.Config(fmt.Sprintf("data \"hypercompute_machine_type\" \"m\" {\n  name = %q\n%s}\n", name, z))
}

// The data source reports the catalog's facts and never calls an API.
func TestAccMachineType_facts(t *testing.T) {
	env := acctest.New(t)
	mega, _ := catalog.Machine("a3-megagpu-8g")
	const addr = "data.hypercompute_machine_type.m"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config(env, "a3-megagpu-8g", "us-central1-a"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "family", "a3"),
				resource.TestCheckResourceAttr(addr, "profile", "a3-mega"),
				resource.TestCheckResourceAttr(addr, "gpu_count", "8"),
				resource.TestCheckResourceAttr(addr, "gpu_slurm_type", mega.GPU.SlurmType),
				resource.TestCheckResourceAttr(addr, "nic_stack", "tcpxo"),
				resource.TestCheckResourceAttr(addr, "gpu_nic_count", fmt.Sprint(mega.GPUNICCount)),
				resource.TestCheckResourceAttr(addr, "min_resume_timeout", "1200"),
				func(*terraformState) error { return noCalls(env) },
			),
		}, {
			Config: config(env, "n2-standard-8", ""),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "family", "n2"),
				resource.TestCheckResourceAttr(addr, "cpus", "8"),
				resource.TestCheckResourceAttr(addr, "gpu_count", "0"),
				resource.TestCheckNoResourceAttr(addr, "gpu_type"),
				resource.TestCheckResourceAttr(addr, "nic_stack", "none"),
				resource.TestCheckResourceAttr(addr, "min_resume_timeout", "0"),
				func(*terraformState) error { return noCalls(env) },
			),
		}},
	})
}

// An unknown machine type, or one the zone does not offer, fails at plan naming the attribute.
func TestAccMachineType_invalid(t *testing.T) {
	env := acctest.New(t)
	var notOffered string
	for _, z := range catalog.Zones() {
		if !z.Offers("a4x-highgpu-4g") {
			notOffered = z.Name
			break
		}
	}
	cases := []struct{ name, machine, zone, want string }{
		{"unknown", "a9-supergpu-8g", "", `name: "a9-supergpu-8g" is not a machine type this provider knows`},
		{"not in zone", "a4x-highgpu-4g", notOffered, `zone: `},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      config(env, tc.machine, tc.zone),
					PlanOnly:    true,
					ExpectError: acctest.ErrorMatching(tc.want),
				}},
			})
		})
	}
	if err := noCalls(env); err != nil {
		t.Fatal(err)
	}
}
