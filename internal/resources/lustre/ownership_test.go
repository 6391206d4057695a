package lustre_test

import (
	"context"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

const fullName = "projects/" + acctest.Project + "/locations/" + acctest.Zone + "/instances/hc-data"

// ownership is the instance under the ownership tests Managed Lustre shares with Filestore.
func ownership(t *testing.T, env *acctest.Env) acctest.Ownership {
	return acctest.Ownership{
		Factories: factories, Addr: addr, Kind: acctest.KindLustre, Name: fullName,
		Network:  networkConfig("hc-luo", ""),
		Instance: instanceConfig("hc-data", "lustrefs", unprotected+"  labels = { team = \"ml\" }\n"),
		Alone: `
resource "hypercompute_lustre" "test" {
  name                = "hc-data"
  filesystem          = "lustrefs"
  network             = "hc-luo"
  labels              = { team = "ml" }
  deletion_protection = false
}
`,
		Import: `
import {
  to = hypercompute_lustre.test
  id = "` + fullName + `"
}
`,
		Patch: "lustre.projects.locations.instances.patch",
		CreateDirectly: func(t *testing.T) {
			c := env.Clients()
			ctx := context.Background()
			op, err := c.Lustre.CreateInstance(ctx, "projects/"+acctest.Project+"/locations/"+acctest.Zone, "hc-data", &wire.Instance{
				Filesystem: "lustrefs", CapacityGib: 36000, PerUnitStorageThroughput: 1000,
				Network: "projects/" + acctest.Project + "/global/networks/hc-luo", Labels: map[string]string{"team": "ml"},
			})
			if err == nil {
				_, err = c.WaitLustreOp(ctx, op)
			}
			if err != nil {
				t.Fatalf("creating the foreign instance: %v", err)
			}
		},
		Labels: func(e *acctest.Env) (map[string]string, error) {
			i, err := e.LustreInstance("hc-data")
			if err != nil {
				return nil, err
			}
			return i.Labels, nil
		},
	}
}

// A second Terraform state applying the same instance is refused and records nothing; the first
// state still plans no change.
func TestAccLustre_otherStatesInstance(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestOtherState(t, env)
}

// An instance made outside Terraform is refused, then imported.
func TestAccLustre_foreignInstance(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestForeign(t, env)
}

// A create stopped after its insert is finished by the next apply.
func TestAccLustre_adoptsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestUnfinished(t, env)
}

// An unfinished create that is imported instead of re-applied loses its marker at the next apply.
func TestAccLustre_importsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	ownership(t, env).TestImportUnfinished(t, env)
}
