package nodepartition

import (
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func ptr[T any](v T) *T { return &v }

func TestParseRunDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"30s": 30 * time.Second, "90m": 90 * time.Minute, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "1d12h": 36 * time.Hour,
	} {
		if got, err := parseRunDuration(s); err != nil || got != want {
			t.Errorf("parseRunDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "29s", "8d", "7d1s", "forever", "1w"} {
		if _, err := parseRunDuration(bad); err == nil {
			t.Errorf("parseRunDuration(%q) accepted", bad)
		}
	}
	if got := formatRunDuration(7 * 24 * time.Hour); got != "7d" {
		t.Errorf("formatRunDuration(7d) = %q", got)
	}
}

func TestParseReservation(t *testing.T) {
	for s, want := range map[string]reservationRef{
		"res":                             {project: "me", name: "res"},
		"projects/other/reservations/res": {project: "other", name: "res", shared: true},
		"res/reservationBlocks/b1":        {project: "me", name: "res", block: "b1"},
		"projects/o/reservations/r/reservationBlocks/b/reservationSubBlocks/s": {project: "o", name: "r", block: "b", subBlock: "s", shared: true},
	} {
		if got, err := parseReservation(s, "me"); err != nil || got != want {
			t.Errorf("parseReservation(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "Res", "projects/o/zones/z/reservations/r", "r/reservationBlocks/", "r/reservationBlocks/b/x"} {
		if _, err := parseReservation(bad, "me"); err == nil {
			t.Errorf("parseReservation(%q) accepted", bad)
		}
	}
}

func TestClusterAndPartitionIDs(t *testing.T) {
	ref, err := cc.ParseClusterID("projects/p1/zones/us-central1-a/clusters/ml")
	if err != nil || ref != (cc.ClusterID{Project: "p1", Zone: "us-central1-a", Name: "ml"}) {
		t.Fatalf("parseClusterID = %+v, %v", ref, err)
	}
	id := partitionID(ref, "a3mega")
	r2, name, err := parsePartitionID(id)
	if err != nil || r2 != ref || name != "a3mega" {
		t.Fatalf("parsePartitionID(%q) = %+v %q %v", id, r2, name, err)
	}
	for _, bad := range []string{"ml", "projects/p/zones/mars-1/clusters/ml", "projects/p/zones/us-central1-a/clusters/ML"} {
		if _, err := cc.ParseClusterID(bad); err == nil {
			t.Errorf("cc.ParseClusterID(%q) accepted", bad)
		}
	}
}

// Derived names stay valid Compute names even for the longest prefixes, and a template's name
// follows its content only.
func TestDerivedNames(t *testing.T) {
	long := strings.Repeat("a", 32) + "-" + strings.Repeat("b", 27)
	for _, n := range []string{templateName(long, []byte("x")), placementPolicyName(long)} {
		if len(n) > 63 || strings.Contains(n, "--") {
			t.Errorf("derived name %q (%d characters) is not a valid Compute name", n, len(n))
		}
	}
	if templateName("c-p", []byte("a")) == templateName("c-p", []byte("b")) || templateName("c-p", []byte("a")) != templateName("c-p", []byte("a")) {
		t.Error("template names do not follow content")
	}
}

func TestImageArch(t *testing.T) {
	for image, want := range map[string]string{
		"projects/ubuntu-os-accelerator-images/global/images/family/ubuntu-accelerator-2404-arm64-with-nvidia-570": "arm64",
		"projects/ubuntu-os-accelerator-images/global/images/family/ubuntu-accelerator-2404-amd64-with-nvidia-570": "x86_64",
		"projects/my/global/images/golden-2025": "",
	} {
		if got := imageArch(image); got != want {
			t.Errorf("imageArch(%q) = %q, want %q", image, got, want)
		}
	}
}

// The rules skip what is unknown at plan time and catch it at apply.
func TestCheckSkipsUnknownValues(t *testing.T) {
	v := values{machineType: ptr("a4x-highgpu-4g"), model: nil, static: nil, dynamic: ptr(int64(4))}
	if got := check(v); len(got) != 0 {
		t.Errorf("rules with unknown inputs reported %v", got)
	}
	v.model = ptr(modelStandard)
	if got := check(v); len(got) != 1 || got[0].attr != "provisioning.model" {
		t.Errorf("A4X on demand: %v", got)
	}
	v = values{machineType: ptr("a3-megagpu-8g"), static: ptr(int64(0)), dynamic: ptr(int64(0))}
	if got := check(v); len(got) != 1 || got[0].attr != "static_node_count" {
		t.Errorf("zero nodes: %v", got)
	}
}

func TestQuotaNeed(t *testing.T) {
	d := &desired{model: modelStandard}
	d.machine, _ = machineOf("a3-megagpu-8g")
	if need := quotaNeed(d, 10, false); need["NVIDIA_H100_MEGA_GPUS"] != 80 || need["CPUS"] != 2080 || need["INSTANCES"] != 10 {
		t.Errorf("standard need = %v", need)
	}
	d.model = modelSpot
	if need := quotaNeed(d, 2, false); need["PREEMPTIBLE_NVIDIA_H100_MEGA_GPUS"] != 16 {
		t.Errorf("spot need = %v", need)
	}
	if need := quotaNeed(d, 3, true); len(need) != 1 || need["INSTANCES"] != 3 {
		t.Errorf("reserved need = %v", need)
	}
}

func TestSchedulingPerModel(t *testing.T) {
	mega, _ := machineOf("a3-megagpu-8g")
	ultra, _ := machineOf("a3-ultragpu-8g")
	for _, tc := range []struct {
		d                     desired
		model, ohm, term, aff string
	}{
		{desired{machine: mega, model: modelStandard}, "STANDARD", "TERMINATE", "", "ANY_RESERVATION"},
		{desired{machine: mega, model: modelSpot, termination: "STOP"}, "SPOT", "TERMINATE", "STOP", "NO_RESERVATION"},
		{desired{machine: mega, model: modelFlexStart, maxRun: time.Hour}, "FLEX_START", "TERMINATE", "DELETE", "NO_RESERVATION"},
		{desired{machine: mega, model: modelReservation, reservation: "r"}, "STANDARD", "TERMINATE", "", "SPECIFIC_RESERVATION"},
		{desired{machine: ultra, model: modelReservation, reservation: "r/reservationBlocks/b"}, "RESERVATION_BOUND", "TERMINATE", "", "SPECIFIC_RESERVATION"},
	} {
		sc, ra := scheduling(&tc.d), reservationAffinity(&tc.d)
		if sc.GetProvisioningModel() != tc.model || sc.GetOnHostMaintenance() != tc.ohm || sc.GetInstanceTerminationAction() != tc.term || ra.GetConsumeReservationType() != tc.aff {
			t.Errorf("%s/%s: scheduling %v, affinity %v", tc.d.machine.Name, tc.d.model, sc, ra)
		}
	}
	fs := scheduling(&desired{machine: mega, model: modelFlexStart, maxRun: time.Hour})
	if fs.GetMaxRunDuration().GetSeconds() != 3600 {
		t.Errorf("flex-start max run %v", fs.GetMaxRunDuration())
	}
}

func TestSummarizeFailures(t *testing.T) {
	got := summarizeFailures([]vmFailure{
		{Name: "c-p-3", Code: "ZONE_RESOURCE_POOL_EXHAUSTED", Message: "The zone does not have enough resources"},
		{Name: "c-p-4", Code: "ZONE_RESOURCE_POOL_EXHAUSTED", Message: "The zone does not have enough resources"},
		{Name: "c-p-9", Code: "QUOTA_EXCEEDED", Message: "Quota CPUS exceeded"},
	})
	want := "QUOTA_EXCEEDED on 1 VMs (c-p-9): Quota CPUS exceeded; ZONE_RESOURCE_POOL_EXHAUSTED on 2 VMs (c-p-[3-4]): The zone does not have enough resources"
	if got != want {
		t.Errorf("summarizeFailures = %q\nwant %q", got, want)
	}
}
