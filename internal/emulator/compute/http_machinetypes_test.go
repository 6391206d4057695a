package compute_test

import (
	"net/url"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// TestHTTPGeneralPurposeMachineTypes: the general-purpose families real clients use (n1, e2 shared-core and
// standard, f1-micro, g1-small, n2, n2d, c2, c3, c4, t2d) are served by machineTypes get/list/aggregatedList with
// the fields of recorded real answers, and instances.insert accepts n1-standard-1.
func TestHTTPGeneralPurposeMachineTypes(t *testing.T) {
	env := emulatortest.Start(t)
	code, mt := do(t, env, "GET", cz+"/zones/"+zone+"/machineTypes/e2-micro", nil)
	want := map[string]any{
		"kind": "compute#machineType", "name": "e2-micro", "description": "Efficient Instance, 2 vCPU (1/8 shared physical core) and 1 GB RAM",
		"guestCpus": float64(2), "memoryMb": float64(1024), "imageSpaceGb": float64(0), "maximumPersistentDisks": float64(16),
		"maximumPersistentDisksSizeGb": "3072", "zone": zone, "isSharedCpu": true, "architecture": "X86_64", "creationTimestamp": "1969-12-31T16:00:00.000-08:00",
		"selfLink": "https://www.googleapis.com/compute/v1/projects/" + project + "/zones/" + zone + "/machineTypes/e2-micro",
	}
	for k, v := range want {
		if code != 200 || mt[k] != v {
			t.Errorf("e2-micro %s = %v, want %v (%d)", k, mt[k], v, code)
		}
	}
	if _, ok := mt["id"].(string); !ok {
		t.Errorf("e2-micro id %v is not a uint64 string", mt["id"])
	}
	_, n1 := do(t, env, "GET", cz+"/zones/"+zone+"/machineTypes/n1-standard-1", nil)
	if n1["guestCpus"] != float64(1) || n1["memoryMb"] != float64(3840) || n1["imageSpaceGb"] != float64(10) || n1["isSharedCpu"] != false ||
		n1["maximumPersistentDisks"] != float64(128) || n1["maximumPersistentDisksSizeGb"] != "263168" || n1["description"] != "1 vCPU, 3.75 GB RAM" {
		t.Errorf("n1-standard-1: %v", n1)
	}

	families := []string{"n1-standard-1", "n1-highcpu-2", "e2-micro", "e2-small", "e2-medium", "e2-standard-2", "e2-highmem-2", "e2-highcpu-2",
		"f1-micro", "g1-small", "n2-standard-2", "n2-highcpu-2", "n2d-standard-2", "c2-standard-4", "c3-standard-4", "c4-standard-2", "t2d-standard-1"}
	code, list := do(t, env, "GET", cz+"/zones/"+zone+"/machineTypes?maxResults=500", nil)
	listed := map[string]map[string]any{}
	for _, it := range items(t, list) {
		listed[it["name"].(string)] = it
	}
	if code != 200 || list["kind"] != "compute#machineTypeList" {
		t.Fatalf("machineTypes.list: %d %v", code, list["kind"])
	}
	for _, name := range families {
		m, _ := catalog.Machine(name)
		if it := listed[name]; it == nil || it["guestCpus"] != float64(m.CPUs) || it["isSharedCpu"] != m.SharedCPU {
			t.Errorf("machineTypes.list in %s: %s = %v", zone, name, it)
		}
	}

	// aggregatedList: the type in every zone that offers it, a NO_RESULTS_ON_PAGE warning for the others.
	code, agg := do(t, env, "GET", cz+"/aggregated/machineTypes?filter="+url.QueryEscape(`name eq "f1-micro"`), nil)
	scopes, _ := agg["items"].(map[string]any)
	if code != 200 || len(scopes) != len(catalog.Zones()) {
		t.Fatalf("aggregatedList: %d, %d scopes for %d zones", code, len(scopes), len(catalog.Zones()))
	}
	for _, z := range catalog.Zones() {
		sc, _ := scopes["zones/"+z.Name].(map[string]any)
		got, _ := sc["machineTypes"].([]any)
		if z.Offers("f1-micro") != (len(got) == 1) {
			t.Errorf("aggregatedList zones/%s: %v", z.Name, sc)
		}
	}

	httpNet(t, env)
	inst := instanceBody("small-vm", "projects/debian-cloud/global/images/family/debian-12", nil)
	inst["machineType"] = "zones/" + zone + "/machineTypes/n1-standard-1"
	if code, op := do(t, env, "POST", cz+"/zones/"+zone+"/instances", inst); code != 200 || op["operationType"] != "insert" {
		t.Fatalf("instances.insert n1-standard-1: %d %v", code, op)
	}
	if code, got := do(t, env, "GET", cz+"/zones/"+zone+"/instances/small-vm", nil); code != 200 ||
		got["machineType"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/zones/"+zone+"/machineTypes/n1-standard-1" {
		t.Errorf("instance: %d %v", code, got["machineType"])
	}
}
