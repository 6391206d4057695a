package blueprints_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/policy"
)

// agentVar is the blueprints' agent variable: on the API-only local cloud no VM boots, so the
// build is never fetched (the fake agent reports in its place), but a plan needs one named.
const agentVar = `{url="file:///opt/hypercompute/hypercompute-agent",sha256="0000000000000000000000000000000000000000000000000000000000000000"}`

// ml-staging applied on the API-only local cloud as its users apply it: apply, an empty plan
// (-detailed-exitcode 0), the debug partition grown by a node in place, an empty plan again, then
// the two-step teardown its deletion_protection variable documents, after which the local cloud
// holds nothing the apply made.
func TestAccBlueprint_mlStaging(t *testing.T) {
	env := acctest.New(t)
	agent := acctest.StartFakeAgent(t, env.Env)
	before := inventory(t, env.Env)
	bp := newBlueprint(t, env.Env, "ml-staging", map[string]string{"project_id": acctest.Project, "agent": agentVar})

	bp.applyCompliant("ml-staging")
	requireVMs(t, env.Env, "ml-staging-debug", 1)
	bp.requireSettled("after the apply")

	hash := agent.ControllerHash("ml-staging")
	bp.applyInPlace("debug_nodes 1 -> 2", map[string]string{"debug_nodes": "2"}, partitionAddr("debug"))
	requireVMs(t, env.Env, "ml-staging-debug", 2)
	// The controller took the grown partition: its agent reported a new Slurm configuration.
	if got := agent.ControllerHash("ml-staging"); got == hash {
		t.Errorf("the controller still reports config hash %s after the partition grew", got)
	}
	bp.requireSettled("after the in-place change")

	teardown(t, bp)
	requireEmptied(t, env.Env, before)
}

// ml-prod at a small scale (2 static + 2 dynamic A3 Mega nodes on a seeded reservation, up to 2
// L4 Spot nodes, one login VM) applied on the API-only local cloud: apply, an empty plan, an
// in-place change of a partition's node count and of the eval partition's Slurm node range, an
// empty plan again, then the documented two-step teardown (deletion_protection = false applied,
// then destroy), after which the local cloud holds nothing the apply made.
func TestAccBlueprint_mlProd(t *testing.T) {
	env := acctest.New(t)
	agent := acctest.StartFakeAgent(t, env.Env)
	seedReservation(t, env.Env, "a3mega", 16)
	before := inventory(t, env.Env)
	bp := newBlueprint(t, env.Env, "ml-prod", map[string]string{
		"project_id":           acctest.Project,
		"agent":                agentVar,
		"a3mega_reservation":   "a3mega",
		"a3mega_static_nodes":  "2",
		"a3mega_dynamic_nodes": "2",
		"eval_max_nodes":       "2",
		"login_count":          "1",
	})

	bp.applyCompliant("ml-prod")
	requireVMs(t, env.Env, "ml-prod-a3mega", 2)
	bp.requireSettled("after the apply")

	hash := agent.ControllerHash("ml-prod")
	bp.applyInPlace("a3mega_static_nodes 2 -> 3, eval_max_nodes 2 -> 4", map[string]string{"a3mega_static_nodes": "3", "eval_max_nodes": "4"},
		partitionAddr("a3mega"), partitionAddr("eval"))
	requireVMs(t, env.Env, "ml-prod-a3mega", 3)
	if got := agent.ControllerHash("ml-prod"); got == hash {
		t.Errorf("the controller still reports config hash %s after the partitions changed", got)
	}
	bp.requireSettled("after the in-place change")

	// The teardown's first step is what ml-prod's policy stage refuses: it is not a pipeline change.
	unprotect := teardown(t, bp)
	requirePolicy(t, "ml-prod", unprotect,
		policy.Violation{Rule: "deletion_protection", Address: "module.cluster.hypercompute_training_cluster.this", Msg: unprotected},
		policy.Violation{Rule: "deletion_protection", Address: "module.cluster.module.home.hypercompute_filestore.this", Msg: unprotected},
		policy.Violation{Rule: "deletion_protection", Address: "module.cluster.module.lustre[0].hypercompute_lustre.this", Msg: unprotected})
	requireEmptied(t, env.Env, before)
}

// teardown is the two-step teardown of a protected blueprint: deletion_protection = false applied
// in place (a destroy plan never changes it, so the protected cluster, /home and Lustre would
// refuse it), then terraform destroy. It returns the first step's plan.
func teardown(t *testing.T, bp *blueprint) *tfjson.Plan {
	t.Helper()
	plan := bp.applyInPlace("deletion_protection = false", map[string]string{"deletion_protection": "false"},
		"module.cluster.hypercompute_training_cluster.this",
		"module.cluster.module.home.hypercompute_filestore.this",
		"module.cluster.module.lustre[0].hypercompute_lustre.this")
	bp.destroy()
	return plan
}

// partitionAddr is the address of a partition the blueprints make through modules/training-cluster.
func partitionAddr(name string) string {
	return fmt.Sprintf("module.cluster.module.partition[%q].hypercompute_node_partition.this", name)
}

// inventory is what the local cloud holds, read as a user would: GET /emulator/v1/inventory.
func inventory(t testing.TB, env *emulatortest.Env) emulator.Inventory {
	t.Helper()
	resp, err := http.Get("http://" + env.Host + "/emulator/v1/inventory")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var inv emulator.Inventory
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /emulator/v1/inventory: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&inv); err != nil {
		t.Fatal(err)
	}
	return inv
}

// requireEmptied fails when the local cloud holds anything that was not there before the apply
// (what the test seeded itself, such as a reservation) other than the state bucket, which holds
// the environment's state and outlives it.
func requireEmptied(t *testing.T, env *emulatortest.Env, before emulator.Inventory) {
	t.Helper()
	had := map[string]bool{"projects/_/buckets/" + acctest.StateBucket: true}
	for _, items := range before.Kinds {
		for _, it := range items {
			had[it.Key] = true
		}
	}
	var left []string
	for kind, items := range inventory(t, env).Kinds {
		for _, it := range items {
			if !had[it.Key] {
				left = append(left, kind+" "+it.Key)
			}
		}
	}
	slices.Sort(left)
	if len(left) > 0 {
		t.Errorf("after destroy the local cloud still holds %d resources:\n  %s", len(left), strings.Join(left, "\n  "))
	}
}

// requireVMs fails unless exactly n VMs named <prefix>-<i> (a partition's static nodes) exist.
func requireVMs(t testing.TB, env *emulatortest.Env, prefix string, n int) {
	t.Helper()
	if got := countVMs(t, env, prefix); got != n {
		t.Fatalf("%d VMs named %s-<i>, want %d", got, prefix, n)
	}
}

func countVMs(t testing.TB, env *emulatortest.Env, prefix string) int {
	t.Helper()
	n := 0
	for _, name := range inventory(t, env).Names(instances.KindInstances) {
		if rest, ok := strings.CutPrefix(name, prefix+"-"); ok && !strings.HasPrefix(rest, "d") {
			n++
		}
	}
	return n
}

// seedReservation makes a specific A3 Mega reservation of count VMs in the test project's zone
// through the admin API, as module-tests.sh does: a reservation partition's plan checks its
// capacity.
func seedReservation(t testing.TB, env *emulatortest.Env, name string, count int) {
	t.Helper()
	adminPost(t, env, "/emulator/v1/reservations", emulator.ReservationRequest{
		Project: acctest.Project, Zone: acctest.Zone,
		Reservation: json.RawMessage(fmt.Sprintf(`{"name": %q, "specificReservationRequired": true,
		  "specificReservation": {"count": "%d", "instanceProperties": {"machineType": "a3-megagpu-8g"}}}`, name, count)),
	})
}

func adminPost(t testing.TB, env *emulatortest.Env, path string, body any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+env.Host+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		var msg bytes.Buffer
		_, _ = msg.ReadFrom(resp.Body)
		t.Fatalf("POST %s: %s %s", path, resp.Status, msg.String())
	}
}
