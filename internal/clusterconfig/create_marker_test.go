package clusterconfig_test

import (
	"reflect"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A marked key decodes exactly as the same key unmarked (every reader ignores the marker), and
// removing the marker gives back the encoder's output byte for byte, so a finished create leaves
// the value an update would write.
func TestCreateMarkerIsInvisibleToReaders(t *testing.T) {
	c := baseCluster("mk")
	part := cc.Partition{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2}
	b, err := cc.EncodePartition(c.Name, part)
	if err != nil {
		t.Fatal(err)
	}
	marked, ok := cc.WithCreateMarker(string(b))
	if !ok || !cc.HasCreateMarker(marked) || cc.HasCreateMarker(string(b)) {
		t.Fatalf("marking %q gave %q (ok %v)", b, marked, ok)
	}
	want, _ := cc.DecodePartition(c.Name, b)
	got, err := cc.DecodePartition(c.Name, []byte(marked))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the marked partition decodes as %+v (%v); want %+v", got, err, want)
	}
	if un := cc.WithoutCreateMarker(marked); un != string(b) {
		t.Errorf("unmarked: %q; want the encoder's %q", un, b)
	}
	if again, _ := cc.WithCreateMarker(marked); again != marked {
		t.Errorf("marking twice changed the value: %q", again)
	}

	policy := cc.HealthPolicy{Name: "default", Checks: []cc.HealthCheckSpec{{Name: cc.CheckDisk}}}
	pb, err := cc.EncodeHealthPolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	pm, _ := cc.WithCreateMarker(string(pb))
	wantPolicy, _ := cc.DecodeHealthPolicy(pb)
	if got, err := cc.DecodeHealthPolicy([]byte(pm)); err != nil || !reflect.DeepEqual(got, wantPolicy) {
		t.Errorf("the marked policy decodes as %+v (%v); want %+v", got, err, wantPolicy)
	}
	if un := cc.WithoutCreateMarker(pm); un != string(pb) {
		t.Errorf("unmarked policy: %q; want %q", un, pb)
	}
}

// A marker written some other way than WithCreateMarker is still found and removed; values that
// are not JSON objects are never marked.
func TestCreateMarkerOtherSpellings(t *testing.T) {
	v := `{ "name": "x", "hypercompute-create": "pending" }`
	if !cc.HasCreateMarker(v) {
		t.Fatalf("%s: marker not found", v)
	}
	if un := cc.WithoutCreateMarker(v); un != `{"name":"x"}` {
		t.Errorf("unmarked: %s", un)
	}
	if cc.HasCreateMarker(`{"hypercompute-create": "done"}`) || cc.HasCreateMarker("not json") {
		t.Error("a value without the pending marker reads as marked")
	}
	for _, bad := range []string{"", "{}", "[1]", "null", "text"} {
		if _, ok := cc.WithCreateMarker(bad); ok {
			t.Errorf("%q was marked", bad)
		}
	}
}
