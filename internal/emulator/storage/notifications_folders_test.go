package storage_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// notificationConfigs insert/get/list/delete as the JSON API answers them (snake_case fields, topic in the
// //pubsub.googleapis.com form, ids from 1), also through the Go client.
func TestNotificationConfigs(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "notes"})
	const base = "/storage/v1/b/notes/notificationConfigs"
	n := must(t, e, http.StatusOK, "POST", base, map[string]any{
		"topic": "projects/" + project + "/topics/ckpt-events", "payload_format": "JSON_API_V1",
		"event_types": []string{"OBJECT_FINALIZE"}, "object_name_prefix": "ckpt/", "custom_attributes": map[string]string{"team": "ml"},
	})
	for k, want := range map[string]any{
		"kind": "storage#notification", "id": "1", "etag": "1", "payload_format": "JSON_API_V1", "object_name_prefix": "ckpt/",
		"topic":    "//pubsub.googleapis.com/projects/" + project + "/topics/ckpt-events",
		"selfLink": "https://www.googleapis.com/storage/v1/b/notes/notificationConfigs/1",
	} {
		if n[k] != want {
			t.Errorf("insert: %s = %v, want %v", k, n[k], want)
		}
	}
	if got := must(t, e, http.StatusOK, "GET", base+"/1", nil); got["topic"] != n["topic"] || field(got, "custom_attributes", "team") != "ml" {
		t.Errorf("get = %v", got)
	}
	for want, body := range map[string]map[string]any{
		"Required":                           {"payload_format": "NONE"},
		"Invalid Google Cloud Pub/Sub topic": {"topic": "ckpt-events", "payload_format": "NONE"},
		"payload_format":                     {"topic": "projects/" + project + "/topics/topic-1", "payload_format": "XML"},
		"event_types":                        {"topic": "projects/" + project + "/topics/topic-1", "payload_format": "NONE", "event_types": []string{"OBJECT_READ"}},
	} {
		code, m, _ := call(t, e, "POST", base, "", body)
		if msg, _ := field(m, "error", "message").(string); code != 400 || !strings.Contains(msg, want) {
			t.Errorf("insert %v: %d %q, want 400 saying %q", body, code, msg, want)
		}
	}

	ctx := context.Background()
	cl, err := gcs.NewClient(ctx, append(e.ClientOptions(), option.WithEndpoint(e.URL+"/storage/v1/"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	added, err := cl.Bucket("notes").AddNotification(ctx, &gcs.Notification{TopicProjectID: project, TopicID: "other", PayloadFormat: gcs.NoPayload})
	if err != nil || added.ID != "2" || added.TopicID != "other" || added.TopicProjectID != project {
		t.Fatalf("AddNotification: %v %+v", err, added)
	}
	all, err := cl.Bucket("notes").Notifications(ctx)
	if err != nil || len(all) != 2 || all["1"].ObjectNamePrefix != "ckpt/" || all["1"].EventTypes[0] != gcs.ObjectFinalizeEvent {
		t.Fatalf("Notifications: %v %+v", err, all)
	}
	if err := cl.Bucket("notes").DeleteNotification(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	_, m, _ := call(t, e, "GET", base+"/1", "", nil)
	wantError(t, m, 404, "notFound", "Notification configuration 1 not found")
	_, m, _ = call(t, e, "DELETE", base+"/1", "", nil)
	wantError(t, m, 404, "notFound", "not found")
	_, m, _ = call(t, e, "GET", "/storage/v1/b/ghost/notificationConfigs", "", nil)
	wantError(t, m, 404, "notFound", "bucket does not exist")
}

// Folders of a hierarchical-namespace bucket: insert (parents first, or recursive=true), get, list (with the
// folders objects imply), delete (409 while not empty); 400 on a flat bucket, 409 for a second insert.
func TestFoldersOfHierarchicalNamespaceBuckets(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "flat"})
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "hns",
		"hierarchicalNamespace": map[string]any{"enabled": true},
		"iamConfiguration":      map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}}})
	const folders = "/storage/v1/b/hns/folders"

	_, m, _ := call(t, e, "POST", "/storage/v1/b/flat/folders", "", map[string]any{"name": "a/"})
	wantError(t, m, 400, "invalid", "hierarchical namespace")
	f := must(t, e, http.StatusOK, "POST", folders, map[string]any{"name": "runs/"})
	for k, want := range map[string]any{
		"kind": "storage#folder", "id": "hns/runs/", "name": "runs/", "bucket": "hns", "metageneration": "1",
		"selfLink": "https://www.googleapis.com/storage/v1/b/hns/folders/runs%2F",
	} {
		if f[k] != want {
			t.Errorf("folder %s = %v, want %v", k, f[k], want)
		}
	}
	if f["createTime"] == nil || f["updateTime"] == nil {
		t.Errorf("folder times missing: %v", f)
	}
	_, m, _ = call(t, e, "POST", folders, "", map[string]any{"name": "runs/"})
	wantError(t, m, 409, "conflict", "already exists")
	code, _, _ := call(t, e, "POST", folders, "", map[string]any{"name": "a/b/c/"})
	if code != 404 {
		t.Errorf("a folder under missing parents without recursive: %d, want 404", code)
	}
	must(t, e, http.StatusOK, "POST", folders+"?recursive=true", map[string]any{"name": "a/b/c/"})
	if got := must(t, e, http.StatusOK, "GET", folders+"/a%2Fb%2F", nil); got["name"] != "a/b/" {
		t.Errorf("get a/b/ = %v", got)
	}
	// An object under a new path makes its folders.
	must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/hns/o?uploadType=media&name=runs/r1/ckpt.pt", "w")
	list := must(t, e, http.StatusOK, "GET", folders, nil)
	var names []string
	for _, it := range list["items"].([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	if list["kind"] != "storage#folders" || len(names) != 5 || names[0] != "a/" || names[3] != "runs/" || names[4] != "runs/r1/" {
		t.Errorf("folders = %v %v", list["kind"], names)
	}
	if p := must(t, e, http.StatusOK, "GET", folders+"?prefix=a/&maxResults=2", nil); len(p["items"].([]any)) != 2 || p["nextPageToken"] == nil {
		t.Errorf("first page of a/ = %v", p)
	}
	_, m, _ = call(t, e, "DELETE", folders+"/a%2Fb%2F", "", nil)
	wantError(t, m, 409, "conflict", "not empty")
	_, m, _ = call(t, e, "DELETE", folders+"/runs%2Fr1%2F", "", nil)
	wantError(t, m, 409, "conflict", "not empty")
	must(t, e, http.StatusNoContent, "DELETE", folders+"/a%2Fb%2Fc%2F", nil)
	must(t, e, http.StatusNoContent, "DELETE", folders+"/a/b/", nil)
	_, m, _ = call(t, e, "GET", folders+"/a%2Fb%2F", "", nil)
	wantError(t, m, 404, "notFound", "does not exist")
}

// Managed folders: buckets with uniform bucket-level access only (400 otherwise), 409 on a second insert and on
// deleting one over objects unless allowNonEmpty=true.
func TestManagedFolders(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "fine-grained"})
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "uniform",
		"iamConfiguration": map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}}})
	const mf = "/storage/v1/b/uniform/managedFolders"

	_, m, _ := call(t, e, "POST", "/storage/v1/b/fine-grained/managedFolders", "", map[string]any{"name": "team-a/"})
	wantError(t, m, 400, "invalid", "uniform bucket-level access")
	f := must(t, e, http.StatusOK, "POST", mf, map[string]any{"name": "team-a/datasets/"})
	if f["kind"] != "storage#managedFolder" || f["id"] != "uniform/team-a/datasets/" || f["selfLink"] != "https://www.googleapis.com/storage/v1/b/uniform/managedFolders/team-a%2Fdatasets%2F" {
		t.Errorf("managed folder = %v", f)
	}
	_, m, _ = call(t, e, "POST", mf, "", map[string]any{"name": "team-a/datasets/"})
	wantError(t, m, 409, "conflict", "already exists")
	if l := must(t, e, http.StatusOK, "GET", mf, nil); l["kind"] != "storage#managedFolders" || len(l["items"].([]any)) != 1 {
		t.Errorf("managed folders = %v (an object's path is no managed folder)", l)
	}
	must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/uniform/o?uploadType=media&name=team-a/datasets/x.bin", "x")
	_, m, _ = call(t, e, "DELETE", mf+"/team-a%2Fdatasets%2F", "", nil)
	wantError(t, m, 409, "conflict", "not empty")
	must(t, e, http.StatusNoContent, "DELETE", mf+"/team-a%2Fdatasets%2F?allowNonEmpty=true", nil)
	_, m, _ = call(t, e, "GET", mf+"/team-a%2Fdatasets%2F", "", nil)
	wantError(t, m, 404, "notFound", "does not exist")
	// A deleted bucket takes its managed folders along.
	must(t, e, http.StatusOK, "POST", mf, map[string]any{"name": "team-b/"})
	must(t, e, http.StatusNoContent, "DELETE", "/storage/v1/b/uniform/o/team-a%2Fdatasets%2Fx.bin", nil)
	must(t, e, http.StatusNoContent, "DELETE", "/storage/v1/b/uniform", nil)
	if n := len(e.Store().List("storage.managedFolders", "")); n != 0 {
		t.Errorf("%d managed folders outlived their bucket", n)
	}
}
