package storage_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestObjectsUploadDownloadListDelete(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "objs"})

	// Media upload: the body is the object.
	code, m, raw := call(t, e, "POST", "/upload/storage/v1/b/objs/o?uploadType=media&name=ckpt/step-1.pt", "application/octet-stream", "weights-1")
	if code != 200 || m["name"] != "ckpt/step-1.pt" || m["bucket"] != "objs" || m["size"] != "9" || m["kind"] != "storage#object" {
		t.Fatalf("media upload: %d %s", code, raw)
	}
	gen, _ := m["generation"].(string)
	if gen == "" || m["id"] != "objs/ckpt/step-1.pt/"+gen || m["selfLink"] != "https://www.googleapis.com/storage/v1/b/objs/o/ckpt%2Fstep-1.pt" {
		t.Errorf("object id %v, generation %v, selfLink %v", m["id"], m["generation"], m["selfLink"])
	}
	if _, ok := m["acl"]; ok {
		t.Errorf("an object answered without projection=full carries acl: %v", m["acl"])
	}
	if full := must(t, e, http.StatusOK, "GET", "/storage/v1/b/objs/o/ckpt%2Fstep-1.pt?projection=full", nil); full["acl"] == nil {
		t.Errorf("projection=full on a bucket with ACLs has no acl: %v", full)
	}
	// Multipart upload: JSON metadata, then the data.
	body := "--BOUNDARY\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" +
		`{"name":"ckpt/step-2.pt","contentType":"application/x-pytorch","metadata":{"step":"2"}}` +
		"\r\n--BOUNDARY\r\nContent-Type: application/x-pytorch\r\n\r\nweights-22\r\n--BOUNDARY--\r\n"
	code, m, raw = call(t, e, "POST", "/upload/storage/v1/b/objs/o?uploadType=multipart", "multipart/related; boundary=BOUNDARY", body)
	if code != 200 || m["name"] != "ckpt/step-2.pt" || m["contentType"] != "application/x-pytorch" || field(m, "metadata", "step") != "2" || m["size"] != "10" {
		t.Fatalf("multipart upload: %d %s", code, raw)
	}
	must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/objs/o?uploadType=media&name=README", "top level")

	// list: everything, then one "directory" level with a delimiter.
	list := must(t, e, http.StatusOK, "GET", "/storage/v1/b/objs/o", nil)
	if items, _ := list["items"].([]any); len(items) != 3 || list["kind"] != "storage#objects" {
		t.Errorf("objects.list = %v", list)
	}
	list = must(t, e, http.StatusOK, "GET", "/storage/v1/b/objs/o?delimiter=/", nil)
	if p, _ := list["prefixes"].([]any); len(p) != 1 || p[0] != "ckpt/" {
		t.Errorf("prefixes with delimiter = %v", list["prefixes"])
	}
	list = must(t, e, http.StatusOK, "GET", "/storage/v1/b/objs/o?prefix=ckpt/", nil)
	if items, _ := list["items"].([]any); len(items) != 2 {
		t.Errorf("prefix listing = %v", list)
	}

	// get: metadata, then the data three ways (JSON alt=media, the download path, the XML API the Go client reads with).
	meta := must(t, e, http.StatusOK, "GET", "/storage/v1/b/objs/o/ckpt%2Fstep-1.pt", nil)
	if meta["name"] != "ckpt/step-1.pt" || meta["size"] != "9" {
		t.Errorf("objects.get = %v", meta)
	}
	for _, p := range []string{"/storage/v1/b/objs/o/ckpt%2Fstep-1.pt?alt=media", "/download/storage/v1/b/objs/o/ckpt%2Fstep-1.pt?alt=media", "/objs/ckpt/step-1.pt"} {
		code, _, raw := call(t, e, "GET", p, "", nil)
		if code != 200 || string(raw) != "weights-1" {
			t.Errorf("GET %s: %d %q, want the object's data", p, code, raw)
		}
	}
	if n := e.CallCount("storage.objects.get"); n != 5 {
		t.Errorf("storage.objects.get counted %d, want 5 (projection=full, metadata, alt=media, download, XML read)", n)
	}

	// A bucket with objects cannot be deleted.
	code, m, _ = call(t, e, "DELETE", "/storage/v1/b/objs", "", nil)
	if code != 409 {
		t.Fatalf("deleting a bucket with objects: %d", code)
	}
	wantError(t, m, 409, "conflict", "not empty")

	for _, n := range []string{"ckpt%2Fstep-1.pt", "ckpt%2Fstep-2.pt", "README"} {
		if code, _, raw := call(t, e, "DELETE", "/storage/v1/b/objs/o/"+n, "", nil); code != 204 {
			t.Fatalf("deleting %s: %d %s", n, code, raw)
		}
	}
	if code, _, _ := call(t, e, "GET", "/storage/v1/b/objs/o/README", "", nil); code != 404 {
		t.Errorf("a deleted object answers %d, want 404", code)
	}
	if code, _, raw := call(t, e, "DELETE", "/storage/v1/b/objs", "", nil); code != 204 {
		t.Fatalf("deleting the empty bucket: %d %s", code, raw)
	}
	code, m, _ = call(t, e, "GET", "/storage/v1/b/objs", "", nil)
	if code != 404 {
		t.Fatalf("deleted bucket answers %d", code)
	}
	wantError(t, m, 404, "notFound", "does not exist")
}

func TestObjectsNeedAnExistingBucket(t *testing.T) {
	e := emulatortest.Start(t)
	for _, c := range []struct{ method, path string }{
		{"POST", "/upload/storage/v1/b/ghost/o?uploadType=media&name=a"},
		{"GET", "/storage/v1/b/ghost/o"},
		{"GET", "/storage/v1/b/ghost/o/a"},
	} {
		code, m, raw := call(t, e, c.method, c.path, "text/plain", "x")
		if code != 404 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, code, raw)
		}
		wantError(t, m, 404, "notFound", "bucket does not exist")
	}
	// The upload did not create the bucket behind the API's back.
	if code, _, _ := call(t, e, "GET", "/storage/v1/b/ghost", "", nil); code != 404 {
		t.Errorf("bucket ghost exists after an object call: %d", code)
	}
	// A path that is neither an API nor a bucket is still the router's 404.
	if code, _, _ := call(t, e, "GET", "/ghost/a", "", nil); code != 404 {
		t.Errorf("GET /ghost/a = %d", code)
	}
}

// TestGoClientWritesAndReads drives the official Go client (what gcsfuse is built on) against the emulator:
// resumable writes, XML-API reads, listing, deletion.
func TestGoClientWritesAndReads(t *testing.T) {
	e := emulatortest.Start(t)
	ctx := context.Background()
	c, err := gcs.NewClient(ctx, option.WithEndpoint(e.URL+"/storage/v1/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bh := c.Bucket("go-client")
	if err := bh.Create(ctx, project, &gcs.BucketAttrs{Location: "us-central1", UniformBucketLevelAccess: gcs.UniformBucketLevelAccess{Enabled: true},
		HierarchicalNamespace: &gcs.HierarchicalNamespace{Enabled: true}, Labels: map[string]string{"purpose": "checkpoints"}}); err != nil {
		t.Fatalf("creating the bucket: %v", err)
	}
	attrs, err := bh.Attrs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if attrs.Location != "US-CENTRAL1" || !attrs.UniformBucketLevelAccess.Enabled || attrs.HierarchicalNamespace == nil || !attrs.HierarchicalNamespace.Enabled || attrs.Labels["purpose"] != "checkpoints" {
		t.Errorf("bucket attrs = %+v", attrs)
	}
	// Larger than one chunk, so the write is a multi-request resumable upload.
	data := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	w := bh.Object("run/ckpt.pt").NewWriter(ctx)
	w.ChunkSize = 256 << 10
	if _, err := io.WriteString(w, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("resumable upload: %v", err)
	}
	r, err := bh.Object("run/ckpt.pt").NewReader(ctx)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != data {
		t.Errorf("read back %d bytes, want %d", len(got), len(data))
	}
	it := bh.Objects(ctx, &gcs.Query{Prefix: "run/"})
	var names []string
	for {
		o, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, o.Name+":"+filepath.Base(o.Bucket))
	}
	if len(names) != 1 || names[0] != "run/ckpt.pt:go-client" {
		t.Errorf("listed %v", names)
	}
	if err := bh.Object("run/ckpt.pt").Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if err := bh.Delete(ctx); err != nil {
		t.Fatalf("deleting the bucket: %v", err)
	}
}

func TestResetAndStateFileKeepObjectsInStepWithBuckets(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := emulatortest.Start(t, emulatortest.WithStateFile(state))
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "kept", "labels": map[string]any{"a": "b"}})
	must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/kept/o?uploadType=media&name=x", "data")
	e.Close()

	// Reloaded from the state file, the bucket serves objects again (objects themselves live in memory).
	e = emulatortest.Start(t, emulatortest.WithStateFile(state))
	b := must(t, e, http.StatusOK, "GET", "/storage/v1/b/kept", nil)
	if field(b, "labels", "a") != "b" {
		t.Errorf("reloaded bucket = %v", b)
	}
	must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/kept/o?uploadType=media&name=y", "data")

	e.Reset()
	if code, _, _ := call(t, e, "GET", "/storage/v1/b/kept", "", nil); code != 404 {
		t.Errorf("bucket survives a reset: %d", code)
	}
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "kept"})
	list := must(t, e, http.StatusOK, "GET", "/storage/v1/b/kept/o", nil)
	if items, _ := list["items"].([]any); len(items) != 0 {
		t.Errorf("a bucket recreated after a reset holds old objects: %v", items)
	}
}

// objects.move renames in one call, as gcsfuse renames a file; preconditions guard both names.
func TestObjectsMove(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "mvb"})
	up := must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/mvb/o?uploadType=media&name=ckpt.tmp", "weights")
	gen, _ := up["generation"].(string)
	must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/mvb/o?uploadType=media&name=taken", "other")

	code, m, _ := call(t, e, "POST", "/storage/v1/b/mvb/o/ckpt.tmp/moveTo/o/taken?ifGenerationMatch=0", "", nil)
	if code != 412 {
		t.Fatalf("move onto an existing object with ifGenerationMatch=0: %d", code)
	}
	wantError(t, m, 412, "conditionNotMet", "pre-conditions")
	if code, _, _ := call(t, e, "POST", "/storage/v1/b/mvb/o/ckpt.tmp/moveTo/o/ckpt?ifSourceGenerationMatch=1", "", nil); code != 412 {
		t.Fatalf("move with a stale source generation: %d", code)
	}
	moved := must(t, e, http.StatusOK, "POST", "/storage/v1/b/mvb/o/ckpt.tmp/moveTo/o/run%2Fckpt.pt?ifSourceGenerationMatch="+gen+"&ifGenerationMatch=0", nil)
	if moved["name"] != "run/ckpt.pt" || moved["size"] != "7" || moved["kind"] != "storage#object" {
		t.Errorf("move answered %v", moved)
	}
	if code, _, raw := call(t, e, "GET", "/storage/v1/b/mvb/o/run%2Fckpt.pt?alt=media", "", nil); code != 200 || string(raw) != "weights" {
		t.Errorf("moved object reads %d %q", code, raw)
	}
	if code, _, _ := call(t, e, "GET", "/storage/v1/b/mvb/o/ckpt.tmp", "", nil); code != 404 {
		t.Errorf("the source is still there after a move: %d", code)
	}
	code, m, _ = call(t, e, "POST", "/storage/v1/b/mvb/o/nope/moveTo/o/x", "", nil)
	if code != 404 {
		t.Fatalf("moving a missing object: %d", code)
	}
	wantError(t, m, 404, "notFound", "No such object: mvb/nope")
	if n := e.CallCount("storage.objects.move"); n != 4 {
		t.Errorf("storage.objects.move counted %d, want 4", n)
	}
}

// Uniform bucket-level access means no object ACLs: not even projection=full shows one.
func TestObjectsInUniformAccessBucketsHaveNoACL(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "ubla-b",
		"iamConfiguration": map[string]any{"uniformBucketLevelAccess": map[string]any{"enabled": true}}})
	must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/ubla-b/o?uploadType=media&name=x", "data")
	full := must(t, e, http.StatusOK, "GET", "/storage/v1/b/ubla-b/o/x?projection=full", nil)
	list := must(t, e, http.StatusOK, "GET", "/storage/v1/b/ubla-b/o?projection=full", nil)
	items, _ := list["items"].([]any)
	if _, ok := full["acl"]; ok || len(items) != 1 || items[0].(map[string]any)["acl"] != nil {
		t.Errorf("objects of a uniform-access bucket carry ACLs: get %v, list %v", full["acl"], items)
	}
}
