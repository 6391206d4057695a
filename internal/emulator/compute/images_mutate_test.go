package compute_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestHTTPImagePatchAndSetLabels(t *testing.T) {
	env := emulatortest.Start(t)
	images := cz + "/global/images"
	code, op := do(t, env, "POST", images, map[string]any{"name": "golden", "sourceImage": "projects/debian-cloud/global/images/family/debian-12", "family": "ml"})
	doneOp(t, "images.insert", code, op)
	_, img := do(t, env, "GET", images+"/golden", nil)

	// patch changes family, description and deprecation; anything else is refused.
	code, op = do(t, env, "PATCH", images+"/golden", map[string]any{"family": "ml-v2", "description": "tested"})
	doneOp(t, "images.patch", code, op)
	if op["operationType"] != "patch" {
		t.Errorf("patch operationType = %v", op["operationType"])
	}
	if code, fam := do(t, env, "GET", images+"/family/ml-v2", nil); code != 200 || fam["name"] != "golden" {
		t.Errorf("family ml-v2 → %d %v", code, fam)
	}
	// A deprecated image is no longer what its family resolves to.
	code, op = do(t, env, "PATCH", images+"/golden", map[string]any{"deprecated": map[string]any{"state": "DEPRECATED"}})
	doneOp(t, "images.patch deprecated", code, op)
	_, got := do(t, env, "GET", images+"/golden", nil)
	dep, _ := got["deprecated"].(map[string]any)
	if got["family"] != "ml-v2" || got["description"] != "tested" || dep["state"] != "DEPRECATED" {
		t.Fatalf("after patch: %v", got)
	}
	if code, _ := do(t, env, "GET", images+"/family/ml-v2", nil); code != 404 {
		t.Errorf("family of only a deprecated image → %d, want 404", code)
	}
	code, body := do(t, env, "PATCH", images+"/golden", map[string]any{"diskSizeGb": "999"})
	wantError(t, code, body, 400, "invalid", "")
	// Echoing unchanged output fields from a GET is accepted.
	code, op = do(t, env, "PATCH", images+"/golden", map[string]any{"name": "golden", "selfLink": img["selfLink"], "description": "again"})
	doneOp(t, "images.patch with echoed fields", code, op)
	code, body = do(t, env, "PATCH", images+"/golden", map[string]any{"family": "Bad_Family"})
	wantError(t, code, body, 400, "invalid", "")
	code, body = do(t, env, "PATCH", images+"/nope", map[string]any{"description": "x"})
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/global/images/nope' was not found")
	// Google's public images belong to another project: 403.
	_, pub := do(t, env, "GET", "/compute/v1/projects/debian-cloud/global/images/family/debian-12", nil)
	code, body = do(t, env, "PATCH", "/compute/v1/projects/debian-cloud/global/images/"+pub["name"].(string), map[string]any{"description": "x"})
	wantError(t, code, body, 403, "forbidden", "")

	// setLabels is guarded by the label fingerprint.
	fp, _ := got["labelFingerprint"].(string)
	code, body = do(t, env, "POST", images+"/golden/setLabels", map[string]any{"labels": map[string]string{"tier": "gold"}, "labelFingerprint": "c3RhbGU="})
	wantError(t, code, body, 412, "conditionNotMet", "Labels fingerprint either invalid or resource labels have changed")
	code, op = do(t, env, "POST", images+"/golden/setLabels", map[string]any{"labels": map[string]string{"tier": "gold"}, "labelFingerprint": fp})
	doneOp(t, "images.setLabels", code, op)
	_, got = do(t, env, "GET", images+"/golden", nil)
	if labels, _ := got["labels"].(map[string]any); labels["tier"] != "gold" || got["labelFingerprint"] == fp {
		t.Errorf("after setLabels: %v / %v", got["labels"], got["labelFingerprint"])
	}
}
