package provider_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// modulesDir is the repository's modules/, as a module source Terraform copies whole (the
// `//` keeps ../network and the other sibling modules reachable from training-cluster).
func modulesDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "modules", "training-cluster", "main.tf")); err == nil {
			return filepath.Join(dir, "modules") + "/"
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("modules/ not found above the test's directory")
		}
		dir = parent
	}
}

// installModules installs cfg's modules with `terraform get` into a Terraform data directory
// (TF_DATA_DIR) the harness's terraform runs then share: the harness runs `terraform init` before
// it writes a step's configuration, so it never installs modules itself.
func installModules(t *testing.T, cfg string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "tfdata")
	t.Setenv("TF_DATA_DIR", data)
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		tf = "terraform"
	}
	cmd := exec.Command(tf, "get", "-no-color")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("terraform get: %v\n%s", err, out)
	}
}

// modules/training-cluster with its defaults — slurm.extra = {}, slurm.scheduler_parameters = [],
// labels = {} — and one partition through modules/gpu-partition with its defaults (features = [],
// slurm_extra = {}, labels = {}) plans nothing once applied and after a refresh: issue 19's
// ml-staging and ml-prod planned `slurm.extra: + {}` and `slurm.features: + []` forever. The
// fake agent plays the controller, so the cluster's apply ends without booted VMs.
func TestAccModules_emptyCollectionsPlanEmpty(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	// The modules require hypercompute/hypercompute; the harness serves the provider under its
	// namespace.
	t.Setenv(resource.EnvTfAccProviderNamespace, "hypercompute")
	providers := `
terraform {
  required_providers {
    hypercompute = { source = "hypercompute/hypercompute" }
  }
}
` + env.ProviderBlock()
	cfg := providers + fmt.Sprintf(`
module "cluster" {
  source = "%s/training-cluster"

  name                = "hcmod"
  zone                = %q
  login               = { count = 0 }
  deletion_protection = false
  agent               = { url = "file:///opt/hypercompute-agent", sha256 = %q }

  partitions = {
    cpu = { machine_type = "n2-standard-4", max_dynamic_node_count = 2 }
  }
}
`, modulesDir(t), acctest.Zone, strings.Repeat("ab", 32))
	installModules(t, cfg)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			// After the apply the harness plans without and with a refresh, and fails on any change.
			{Config: cfg},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			// The harness reads no state that holds modules (its state shim refuses them), so the
			// last step destroys the module's resources itself and leaves an empty state.
			{Config: providers},
		},
	})
}
