package nodepartition_test

import (
	"fmt"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// templateScript is the startup script the partition's nodes are created with (its instance template's).
func templateScript(env *acctest.Env, tc *testCluster, partition string) (string, error) {
	p, ok := tc.partition(env.Env, partition)
	if !ok {
		return "", fmt.Errorf("no partition %s on the controller", partition)
	}
	var tmpl computepb.InstanceTemplate
	if ok, err := env.Store().Get(instances.KindInstanceTemplates, p.InstanceTemplate, &tmpl); !ok || err != nil {
		return "", fmt.Errorf("no template %s (%v)", p.InstanceTemplate, err)
	}
	n, err := cc.DecodeNode([]byte(tfutil.MetadataMap(tmpl.GetProperties().GetMetadata())[cc.NodeConfigKey]))
	return n.StartupScript, err
}

// A node set's startup script: one without an interpreter line is refused at plan; a good one reaches the node
// configuration its VMs are created with, changes it in place (a new template) and imports back.
func TestAccNodePartition_startupScript(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcs", clusterOpts{})
	cfg := func(script string) string {
		return env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 0, 2, fmt.Sprintf("  startup_script = %q", script)))
	}
	has := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := templateScript(env, tc, "cpu")
			if err != nil || got != want {
				return fmt.Errorf("the partition's nodes boot with startup script %q (%v), want %q", got, err, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config:      cfg("apt-get install -y htop"),
				ExpectError: acctest.ErrorMatching(`startup_script.*must start with an interpreter line`),
			},
			{
				Config: cfg("#!/bin/bash\napt-get install -y htop\n"),
				Check:  has("#!/bin/bash\napt-get install -y htop\n"),
			},
			{
				Config:           cfg("#!/bin/bash\napt-get install -y btop\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check:            has("#!/bin/bash\napt-get install -y btop\n"),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId:           tc.id + "/partitions/cpu",
				ImportStateVerifyIgnore: []string{"timeouts", "force_scale_down", "wait_for_nodes", "allow_partial", "drain_timeout", "drain_timeout_action", "rolling_update"},
			},
		},
	})
}
