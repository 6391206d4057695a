package tfutil

import (
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

func testKey(name string) OwnedKey {
	ref := cc.ClusterID{Project: "p", Zone: "us-central1-a", Name: "ml"}
	return OwnedKey{Type: "hypercompute_health_policy", What: "health policy", Cluster: ref, Name: name,
		Key: cc.HealthPolicyKey(name), ImportID: ref.Child("healthPolicies", name)}
}

// A create may write a key that is absent or marked as unfinished, and no other; the refusal
// names the cluster, the name and the import.
func TestCheckClaim(t *testing.T) {
	k := testKey("default")
	marked, _ := cc.WithCreateMarker(`{"name":"default"}`)
	if err := k.CheckClaim(map[string]string{"other": "x"}); err != nil {
		t.Errorf("absent key refused: %v", err)
	}
	if err := k.CheckClaim(map[string]string{k.Key: marked}); err != nil {
		t.Errorf("unfinished create refused: %v", err)
	}
	err := k.CheckClaim(map[string]string{k.Key: `{"name":"default"}`})
	if !IsRefusedCreate(err) {
		t.Fatalf("finished key: %v; want a refusal", err)
	}
	for _, want := range []string{`health policy "default" of cluster projects/p/zones/us-central1-a/clusters/ml`,
		"another Terraform state's, or an interrupted apply of this one",
		"terraform import hypercompute_health_policy.<name> projects/p/zones/us-central1-a/clusters/ml/healthPolicies/default"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}
}

// Two creates of one key never run at once in one process; other keys are unaffected, and a
// finished create frees its key.
func TestBeginCreate(t *testing.T) {
	k := testKey("inflight")
	done, err := k.BeginCreate()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testKey("another").BeginCreate(); err != nil {
		t.Errorf("another key: %v", err)
	}
	_, err = k.BeginCreate()
	if !IsRefusedCreate(err) || !strings.Contains(err.Error(), `another hypercompute_health_policy with the name "inflight"`) {
		t.Errorf("second create of one key: %v", err)
	}
	done()
	done2, err := k.BeginCreate()
	if err != nil {
		t.Errorf("after the first finished: %v", err)
	}
	done2()
}

// The plan registry says which create of an owner came first, per operation (per Data).
func TestPlannedCreates(t *testing.T) {
	var p providerdata.PlannedCreates
	a, b := testKey("a").owner(), testKey("b").owner()
	if !p.Plan(a) || !p.Plan(b) {
		t.Fatal("first creates refused")
	}
	if p.Plan(a) {
		t.Error("a second create of a was accepted")
	}
	var next providerdata.PlannedCreates
	if !next.Plan(a) {
		t.Error("another operation saw this one's creates")
	}
}
