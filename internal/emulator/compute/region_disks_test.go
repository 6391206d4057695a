package compute_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestHTTPRegionDisks(t *testing.T) {
	env := emulatortest.Start(t)
	rd := cz + "/regions/us-central1/disks"
	zoneURL := func(z string) string {
		return "https://www.googleapis.com/compute/v1/projects/" + project + "/zones/" + z
	}
	body := map[string]any{"name": "shared", "sizeGb": "100", "type": "regions/us-central1/diskTypes/pd-balanced",
		"replicaZones": []string{"zones/us-central1-a", "projects/" + project + "/zones/us-central1-b"}}
	code, op := do(t, env, "POST", rd, body)
	doneOp(t, "regionDisks.insert", code, op)
	if op["region"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/regions/us-central1" || op["zone"] != nil {
		t.Errorf("regionDisks.insert answers a region operation: %v", op)
	}
	code, d := do(t, env, "GET", rd+"/shared", nil)
	zones, _ := d["replicaZones"].([]any)
	if code != 200 || d["kind"] != "compute#disk" || d["sizeGb"] != "100" || d["status"] != "READY" || d["zone"] != nil ||
		d["region"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/regions/us-central1" ||
		d["type"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/regions/us-central1/diskTypes/pd-balanced" ||
		d["selfLink"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/regions/us-central1/disks/shared" ||
		len(zones) != 2 || zones[0] != zoneURL("us-central1-a") || zones[1] != zoneURL("us-central1-b") {
		t.Fatalf("regional disk = %d %v", code, d)
	}
	_, list := do(t, env, "GET", rd, nil)
	if items, _ := list["items"].([]any); list["kind"] != "compute#diskList" || len(items) != 1 {
		t.Errorf("regionDisks.list = %v", list)
	}

	// disks.aggregatedList holds regional disks under their region's scope.
	_, agg := do(t, env, "GET", cz+"/aggregated/disks", nil)
	scoped, _ := agg["items"].(map[string]any)["regions/us-central1"].(map[string]any)
	if l, _ := scoped["disks"].([]any); len(l) != 1 {
		t.Errorf("aggregated disks for regions/us-central1 = %v", scoped)
	}

	code, b := do(t, env, "POST", rd, body)
	wantError(t, code, b, 409, "alreadyExists", "The resource 'projects/"+project+"/regions/us-central1/disks/shared' already exists")
	for name, change := range map[string]map[string]any{
		"one-zone":     {"replicaZones": []string{"zones/us-central1-a"}},
		"same-zone":    {"replicaZones": []string{"zones/us-central1-a", "zones/us-central1-a"}},
		"other-region": {"replicaZones": []string{"zones/us-central1-a", "zones/europe-west4-a"}},
		"too-small":    {"type": "regions/us-central1/diskTypes/pd-standard", "sizeGb": "100"},
	} {
		bad := map[string]any{"name": name}
		for k, v := range body {
			if k != "name" {
				bad[k] = v
			}
		}
		for k, v := range change {
			bad[k] = v
		}
		code, b = do(t, env, "POST", rd, bad)
		wantError(t, code, b, 400, "invalid", "")
	}
	code, b = do(t, env, "GET", cz+"/regions/nowhere-1/disks", nil)
	if code != 404 {
		t.Errorf("unknown region: %d %v", code, b)
	}

	code, op = do(t, env, "DELETE", rd+"/shared", nil)
	doneOp(t, "regionDisks.delete", code, op)
	code, b = do(t, env, "GET", rd+"/shared", nil)
	wantError(t, code, b, 404, "notFound", "The resource 'projects/"+project+"/regions/us-central1/disks/shared' was not found")
}
