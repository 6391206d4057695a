package storage_test

import (
	"net/http"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// A new bucket's ACLs are the project teams' (owners and editors OWNER, viewers READER), shown only with
// projection=full, and the bucketAccessControls / defaultObjectAccessControls endpoints read and change them.
func TestBucketACLsProjectionAndEndpoints(t *testing.T) {
	e := emulatortest.Start(t)
	num := emulator.ProjectNumber(project)
	b := must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "acl-bucket"})
	for _, k := range []string{"acl", "defaultObjectAcl", "owner"} {
		if _, ok := b[k]; ok {
			t.Errorf("insert without ACLs answers %s (noAcl is its default): %v", k, b[k])
		}
	}
	if got := must(t, e, http.StatusOK, "GET", "/storage/v1/b/acl-bucket", nil); got["acl"] != nil || got["owner"] != nil {
		t.Errorf("get without projection answers ACLs: %v", got)
	}
	full := must(t, e, http.StatusOK, "GET", "/storage/v1/b/acl-bucket?projection=full", nil)
	if field(full, "owner", "entity") != "project-owners-"+num {
		t.Errorf("owner = %v", full["owner"])
	}
	acl, _ := full["acl"].([]any)
	if len(acl) != 3 {
		t.Fatalf("acl = %v, want the three project teams", full["acl"])
	}
	owners := acl[0].(map[string]any)
	for k, want := range map[string]any{
		"kind": "storage#bucketAccessControl", "id": "acl-bucket/project-owners-" + num, "bucket": "acl-bucket",
		"selfLink": "https://www.googleapis.com/storage/v1/b/acl-bucket/acl/project-owners-" + num,
		"entity":   "project-owners-" + num, "role": "OWNER", "etag": "CAE=",
	} {
		if owners[k] != want {
			t.Errorf("acl[0].%s = %v, want %v", k, owners[k], want)
		}
	}
	if field(owners, "projectTeam", "team") != "owners" || field(owners, "projectTeam", "projectNumber") != num {
		t.Errorf("acl[0].projectTeam = %v", owners["projectTeam"])
	}
	if v := acl[2].(map[string]any); v["entity"] != "project-viewers-"+num || v["role"] != "READER" {
		t.Errorf("acl[2] = %v", v)
	}
	def, _ := full["defaultObjectAcl"].([]any)
	if len(def) != 3 || def[1].(map[string]any)["kind"] != "storage#objectAccessControl" || def[1].(map[string]any)["entity"] != "project-editors-"+num {
		t.Errorf("defaultObjectAcl = %v", full["defaultObjectAcl"])
	}
	if _, ok := def[0].(map[string]any)["bucket"]; ok {
		t.Errorf("a default object ACL entry carries bucket: %v", def[0])
	}

	// insert, get, list, delete.
	got := must(t, e, http.StatusOK, "POST", "/storage/v1/b/acl-bucket/acl", map[string]any{"entity": "group-ml@example.com", "role": "READER"})
	if got["email"] != "ml@example.com" || got["etag"] != "CAI=" || got["kind"] != "storage#bucketAccessControl" {
		t.Errorf("acl insert answers %v (the bucket's metageneration moves with its ACL)", got)
	}
	if got := must(t, e, http.StatusOK, "GET", "/storage/v1/b/acl-bucket/acl/group-ml@example.com", nil); got["role"] != "READER" {
		t.Errorf("acl get = %v", got)
	}
	list := must(t, e, http.StatusOK, "GET", "/storage/v1/b/acl-bucket/acl", nil)
	if items, _ := list["items"].([]any); list["kind"] != "storage#bucketAccessControls" || len(items) != 4 {
		t.Errorf("acl list = %v", list)
	}
	must(t, e, http.StatusNoContent, "DELETE", "/storage/v1/b/acl-bucket/acl/group-ml@example.com", nil)
	_, m, _ := call(t, e, "GET", "/storage/v1/b/acl-bucket/acl/group-ml@example.com", "", nil)
	wantError(t, m, 404, "notFound", "Not Found")
	_, m, _ = call(t, e, "POST", "/storage/v1/b/acl-bucket/acl", "", map[string]any{"entity": "nobody", "role": "READER"})
	wantError(t, m, 400, "invalid", "entity 'nobody'")
	_, m, _ = call(t, e, "POST", "/storage/v1/b/acl-bucket/defaultObjectAcl", "", map[string]any{"entity": "allUsers", "role": "WRITER"})
	wantError(t, m, 400, "invalid", "role 'WRITER'")
	got = must(t, e, http.StatusOK, "POST", "/storage/v1/b/acl-bucket/defaultObjectAcl", map[string]any{"entity": "allAuthenticatedUsers", "role": "READER"})
	if got["kind"] != "storage#objectAccessControl" || got["entity"] != "allAuthenticatedUsers" {
		t.Errorf("defaultObjectAcl insert = %v", got)
	}
	list = must(t, e, http.StatusOK, "GET", "/storage/v1/b/acl-bucket/defaultObjectAcl", nil)
	if items, _ := list["items"].([]any); list["kind"] != "storage#objectAccessControls" || len(items) != 4 {
		t.Errorf("defaultObjectAcl list = %v", list)
	}
	must(t, e, http.StatusNoContent, "DELETE", "/storage/v1/b/acl-bucket/defaultObjectAcl/allAuthenticatedUsers", nil)

	// Uniform bucket-level access: the legacy ACLs are gone from answers and their API answers 400.
	patched := must(t, e, http.StatusOK, "PATCH", "/storage/v1/b/acl-bucket", map[string]any{
		"iamConfiguration": map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}}})
	if _, ok := patched["acl"]; ok || field(patched, "owner", "entity") != "project-owners-"+num {
		t.Errorf("patch (full projection) on a uniform bucket: acl %v, owner %v", patched["acl"], patched["owner"])
	}
	for _, c := range []struct{ method, path, msg string }{
		{"GET", "/storage/v1/b/acl-bucket/acl", "Cannot get legacy ACL for a bucket that has uniform bucket-level access"},
		{"GET", "/storage/v1/b/acl-bucket/defaultObjectAcl/allUsers", "Cannot get legacy ACL"},
		{"POST", "/storage/v1/b/acl-bucket/acl", "Cannot use ACL API to update bucket policy when uniform bucket-level access is enabled"},
		{"DELETE", "/storage/v1/b/acl-bucket/defaultObjectAcl/project-viewers-" + num, "Cannot use ACL API"},
	} {
		code, m, _ := call(t, e, c.method, c.path, "", map[string]any{"entity": "allUsers", "role": "READER"})
		if code != 400 {
			t.Errorf("%s %s on a uniform bucket: %d, want 400", c.method, c.path, code)
		}
		wantError(t, m, 400, "invalid", c.msg)
	}
}

// objectAccessControls: an object starts with the bucket's default object ACL; list/get/insert/delete change
// only that generation's ACL, projection=full shows it, and uniform bucket-level access answers 400.
func TestObjectACLs(t *testing.T) {
	e := emulatortest.Start(t)
	num := emulator.ProjectNumber(project)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "obj-acl"})
	o := must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/obj-acl/o?uploadType=media&name=d/x.bin", "x")
	gen := o["generation"].(string)
	const acl = "/storage/v1/b/obj-acl/o/d%2Fx.bin/acl"
	list := must(t, e, http.StatusOK, "GET", acl, nil)
	items, _ := list["items"].([]any)
	if list["kind"] != "storage#objectAccessControls" || len(items) != 3 {
		t.Fatalf("object acl list = %v, want the bucket's three default entries", list)
	}
	first := items[0].(map[string]any)
	for k, want := range map[string]any{
		"kind": "storage#objectAccessControl", "bucket": "obj-acl", "object": "d/x.bin", "generation": gen,
		"entity": "project-owners-" + num, "role": "OWNER", "id": "obj-acl/d/x.bin/" + gen + "/project-owners-" + num,
		"selfLink": "https://www.googleapis.com/storage/v1/b/obj-acl/o/d%2Fx.bin/acl/project-owners-" + num,
	} {
		if first[k] != want {
			t.Errorf("object acl[0].%s = %v, want %v", k, first[k], want)
		}
	}
	if field(first, "projectTeam", "team") != "owners" {
		t.Errorf("object acl[0].projectTeam = %v", first["projectTeam"])
	}
	got := must(t, e, http.StatusOK, "POST", acl, map[string]any{"entity": "user-trainer@example.com", "role": "READER"})
	if got["email"] != "trainer@example.com" || got["role"] != "READER" {
		t.Errorf("object acl insert = %v", got)
	}
	must(t, e, http.StatusNoContent, "DELETE", acl+"/project-viewers-"+num, nil)
	if got := must(t, e, http.StatusOK, "GET", acl+"/user-trainer@example.com", nil); got["entity"] != "user-trainer@example.com" {
		t.Errorf("object acl get = %v", got)
	}
	full := must(t, e, http.StatusOK, "GET", "/storage/v1/b/obj-acl/o/d%2Fx.bin?projection=full", nil)
	var entities []string
	for _, a := range full["acl"].([]any) {
		entities = append(entities, a.(map[string]any)["entity"].(string))
	}
	if len(entities) != 3 || entities[2] != "user-trainer@example.com" {
		t.Errorf("projection=full acl entities = %v", entities)
	}
	_, m, _ := call(t, e, "GET", acl+"/project-viewers-"+num, "", nil)
	wantError(t, m, 404, "notFound", "Not Found")
	_, m, _ = call(t, e, "GET", "/storage/v1/b/obj-acl/o/nope/acl", "", nil)
	wantError(t, m, 404, "notFound", "No such object: obj-acl/nope")
	_, m, _ = call(t, e, "POST", acl, "", map[string]any{"entity": "allUsers", "role": "WRITER"})
	wantError(t, m, 400, "invalid", "role 'WRITER'")

	must(t, e, http.StatusOK, "PATCH", "/storage/v1/b/obj-acl", map[string]any{
		"iamConfiguration": map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}}})
	_, m, _ = call(t, e, "GET", acl, "", nil)
	wantError(t, m, 400, "invalid", "Cannot get legacy ACL for an object when uniform bucket-level access is enabled")
	_, m, _ = call(t, e, "POST", acl, "", map[string]any{"entity": "allUsers", "role": "READER"})
	wantError(t, m, 400, "invalid", "Cannot insert legacy ACL for an object when uniform bucket-level access is enabled")
}

// predefinedAcl and predefinedDefaultObjectAcl on insert and patch set the ACLs they name; an unknown value and
// any on a bucket with uniform bucket-level access are 400s.
func TestBucketPredefinedACLs(t *testing.T) {
	e := emulatortest.Start(t)
	num := emulator.ProjectNumber(project)
	b := must(t, e, http.StatusOK, "POST", bucketsPath+"&predefinedAcl=publicRead&predefinedDefaultObjectAcl=private", map[string]any{"name": "pre-acl"})
	acl, _ := b["acl"].([]any)
	def, _ := b["defaultObjectAcl"].([]any)
	if len(acl) != 2 || acl[1].(map[string]any)["entity"] != "allUsers" || acl[1].(map[string]any)["role"] != "READER" ||
		len(def) != 1 || def[0].(map[string]any)["entity"] != "project-owners-"+num {
		t.Errorf("insert with predefined ACLs: acl %v, defaultObjectAcl %v", b["acl"], b["defaultObjectAcl"])
	}
	p := must(t, e, http.StatusOK, "PATCH", "/storage/v1/b/pre-acl?predefinedAcl=private", map[string]any{})
	if acl, _ := p["acl"].([]any); len(acl) != 1 {
		t.Errorf("patch predefinedAcl=private: acl %v", p["acl"])
	}
	_, m, _ := call(t, e, "POST", bucketsPath+"&predefinedAcl=everyone", "", map[string]any{"name": "pre-acl-2"})
	wantError(t, m, 400, "invalid", "predefinedAcl: 'everyone'")
	_, m, _ = call(t, e, "POST", bucketsPath+"&predefinedAcl=private", "", map[string]any{"name": "pre-acl-3",
		"iamConfiguration": map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}}})
	wantError(t, m, 400, "invalid", "uniform bucket-level access")
}
