package filestore_test

import (
	"context"
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

const fullName = "projects/" + acctest.Project + "/locations/" + acctest.Zone + "/instances/hc-home"

// ownership is the instance under the ownership tests Filestore shares with Managed Lustre.
func ownership(t *testing.T, env *acctest.Env) acctest.Ownership {
	return acctest.Ownership{
		Factories: factories, Addr: addr, Kind: acctest.KindFilestore, Name: fullName,
		Network:  networkConfig("hc-fso"),
		Instance: instanceConfig("hc-home", "BASIC_SSD", 2560, unprotected+"  labels = { team = \"ml\" }\n"),
		Alone: `
resource "hypercompute_filestore" "test" {
  name  = "hc-home"
  tier  = "BASIC_SSD"
  share = {
    capacity_gb = 2560
  }
  network = {
    name = "hc-fso"
  }
  labels              = { team = "ml" }
  deletion_protection = false
}
`,
		Import: `
import {
  to = hypercompute_filestore.test
  id = "` + fullName + `"
}
`,
		Patch: "file.projects.locations.instances.patch",
		CreateDirectly: func(t *testing.T) {
			c := env.Clients()
			ctx := context.Background()
			op, err := c.Filestore.CreateInstance(ctx, &filestorepb.CreateInstanceRequest{
				Parent: "projects/" + acctest.Project + "/locations/" + acctest.Zone, InstanceId: "hc-home",
				Instance: &filestorepb.Instance{
					Tier:       filestorepb.Instance_BASIC_SSD,
					FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 2560}},
					Networks: []*filestorepb.NetworkConfig{{
						Network: "projects/" + acctest.Project + "/global/networks/hc-fso", Modes: []filestorepb.NetworkConfig_AddressMode{filestorepb.NetworkConfig_MODE_IPV4},
						ConnectMode: filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS, ReservedIpRange: "hc-fso-psa",
					}},
					Labels: map[string]string{"team": "ml"},
				},
			})
			if err == nil {
				_, err = c.WaitFilestoreInstance(ctx, op.Name())
			}
			if err != nil {
				t.Fatalf("creating the foreign instance: %v", err)
			}
		},
		Labels: func(e *acctest.Env) (map[string]string, error) {
			i, err := e.FilestoreInstance("hc-home")
			return i.GetLabels(), err
		},
	}
}

// A second Terraform state applying the same instance is refused and records nothing; the first
// state still plans no change.
func TestAccFilestore_otherStatesInstance(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestOtherState(t, env)
}

// An instance made outside Terraform is refused, then imported.
func TestAccFilestore_foreignInstance(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestForeign(t, env)
}

// A create stopped after its insert is finished by the next apply.
func TestAccFilestore_adoptsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestUnfinished(t, env)
}

// An unfinished create that is imported instead of re-applied loses its marker at the next apply.
func TestAccFilestore_importsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestImportUnfinished(t, env)
}
