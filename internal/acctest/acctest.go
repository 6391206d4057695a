// Package acctest is the shared acceptance-test harness: an in-process local cloud per test, the
// provider served in-process to the real terraform binary, and helpers to look behind Terraform's
// back (call counters, inventory, direct API clients, fault injection).
package acctest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/provider"
)

// Defaults every acceptance test uses unless it says otherwise.
const (
	Project = "hc-acc-test"
	Region  = "us-central1"
	Zone    = "us-central1-a"
)

// ProviderFactories serves the provider in-process to terraform.
var ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"hypercompute": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// Env is one test's local cloud.
type Env struct {
	*emulatortest.Env
	t testing.TB
}

// ApplyFaults injects faults for the rest of the test.
func (e *Env) ApplyFaults(t testing.TB, spec core.FaultSpec) {
	t.Helper()
	if err := e.Server.Faults.Apply(spec); err != nil {
		t.Fatalf("faults: %v", err)
	}
}

// New starts an in-process emulator for one test and checks that acceptance tests may run.
func New(t *testing.T) *Env {
	t.Helper()
	PreCheck(t)
	return &Env{Env: emulatortest.Start(t), t: t}
}

// PreCheck skips unless TF_ACC is set, and fails clearly when terraform is missing.
func PreCheck(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance tests run with TF_ACC=1 (make test sets it)")
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		if _, err := exec.LookPath("terraform"); err != nil {
			t.Fatal("terraform is not on PATH; install Terraform >= 1.5 or set TF_ACC_TERRAFORM_PATH")
		}
	}
	// A CLI config named by the environment may not exist; the harness needs none.
	t.Setenv("TF_CLI_CONFIG_FILE", "")
	t.Setenv("CHECKPOINT_DISABLE", "1")
}

// ProviderBlock is the provider configuration pointing at this test's emulator.
func (e *Env) ProviderBlock() string {
	return fmt.Sprintf(`
provider "hypercompute" {
  project       = %q
  region        = %q
  zone          = %q
  emulator_host = %q
}
`, Project, Region, Zone, e.Host)
}

// Config prefixes a test configuration with the provider block.
func (e *Env) Config(body string) string { return e.ProviderBlock() + body }

// Clients returns API clients talking to this test's emulator, for changes behind Terraform's back.
func (e *Env) Clients() *gcp.Clients {
	e.t.Helper()
	c, err := gcp.NewClients(context.Background(), gcp.Config{Project: Project, Region: Region, Zone: Zone, EmulatorHost: e.Host, UserAgent: "acctest"})
	if err != nil {
		e.t.Fatalf("clients: %v", err)
	}
	e.t.Cleanup(func() { _ = c.Close() })
	return c
}
