package storage_test

import (
	"net/http"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

const bucketsPath = "/storage/v1/b?project=" + project

func TestBucketInsertAnswersTheAPIDefaults(t *testing.T) {
	e := emulatortest.Start(t)
	b := must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "plain-bucket"})
	for k, want := range map[string]any{
		"kind": "storage#bucket", "id": "plain-bucket", "name": "plain-bucket",
		"selfLink":      "https://www.googleapis.com/storage/v1/b/plain-bucket",
		"projectNumber": emulator.ProjectNumber(project), "location": "US", "locationType": "multi-region",
		"rpo": "DEFAULT", "storageClass": "STANDARD", "metageneration": "1", "etag": "CAE=",
	} {
		if b[k] != want {
			t.Errorf("%s = %v, want %v", k, b[k], want)
		}
	}
	if got := field(b, "softDeletePolicy", "retentionDurationSeconds"); got != "604800" {
		t.Errorf("softDeletePolicy.retentionDurationSeconds = %v, want the 7-day default", got)
	}
	if got := field(b, "iamConfiguration", "uniformBucketLevelAccess", "enabled"); got != false {
		t.Errorf("uniform bucket-level access = %v, want false by default", got)
	}
	if got := field(b, "iamConfiguration", "publicAccessPrevention"); got != "inherited" {
		t.Errorf("publicAccessPrevention = %v", got)
	}
	if _, ok := b["hierarchicalNamespace"]; ok {
		t.Errorf("hierarchicalNamespace present on a bucket created without it: %v", b["hierarchicalNamespace"])
	}
	for _, k := range []string{"timeCreated", "updated", "generation"} {
		if s, _ := b[k].(string); s == "" {
			t.Errorf("%s missing", k)
		}
	}
	got := must(t, e, http.StatusOK, "GET", "/storage/v1/b/plain-bucket", nil)
	if got["etag"] != "CAE=" || got["location"] != "US" {
		t.Errorf("get answers %v", got)
	}
	if n := e.CallCount("storage.buckets.insert"); n != 1 {
		t.Errorf("storage.buckets.insert counted %d times, want 1", n)
	}
}

func TestBucketInsertWithTheAIMLFeatures(t *testing.T) {
	e := emulatortest.Start(t)
	b := must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{
		"name": "ckpt-bucket", "location": "us-central1", "storageClass": "STANDARD",
		"hierarchicalNamespace": map[string]any{"enabled": true},
		"iamConfiguration":      map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}},
		"autoclass":             map[string]any{"enabled": true},
		"softDeletePolicy":      map[string]any{"retentionDurationSeconds": "0"},
		"labels":                map[string]any{"purpose": "checkpoints"},
	})
	if b["location"] != "US-CENTRAL1" || b["locationType"] != "region" {
		t.Errorf("location %v / %v, want US-CENTRAL1 / region", b["location"], b["locationType"])
	}
	if _, ok := b["rpo"]; ok {
		t.Errorf("a regional bucket has rpo %v; the API sends none", b["rpo"])
	}
	if field(b, "hierarchicalNamespace", "enabled") != true {
		t.Errorf("hierarchicalNamespace = %v", b["hierarchicalNamespace"])
	}
	for _, k := range []string{"uniformBucketLevelAccess", "bucketPolicyOnly"} {
		if field(b, "iamConfiguration", k, "enabled") != true {
			t.Errorf("iamConfiguration.%s = %v", k, field(b, "iamConfiguration", k))
		}
		if s, _ := field(b, "iamConfiguration", k, "lockedTime").(string); s == "" {
			t.Errorf("iamConfiguration.%s.lockedTime missing", k)
		}
	}
	if field(b, "autoclass", "enabled") != true || field(b, "autoclass", "terminalStorageClass") != "NEARLINE" {
		t.Errorf("autoclass = %v, want enabled with the NEARLINE default", b["autoclass"])
	}
	if s, _ := field(b, "autoclass", "toggleTime").(string); s == "" {
		t.Errorf("autoclass.toggleTime missing")
	}
	if field(b, "softDeletePolicy", "retentionDurationSeconds") != "0" {
		t.Errorf("softDeletePolicy = %v, want retention 0", b["softDeletePolicy"])
	}
	if field(b, "labels", "purpose") != "checkpoints" {
		t.Errorf("labels = %v", b["labels"])
	}
	layout := must(t, e, http.StatusOK, "GET", "/storage/v1/b/ckpt-bucket/storageLayout", nil)
	if layout["kind"] != "storage#storageLayout" || field(layout, "hierarchicalNamespace", "enabled") != true || layout["location"] != "US-CENTRAL1" {
		t.Errorf("storageLayout = %v", layout)
	}
	dual := must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "dual-bucket", "location": "nam4", "rpo": "ASYNC_TURBO"})
	if dual["locationType"] != "dual-region" || dual["rpo"] != "ASYNC_TURBO" || dual["location"] != "NAM4" {
		t.Errorf("dual-region bucket = %v", dual)
	}
}

func TestBucketInsertRejectsWhatTheAPIRejects(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "taken"})
	for _, tc := range []struct {
		name, path string
		body       any
		code       int
		reason     string
		msg        string
	}{
		{"no project", "/storage/v1/b", map[string]any{"name": "x-bucket"}, 400, "required", "Required parameter: project"},
		{"no name", bucketsPath, map[string]any{}, 400, "required", "Required"},
		{"bad name", bucketsPath, map[string]any{"name": "Bad_Name"}, 400, "invalid", "Invalid bucket name: 'Bad_Name'"},
		{"goog prefix", bucketsPath, map[string]any{"name": "google-data"}, 400, "invalid", "Invalid bucket name"},
		{"bad location", bucketsPath, map[string]any{"name": "x-bucket", "location": "mars-north1"}, 400, "invalid", "location constraint is not valid"},
		{"bad class", bucketsPath, map[string]any{"name": "x-bucket", "storageClass": "WARM"}, 400, "invalid", "storage class is not valid"},
		{"hns without uniform access", bucketsPath, map[string]any{"name": "x-bucket", "hierarchicalNamespace": map[string]any{"enabled": true}}, 400, "invalid", "uniform bucket-level access"},
		{"versioning with hns", bucketsPath, map[string]any{"name": "x-bucket", "hierarchicalNamespace": map[string]any{"enabled": true},
			"iamConfiguration": map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}}, "versioning": map[string]any{"enabled": true}},
			400, "invalid", "Object versioning is not supported for buckets with hierarchical namespace enabled."},
		{"autoclass terminal", bucketsPath, map[string]any{"name": "x-bucket", "autoclass": map[string]any{"enabled": true, "terminalStorageClass": "COLDLINE"}}, 400, "invalid", "NEARLINE or ARCHIVE"},
		{"soft delete 3 days", bucketsPath, map[string]any{"name": "x-bucket", "softDeletePolicy": map[string]any{"retentionDurationSeconds": "259200"}}, 400, "invalid", "soft delete"},
		{"bad label", bucketsPath, map[string]any{"name": "x-bucket", "labels": map[string]any{"Team": "a"}}, 400, "invalid", "label key"},
		{"malformed JSON", bucketsPath, `{"name":`, 400, "parseError", "Parse Error"},
		{"taken in this project", bucketsPath, map[string]any{"name": "taken"}, 409, "conflict", "you already own it"},
		{"taken elsewhere", "/storage/v1/b?project=someone-else", map[string]any{"name": "taken"}, 409, "conflict", "not available"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, m, raw := call(t, e, "POST", tc.path, "application/json", tc.body)
			if code != tc.code {
				t.Fatalf("status %d, want %d: %s", code, tc.code, raw)
			}
			wantError(t, m, tc.code, tc.reason, tc.msg)
		})
	}
	if _, m, _ := call(t, e, "GET", "/storage/v1/b/x-bucket", "", nil); field(m, "error", "code") != float64(404) {
		t.Errorf("a rejected insert left a bucket: %v", m)
	} else {
		wantError(t, m, 404, "notFound", "The specified bucket does not exist.")
	}
}

func TestBucketPatchUpdateAndPreconditions(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{
		"name": "data-bucket", "location": "us-central1", "labels": map[string]any{"team": "ml", "tier": "hot"},
	})
	p := must(t, e, http.StatusOK, "PATCH", "/storage/v1/b/data-bucket?ifMetagenerationMatch=1", map[string]any{
		"storageClass": "NEARLINE", "labels": map[string]any{"tier": nil, "owner": "alice"},
		"softDeletePolicy": map[string]any{"retentionDurationSeconds": 1209600},
	})
	if p["metageneration"] != "2" || p["etag"] != "CAI=" {
		t.Errorf("metageneration/etag after a patch = %v/%v, want 2/CAI=", p["metageneration"], p["etag"])
	}
	labels, _ := p["labels"].(map[string]any)
	if len(labels) != 2 || labels["team"] != "ml" || labels["owner"] != "alice" {
		t.Errorf("labels after patch = %v, want team and owner (tier removed by its null)", labels)
	}
	if p["storageClass"] != "NEARLINE" || field(p, "softDeletePolicy", "retentionDurationSeconds") != "1209600" {
		t.Errorf("patch did not apply: %v", p)
	}
	// A stale metageneration is the documented 412.
	code, m, _ := call(t, e, "PATCH", "/storage/v1/b/data-bucket?ifMetagenerationMatch=1", "application/json", map[string]any{"storageClass": "STANDARD"})
	if code != 412 {
		t.Fatalf("stale ifMetagenerationMatch: status %d", code)
	}
	wantError(t, m, 412, "conditionNotMet", "pre-conditions")
	// The namespace is fixed at creation; enabling uniform access after the fact is allowed.
	code, m, _ = call(t, e, "PATCH", "/storage/v1/b/data-bucket", "application/json", map[string]any{"hierarchicalNamespace": map[string]any{"enabled": true}})
	if code != 400 {
		t.Fatalf("changing the namespace: status %d", code)
	}
	wantError(t, m, 400, "invalid", "hierarchical namespace")
	p = must(t, e, http.StatusOK, "PATCH", "/storage/v1/b/data-bucket", map[string]any{
		"iamConfiguration": map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}},
		"autoclass":        map[string]any{"enabled": true}, "storageClass": "STANDARD",
	})
	if field(p, "iamConfiguration", "uniformBucketLevelAccess", "enabled") != true || field(p, "autoclass", "enabled") != true {
		t.Errorf("patch enabling uniform access and autoclass = %v", p)
	}
	// update (PUT) replaces: labels left out are gone.
	u := must(t, e, http.StatusOK, "PUT", "/storage/v1/b/data-bucket", map[string]any{"name": "data-bucket", "labels": map[string]any{"only": "this"}})
	if labels, _ := u["labels"].(map[string]any); len(labels) != 1 || labels["only"] != "this" {
		t.Errorf("labels after update = %v, want only the ones sent", u["labels"])
	}
	if u["metageneration"] != "4" {
		t.Errorf("metageneration after two patches and an update = %v, want 4", u["metageneration"])
	}
	code, m, _ = call(t, e, "PATCH", "/storage/v1/b/nope-bucket", "application/json", map[string]any{})
	if code != 404 {
		t.Fatalf("patching a missing bucket: %d", code)
	}
	wantError(t, m, 404, "notFound", "does not exist")
}

func TestBucketListPagesByProject(t *testing.T) {
	e := emulatortest.Start(t)
	for _, n := range []string{"ml-c", "ml-a", "ml-b", "other-x"} {
		must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": n})
	}
	must(t, e, http.StatusOK, "POST", "/storage/v1/b?project=another-project", map[string]any{"name": "theirs"})
	names := func(m map[string]any) []string {
		var out []string
		items, _ := m["items"].([]any)
		for _, it := range items {
			out = append(out, it.(map[string]any)["name"].(string))
		}
		return out
	}
	page := must(t, e, http.StatusOK, "GET", bucketsPath+"&prefix=ml-&maxResults=2", nil)
	if got := names(page); len(got) != 2 || got[0] != "ml-a" || got[1] != "ml-b" || page["kind"] != "storage#buckets" {
		t.Fatalf("first page = %v (%v)", got, page)
	}
	tok, _ := page["nextPageToken"].(string)
	if tok == "" {
		t.Fatal("no nextPageToken on a full page")
	}
	page = must(t, e, http.StatusOK, "GET", bucketsPath+"&prefix=ml-&maxResults=2&pageToken="+tok, nil)
	if got := names(page); len(got) != 1 || got[0] != "ml-c" || page["nextPageToken"] != nil {
		t.Errorf("second page = %v (%v)", got, page)
	}
	// By project number too; another project's bucket never shows.
	all := must(t, e, http.StatusOK, "GET", "/storage/v1/b?project="+emulator.ProjectNumber(project), nil)
	if got := names(all); len(got) != 4 {
		t.Errorf("project's buckets by number = %v, want 4", got)
	}
	code, m, _ := call(t, e, "GET", bucketsPath+"&pageToken=!!!", "", nil)
	if code != 400 {
		t.Fatalf("malformed pageToken: status %d", code)
	}
	wantError(t, m, 400, "invalid", "page token")
}
