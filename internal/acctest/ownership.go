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

// Ownership is one labelled resource (Filestore, Managed Lustre, a bucket, a training cluster)
// under the ownership tests they all share: a create takes over only its own unfinished create (the
// hypercompute-create label; see tfutil/label_ownership.go), never another state's object or one
// made outside Terraform.
type Ownership struct {
	Factories map[string]func() (tfprotov6.ProviderServer, error)
	// Addr is the resource address; Kind the inventory kind of its objects and Count how many of
	// them it makes (0: one); Name the name the refusal gives.
	Addr, Kind, Name string
	Count            int
	// Network is what the resource stands on (may be empty) and Instance the resource on it; Alone
	// is the same resource by itself, on that network by name, as a second state would write it.
	Network, Instance, Alone string
	// Import is an import block that takes the object at Name over into Addr.
	Import string
	// Patch is the API method that removes the creation marker once a create finished.
	Patch string
	// CreateDirectly makes the object of Instance through the API, as another tool would (only
	// for TestForeign).
	CreateDirectly func(t *testing.T)
	// Labels reads the labels of the object whose marker decides ownership from the emulator.
	Labels func(e *Env) (map[string]string, error)
	// OtherLabels, when set, reads the labels of the resource's other objects (a cluster's login
	// VMs), which lose the marker too.
	OtherLabels func(e *Env) ([]map[string]string, error)
	// Populate, when set, runs after the first state's create: it adds what the first state's
	// objects hold that nobody declared (objects in a bucket, another resource's metadata key),
	// which the refused state must leave as it is too.
	Populate func(t *testing.T)
	// Held, when set, describes what the first state's objects hold that the emulator's inventory
	// does not show (a bucket's objects); the refused state must leave it the same.
	Held func(t *testing.T) string
	// NothingLeft is the CheckDestroy of every test case; nil: CheckStorageNothingLeft.
	NothingLeft resource.TestCheckFunc
}

const marker = "hypercompute-create"

// refusal is the error a create gets for an object it did not leave half-made: it says who may
// own it and names the import.
func (o Ownership) refusal() string {
	return `(?s)` + regexp.QuoteMeta(o.Name) + ` already exists and was not left by an unfinished create.*` +
		`it may be another Terraform state's, or an interrupted apply of this one.*If it is yours: terraform import`
}

// noMarker checks that the objects exist once and the deciding one no longer carries the
// creation marker.
func (o Ownership) noMarker(e *Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		want := max(o.Count, 1)
		if n := e.Inventory().Count(o.Kind); n != want {
			return fmt.Errorf("%d objects of %s; want %d", n, o.Kind, want)
		}
		labels, err := o.Labels(e)
		if err != nil {
			return err
		}
		all := []map[string]string{labels}
		if o.OtherLabels != nil {
			other, err := o.OtherLabels(e)
			if err != nil {
				return err
			}
			all = append(all, other...)
		}
		for _, l := range all {
			if _, ok := l[marker]; ok {
				return fmt.Errorf("the finished %s still carries %s: %v", o.Addr, marker, l)
			}
		}
		return nil
	}
}

// TestOtherState: a second Terraform state applying the same resource is refused before it
// changes anything and records nothing; its destroy leaves the first state's objects exactly as
// they were (everything the emulator holds is compared), and the first state still plans no change.
func (o Ownership) TestOtherState(t *testing.T, e *Env) {
	first := e.Config(o.Network + o.Instance)
	populate, held := func() {}, func() string { return "" }
	if o.Populate != nil {
		populate = func() { o.Populate(t) }
	}
	if o.Held != nil {
		held = func() string { return o.Held(t) }
	}
	o.run(t, e, []resource.TestStep{
		{Config: first, Check: o.noMarker(e)},
		{
			PreConfig: func() {
				populate()
				before, heldBefore, writes := e.snapshot(t), held(), e.succeededWrites()
				// Its own test case: its own working directory and state, applied and then destroyed.
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: o.Factories,
					Steps:                    []resource.TestStep{{Config: e.Config(o.Alone), ExpectError: ErrorMatching(o.refusal())}},
				})
				if n := e.succeededWrites() - writes; n != 0 {
					// An insert answered ALREADY_EXISTS changed nothing; nothing else may.
					t.Errorf("the refused state made %d mutating calls that succeeded; want 0: %v", n, e.Calls().Methods)
				}
				if diff := e.snapshot(t).diff(before); diff != "" {
					t.Errorf("the refused state's apply and destroy changed what the emulator holds: %s", diff)
				}
				if now := held(); now != heldBefore {
					t.Errorf("the refused state's apply and destroy changed what the first state's objects hold: %q, before %q", now, heldBefore)
				}
			},
			Config:           first,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check:            o.noMarker(e),
		},
	})
}

// TestForeign: an object made outside Terraform is refused (and left as it is); an import
// takes it over, plans no change afterwards, and a destroy deletes it.
func (o Ownership) TestForeign(t *testing.T, e *Env) {
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
			// and the foreign object is still there.
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
// then forgotten, as a crash leaves it) is finished by the next apply, which adopts the object.
func (o Ownership) TestUnfinished(t *testing.T, e *Env) {
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
					return fmt.Errorf("the unfinished object lacks its marker: %v", labels)
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

// TestImportUnfinished: an object whose create stopped after its insert, imported rather than
// re-applied, plans one in-place update that removes the creation marker (else another state's
// create would still adopt it), and then no change.
func (o Ownership) TestImportUnfinished(t *testing.T, e *Env) {
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

// run runs steps as one test case, whose destroy must leave nothing behind.
func (o Ownership) run(t *testing.T, e *Env, steps []resource.TestStep) {
	t.Helper()
	left := o.NothingLeft
	if left == nil {
		left = e.CheckStorageNothingLeft
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: o.Factories, CheckDestroy: left, Steps: steps})
}

// stoppedCreate is a step whose create stops after its insert: removing the creation marker
// fails, as a crash between the two would leave it.
func (o Ownership) stoppedCreate(t *testing.T, e *Env, cfg string) resource.TestStep {
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

// forget is the network alone with the resource removed from the state but not destroyed: what
// a crash leaves, objects in the cloud and nothing in the state.
func (o Ownership) forget(e *Env) string {
	return e.Config(o.Network + fmt.Sprintf(`
removed {
  from = %s
  lifecycle {
    destroy = false
  }
}
`, o.Addr))
}
