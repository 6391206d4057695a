package acctest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KeyOwnership is one resource that owns a metadata key on a cluster's controller (node partition,
// health policy, recipe job) under the ownership tests the three share: a create takes over only
// its own unfinished create (the key's creation marker; see tfutil/key_ownership.go), never another
// state's key, and two resources of one configuration with one name fail.
type KeyOwnership struct {
	Factories map[string]func() (tfprotov6.ProviderServer, error)
	// Type is the resource type; Cluster the cluster's name and ClusterID its id; Name the
	// resource's name and Key its metadata key; ImportID the id its import takes.
	Type, Cluster, ClusterID, Name, Key, ImportID string
	// Resource is the resource's block labelled label, with name as its name's HCL expression.
	Resource func(label, name string) string
	// Owned describes what the resource owns beside its key (a partition's VMs and templates), so
	// a test can tell that a refused state left it as it was; nil when it owns nothing else.
	Owned func(e *Env) string
	// CheckDestroy is the test cases' CheckDestroy: nothing of the resource is left.
	CheckDestroy resource.TestCheckFunc
}

func (o KeyOwnership) addr() string { return o.Type + ".test" }

// config is the resource by itself, as every state of these tests writes it.
func (o KeyOwnership) config(e *Env) string {
	return e.Config(o.Resource("test", strconv.Quote(o.Name)))
}

// refusal is the error a create gets for a key it did not leave unfinished: it names the cluster
// and the name and gives the import.
func (o KeyOwnership) refusal() *regexp.Regexp {
	return ErrorMatching(`(?s)` + regexp.QuoteMeta(fmt.Sprintf(`%q of cluster %s: its metadata key %s already exists`, o.Name, o.ClusterID, o.Key)) +
		`.*It may be another Terraform state's, or an interrupted apply of this one.*` +
		regexp.QuoteMeta(fmt.Sprintf("If it is yours: terraform import %s.<name> %s", o.Type, o.ImportID)))
}

// duplicate is the error of the second of two resources with one name.
func (o KeyOwnership) duplicate() *regexp.Regexp {
	return ErrorMatching(`(?s)` + regexp.QuoteMeta(fmt.Sprintf(`two %s resources have the name %q on cluster %s`, o.Type, o.Name, o.ClusterID)) +
		`.*Give each a name of its own`)
}

// finished checks that the key exists and carries no creation marker: its create finished.
func (o KeyOwnership) finished(e *Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		v, ok := e.ControllerKey(o.Cluster, o.Key)
		switch {
		case !ok:
			return fmt.Errorf("%s is not on the controller", o.Key)
		case cc.HasCreateMarker(v):
			return fmt.Errorf("the finished %s still carries the creation marker: %s", o.Key, v)
		}
		return nil
	}
}

// snapshot is everything the resource owns, as text: a refused create must leave it alone.
func (o KeyOwnership) snapshot(e *Env) string {
	v, _ := e.ControllerKey(o.Cluster, o.Key)
	if o.Owned != nil {
		v += "\n" + o.Owned(e)
	}
	return v
}

// TestOtherState: a second Terraform state applying the same resource is refused with the import
// hint before it changes anything and records nothing; its destroy leaves the first state's
// objects alone, and the first state still plans no change.
func (o KeyOwnership) TestOtherState(t *testing.T, e *Env) {
	cfg := o.config(e)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: o.Factories,
		CheckDestroy:             o.CheckDestroy,
		Steps: []resource.TestStep{
			{Config: cfg, Check: o.finished(e)},
			{
				PreConfig: func() {
					before, writes := o.snapshot(e), e.succeededWrites()
					// Its own test case: its own working directory and state.
					resource.Test(t, resource.TestCase{
						ProtoV6ProviderFactories: o.Factories,
						Steps: []resource.TestStep{
							{Config: cfg, ExpectError: o.refusal()},
							{Config: cfg, Destroy: true},
						},
					})
					if n := e.succeededWrites() - writes; n != 0 {
						t.Errorf("the refused state made %d mutating calls that succeeded; want 0: %v", n, e.Calls().Methods)
					}
					if after := o.snapshot(e); after != before {
						t.Errorf("the refused state changed the first state's objects:\nbefore: %s\nafter:  %s", before, after)
					}
				},
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            o.finished(e),
			},
		},
	})
}

// TestDuplicateAtPlan: two resources of one configuration with the same name fail at plan,
// naming the duplicate, before any mutating call.
func (o KeyOwnership) TestDuplicateAtPlan(t *testing.T, e *Env) {
	writes := e.succeededWrites()
	name := strconv.Quote(o.Name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: o.Factories,
		Steps: []resource.TestStep{{
			Config:      e.Config(o.Resource("a", name) + o.Resource("b", name)),
			PlanOnly:    true,
			ExpectError: o.duplicate(),
		}},
	})
	if n := e.succeededWrites() - writes; n != 0 {
		t.Errorf("the refused plan made %d mutating calls; want 0: %v", n, e.Calls().Methods)
	}
	if _, ok := e.ControllerKey(o.Cluster, o.Key); ok {
		t.Errorf("%s was written by a plan that failed", o.Key)
	}
}

// TestDuplicateAtApply: two resources with the same name that is known only at apply (it comes
// from another resource) fail at apply, naming the duplicate; exactly one of them is created,
// finished, and recorded.
func (o KeyOwnership) TestDuplicateAtApply(t *testing.T, e *Env) {
	const name = "terraform_data.name.output"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: o.Factories,
		CheckDestroy:             o.CheckDestroy,
		Steps: []resource.TestStep{
			{
				Config: e.Config(fmt.Sprintf("resource \"terraform_data\" \"name\" {\n  input = %q\n}\n", o.Name) +
					o.Resource("a", name) + o.Resource("b", name)),
				ExpectError: o.duplicate(),
			},
			o.exactlyOneRecorded(e),
		},
	})
}

// exactlyOneRecorded is a step that refreshes the state of two resources a and b with one name
// and checks that exactly one of them is recorded and its key finished.
func (o KeyOwnership) exactlyOneRecorded(e *Env) resource.TestStep {
	return resource.TestStep{
		// The other still plans its create (which its apply would refuse: the key is taken).
		RefreshState:       true,
		ExpectNonEmptyPlan: true,
		Check: resource.ComposeAggregateTestCheckFunc(o.finished(e), func(s *terraform.State) error {
			var recorded []string
			for _, label := range []string{"a", "b"} {
				if _, ok := s.RootModule().Resources[o.Type+"."+label]; ok {
					recorded = append(recorded, label)
				}
			}
			if len(recorded) != 1 {
				return fmt.Errorf("the state records %v of the two; want exactly one", recorded)
			}
			return nil
		}),
	}
}

// TestInterrupted: a create stopped after it wrote its key (removing the creation marker fails,
// and the state is then forgotten, as a killed provider or Terraform leaves it) is finished by a
// plain re-apply, which then plans no change.
func (o KeyOwnership) TestInterrupted(t *testing.T, e *Env) {
	cfg := o.config(e)
	var deletes int64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: o.Factories,
		CheckDestroy:             o.CheckDestroy,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					// The first setMetadata claims the key; the next, which would remove the marker, fails.
					e.ApplyFaults(t, core.FaultSpec{ErrorRates: []core.ErrorRate{{
						Method: "compute.instances.setMetadata", Rate: 1, SkipFirst: 1, Code: 400, Message: "stopped here (injected)",
					}}})
				},
				Config:      cfg,
				ExpectError: ErrorMatching(`(?s)removing its creation marker.*stopped here \(injected\)`),
			},
			{
				PreConfig: func() { e.Server.Faults.Clear() },
				Config:    e.Config(fmt.Sprintf("removed {\n  from = %s\n  lifecycle {\n    destroy = false\n  }\n}\n", o.addr())),
				Check: func(*terraform.State) error {
					if v, ok := e.ControllerKey(o.Cluster, o.Key); !ok || !cc.HasCreateMarker(v) {
						return fmt.Errorf("the interrupted create left %s without its creation marker (present: %v): %s", o.Key, ok, v)
					}
					return nil
				},
			},
			{
				PreConfig:        func() { deletes = e.deletes() },
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(o.addr(), plancheck.ResourceActionCreate)}},
				Check: resource.ComposeAggregateTestCheckFunc(o.finished(e), func(*terraform.State) error {
					// It finishes what the interrupted create made (a partition's nodes) rather than
					// starting over.
					if n := e.deletes() - deletes; n != 0 {
						return fmt.Errorf("finishing the interrupted create made %d delete calls: %v", n, e.Calls().Methods)
					}
					return nil
				}),
			},
			noChange(cfg),
		},
	})
}

// deletes counts the delete calls the emulator served, of any API.
func (e *Env) deletes() int64 {
	var n int64
	for name, m := range e.Calls().Methods {
		if strings.HasSuffix(name, ".delete") {
			n += m.Count
		}
	}
	return n
}
