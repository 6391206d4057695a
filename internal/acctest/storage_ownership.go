package acctest

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// StorageOwnership is one storage resource (Filestore, Managed Lustre) under the ownership tests
// that the two share: a create takes over only its own unfinished create (the
// hypercompute-create label; see tfutil/storage_ownership.go), never another state's instance or
// one made outside Terraform.
type StorageOwnership struct {
	Factories map[string]func() (tfprotov6.ProviderServer, error)
	// Addr is the instance's resource address; Kind its inventory kind; Name its full name.
	Addr, Kind, Name string
	// Network is the network's configuration and Instance the instance's on it; Alone is the same
	// instance by itself, on that network by name, as a second state would write it.
	Network, Instance, Alone string
	// Import is an import block that takes the instance at Name over into Addr.
	Import string
	// Patch is the API method that removes the creation marker once a create finished.
	Patch string
	// CreateDirectly makes the instance of Config through the API, as another tool would.
	CreateDirectly func(t *testing.T)
	// Labels reads an instance's labels from the emulator's inventory.
	Labels func(e *Env) (map[string]string, error)
}

const marker = "hypercompute-create"

// refusal is the error a create gets for an instance it did not leave half-made.
func (o StorageOwnership) refusal() string {
	return `(?s)` + regexp.QuoteMeta(o.Name) + ` already exists and was not left by an unfinished create.*import it with terraform import`
}

// noMarker checks that the instance exists once and no longer carries the creation marker.
func (o StorageOwnership) noMarker(e *Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if n := e.Inventory().Count(o.Kind); n != 1 {
			return fmt.Errorf("%d instances of %s; want 1", n, o.Kind)
		}
		labels, err := o.Labels(e)
		if err != nil {
			return err
		}
		if _, ok := labels[marker]; ok {
			return fmt.Errorf("the finished instance still carries %s: %v", marker, labels)
		}
		return nil
	}
}

// TestOtherState: a second Terraform state applying the same instance is refused before it
// changes anything, records nothing, and the first state still plans no change.
func (o StorageOwnership) TestOtherState(t *testing.T, e *Env) {
	first := e.Config(o.Network + o.Instance)
	o.run(t, e, []resource.TestStep{
		{Config: first, Check: o.noMarker(e)},
		{
			PreConfig: func() {
				before := e.succeededWrites()
				// Its own test case: its own working directory and state.
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: o.Factories,
					Steps:                    []resource.TestStep{{Config: e.Config(o.Alone), ExpectError: ErrorMatching(o.refusal())}},
				})
				if n := e.succeededWrites() - before; n != 0 {
					// Its insert, answered ALREADY_EXISTS, changed nothing; nothing else may.
					t.Errorf("the refused state made %d mutating calls that succeeded; want 0: %v", n, e.Calls().Methods)
				}
			},
			Config:           first,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check:            o.noMarker(e),
		},
	})
}

// TestForeign: an instance made outside Terraform is refused (and left as it is); an import
// takes it over, plans no change afterwards, and a destroy deletes it.
func (o StorageOwnership) TestForeign(t *testing.T, e *Env) {
	cfg := e.Config(o.Network + o.Instance)
	o.run(t, e, []resource.TestStep{
		{Config: e.Config(o.Network)},
		{
			PreConfig:   func() { o.CreateDirectly(t) },
			Config:      cfg,
			ExpectError: ErrorMatching(o.refusal()),
		},
		{
			// Nothing of the refused create was recorded: the state holds the network only,
			// and the foreign instance is still there.
			Config: cfg + o.Import,
			Check: resource.ComposeAggregateTestCheckFunc(
				e.CheckCount(o.Kind, 1),
				resource.TestCheckResourceAttr(o.Addr, "id", o.Name),
			),
		},
		noChange(cfg),
	})
}

// TestUnfinished: a create stopped after its insert (its marker patch fails, and the state is
// then forgotten, as a crash leaves it) is finished by the next apply, which adopts the instance.
func (o StorageOwnership) TestUnfinished(t *testing.T, e *Env) {
	cfg := e.Config(o.Network + o.Instance)
	o.run(t, e, []resource.TestStep{
		o.stoppedCreate(t, e, cfg),
		{
			PreConfig: func() { e.Server.Faults.Clear() },
			Config:    o.forget(e),
			Check: func(*terraform.State) error {
				labels, err := o.Labels(e)
				if err != nil {
					return err
				}
				if labels[marker] != "pending" {
					return fmt.Errorf("the unfinished instance lacks its marker: %v", labels)
				}
				return nil
			},
		},
		{
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(o.Addr, plancheck.ResourceActionCreate)}},
			Check:            o.noMarker(e),
		},
		noChange(cfg),
	})
}

// succeededWrites counts the mutating calls the emulator answered without an error.
func (e *Env) succeededWrites() int64 {
	var n int64
	for _, m := range e.Calls().Methods {
		if m.Mutating {
			n += m.Count - m.Errors
		}
	}
	return n
}

// TestImportUnfinished: an instance whose create stopped after its insert, imported rather than
// re-applied, plans one in-place update that removes the creation marker (else another state's
// create would still adopt it), and then no change.
func (o StorageOwnership) TestImportUnfinished(t *testing.T, e *Env) {
	cfg := e.Config(o.Network + o.Instance)
	o.run(t, e, []resource.TestStep{
		o.stoppedCreate(t, e, cfg),
		{PreConfig: func() { e.Server.Faults.Clear() }, Config: o.forget(e)},
		{
			Config:           cfg + o.Import,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(o.Addr, plancheck.ResourceActionUpdate)}},
			Check:            o.noMarker(e),
		},
		noChange(cfg),
	})
}

// run runs steps as one test case, whose destroy must leave no storage behind.
func (o StorageOwnership) run(t *testing.T, e *Env, steps []resource.TestStep) {
	t.Helper()
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: o.Factories, CheckDestroy: e.CheckStorageNothingLeft, Steps: steps})
}

// stoppedCreate is a step whose create stops after its insert: removing the creation marker
// fails, as a crash between the two would leave it.
func (o StorageOwnership) stoppedCreate(t *testing.T, e *Env, cfg string) resource.TestStep {
	return resource.TestStep{
		PreConfig: func() {
			e.ApplyFaults(t, core.FaultSpec{ErrorRates: []core.ErrorRate{{Method: o.Patch, Rate: 1, Code: 400, Message: "stopped here (injected)"}}})
		},
		Config:      cfg,
		ExpectError: ErrorMatching(`(?s)removing its ` + marker + ` label failed`),
	}
}

// noChange is a step that applies cfg expecting its plan to be empty.
func noChange(cfg string) resource.TestStep {
	return resource.TestStep{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}}
}

// forget is the network alone with the instance removed from the state but not destroyed: what
// a crash leaves, an instance in the cloud and nothing in the state.
func (o StorageOwnership) forget(e *Env) string {
	return e.Config(o.Network + fmt.Sprintf(`
removed {
  from = %s
  lifecycle {
    destroy = false
  }
}
`, o.Addr))
}
