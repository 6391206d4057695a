package compute_test

import (
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// doneOp asserts a mutating call answered a zonal operation that is DONE without error (the emulator runs
// with no operation latency in tests).
func doneOp(t *testing.T, what string, code int, op map[string]any) {
	t.Helper()
	if code != 200 || op["kind"] != "compute#operation" || op["error"] != nil {
		t.Fatalf("%s: %d %v", what, code, op)
	}
}

func TestHTTPDiskSetLabelsResizeResourcePolicies(t *testing.T) {
	env := emulatortest.Start(t)
	d := cz + "/zones/" + zone + "/disks/data"
	code, op := do(t, env, "POST", cz+"/zones/"+zone+"/disks", map[string]any{"name": "data", "sizeGb": "100"})
	doneOp(t, "disks.insert", code, op)
	_, disk := do(t, env, "GET", d, nil)
	fp, _ := disk["labelFingerprint"].(string)

	// setLabels: a stale fingerprint is 412 conditionNotMet; the current one sets labels and changes it.
	code, body := do(t, env, "POST", d+"/setLabels", map[string]any{"labels": map[string]string{"team": "ml"}, "labelFingerprint": "c3RhbGU="})
	wantError(t, code, body, 412, "conditionNotMet", "Labels fingerprint either invalid or resource labels have changed")
	code, op = do(t, env, "POST", d+"/setLabels", map[string]any{"labels": map[string]string{"team": "ml"}, "labelFingerprint": fp})
	doneOp(t, "disks.setLabels", code, op)
	if op["operationType"] != "setLabels" || !strings.HasSuffix(op["targetLink"].(string), "/disks/data") || !strings.HasSuffix(op["zone"].(string), "/zones/"+zone) {
		t.Errorf("setLabels operation = %v", op)
	}
	_, disk = do(t, env, "GET", d, nil)
	if labels, _ := disk["labels"].(map[string]any); labels["team"] != "ml" || disk["labelFingerprint"] == fp {
		t.Errorf("after setLabels: labels %v fingerprint %v (was %s)", disk["labels"], disk["labelFingerprint"], fp)
	}

	// resize only grows.
	code, body = do(t, env, "POST", d+"/resize", map[string]any{"sizeGb": "50"})
	wantError(t, code, body, 400, "invalid", "")
	code, body = do(t, env, "POST", d+"/resize", map[string]any{"sizeGb": "100"})
	wantError(t, code, body, 400, "invalid", "")
	code, op = do(t, env, "POST", d+"/resize", map[string]any{"sizeGb": "200"})
	doneOp(t, "disks.resize", code, op)
	if _, disk = do(t, env, "GET", d, nil); disk["sizeGb"] != "200" {
		t.Errorf("sizeGb after resize = %v, want \"200\"", disk["sizeGb"])
	}
	code, body = do(t, env, "POST", cz+"/zones/"+zone+"/disks/nope/resize", map[string]any{"sizeGb": "200"})
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/zones/"+zone+"/disks/nope' was not found")

	// Resource policies: snapshot schedules attach once and detach; a placement policy or a missing one does not.
	rp := cz + "/regions/us-central1/resourcePolicies"
	code, op = do(t, env, "POST", rp, map[string]any{"name": "daily", "snapshotSchedulePolicy": map[string]any{
		"schedule": map[string]any{"dailySchedule": map[string]any{"daysInCycle": 1, "startTime": "04:00"}}}})
	doneOp(t, "resourcePolicies.insert daily", code, op)
	code, op = do(t, env, "POST", rp, map[string]any{"name": "compact", "groupPlacementPolicy": map[string]any{"collocation": "COLLOCATED"}})
	doneOp(t, "resourcePolicies.insert compact", code, op)
	code, body = do(t, env, "POST", d+"/addResourcePolicies", map[string]any{"resourcePolicies": []string{"regions/us-central1/resourcePolicies/missing"}})
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/regions/us-central1/resourcePolicies/missing' was not found")
	code, body = do(t, env, "POST", d+"/addResourcePolicies", map[string]any{"resourcePolicies": []string{"regions/us-central1/resourcePolicies/compact"}})
	wantError(t, code, body, 400, "invalid", "")
	code, op = do(t, env, "POST", d+"/addResourcePolicies", map[string]any{"resourcePolicies": []string{"regions/us-central1/resourcePolicies/daily"}})
	doneOp(t, "disks.addResourcePolicies", code, op)
	_, disk = do(t, env, "GET", d, nil)
	want := "https://www.googleapis.com/compute/v1/projects/" + project + "/regions/us-central1/resourcePolicies/daily"
	if pols, _ := disk["resourcePolicies"].([]any); len(pols) != 1 || pols[0] != want {
		t.Fatalf("resourcePolicies = %v, want [%s]", disk["resourcePolicies"], want)
	}
	code, body = do(t, env, "POST", d+"/addResourcePolicies", map[string]any{"resourcePolicies": []string{want}})
	wantError(t, code, body, 400, "invalid", "")
	code, op = do(t, env, "POST", d+"/removeResourcePolicies", map[string]any{"resourcePolicies": []string{"regions/us-central1/resourcePolicies/daily"}})
	doneOp(t, "disks.removeResourcePolicies", code, op)
	if _, disk = do(t, env, "GET", d, nil); disk["resourcePolicies"] != nil {
		t.Errorf("resourcePolicies after remove = %v", disk["resourcePolicies"])
	}
	code, body = do(t, env, "POST", d+"/removeResourcePolicies", map[string]any{"resourcePolicies": []string{"regions/us-central1/resourcePolicies/daily"}})
	wantError(t, code, body, 400, "invalid", "")
}
