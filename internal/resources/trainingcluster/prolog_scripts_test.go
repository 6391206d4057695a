package trainingcluster_test

import (
	"fmt"
	"reflect"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Prolog and epilog as ordered lists: bad lists are refused at plan naming the attribute (and the entry); a good
// one reaches the controller's configuration in order, changes in place and imports back.
func TestAccTrainingCluster_prologScripts(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	cfg := func(slurm string) string {
		return env.Config(storageConfig("hc-tps") + clusterConfig("hcp", "file:///opt/hypercompute-agent", fakeSHA, unprotected+slurm))
	}
	scripts := func(prolog, epilog []string) resource.TestCheckFunc {
		return checkVM(env, "hcp-controller", func(inst *computepb.Instance) error {
			c, err := clusterconfig.DecodeCluster([]byte(metadataOf(inst)[clusterconfig.ClusterKey]))
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(c.Slurm.PrologScripts, prolog) || !reflect.DeepEqual(c.Slurm.EpilogScripts, epilog) {
				return fmt.Errorf("the controller's config has prolog %q, epilog %q; want %q, %q", c.Slurm.PrologScripts, c.Slurm.EpilogScripts, prolog, epilog)
			}
			return nil
		})
	}
	const a, b, c = "#!/bin/bash\\necho a\\n", "#!/usr/bin/env python3\\nprint('b')\\n", "#!/bin/sh\\ntrue\\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config:      cfg(fmt.Sprintf("  slurm = { prolog = %q, prolog_scripts = [\"%s\"] }\n", "#!/bin/sh\n", a)),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`slurm\.prolog_scripts: set either slurm\.prolog \(one script\) or slurm\.prolog_scripts`),
			},
			{
				Config:      cfg(fmt.Sprintf("  slurm = { epilog_scripts = [\"%s\", \"echo no interpreter\"] }\n", c)),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`slurm\.epilog_scripts\[1\]: the script must start with an interpreter line`),
			},
			{
				Config: cfg(fmt.Sprintf("  slurm = { prolog_scripts = [\"%s\", \"%s\"] }\n", a, b)),
				Check:  scripts([]string{"#!/bin/bash\necho a\n", "#!/usr/bin/env python3\nprint('b')\n"}, nil),
			},
			{
				Config: cfg(fmt.Sprintf("  slurm = { prolog_scripts = [\"%s\", \"%s\"], epilog_scripts = [\"%s\"] }\n", b, a, c)),
				Check:  scripts([]string{"#!/usr/bin/env python3\nprint('b')\n", "#!/bin/bash\necho a\n"}, []string{"#!/bin/sh\ntrue\n"}),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hcp", ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"},
			},
		},
	})
}
