package storage_test

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// Objects carry the real API's etag (base64 of generation and metageneration, "CJ...EAE="), not their MD5,
// and a missing object's 404 names it ("No such object: B/O") on get, delete and media reads.
func TestObjectEtagAndNotFoundMessage(t *testing.T) {
	e := emulatortest.Start(t)
	must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{"name": "etags"})
	o := must(t, e, http.StatusOK, "POST", "/upload/storage/v1/b/etags/o?uploadType=media&name=a/b.txt", "hello")
	sum := md5.Sum([]byte("hello"))
	etag, _ := o["etag"].(string)
	if etag == "" || etag == base64.StdEncoding.EncodeToString(sum[:]) || etag == o["md5Hash"] {
		t.Fatalf("etag %q is the MD5 (%v)", etag, o["md5Hash"])
	}
	if !strings.HasPrefix(etag, "C") || !strings.HasSuffix(etag, "EAE=") {
		t.Errorf("etag %q, want the generation-derived form C...EAE=", etag)
	}
	raw, err := base64.StdEncoding.DecodeString(etag)
	if err != nil || raw[0] != 0x08 || raw[len(raw)-2] != 0x10 || raw[len(raw)-1] != 0x01 {
		t.Errorf("etag %q decodes to %x, want field 1 = generation, field 2 = metageneration 1", etag, raw)
	}
	if got := must(t, e, http.StatusOK, "GET", "/storage/v1/b/etags/o/a%2Fb.txt", nil); got["etag"] != etag {
		t.Errorf("get answers etag %v, insert %v", got["etag"], etag)
	}
	if list := must(t, e, http.StatusOK, "GET", "/storage/v1/b/etags/o", nil); field(list["items"].([]any)[0].(map[string]any), "etag") != etag {
		t.Errorf("list answers %v", list)
	}
	patched := must(t, e, http.StatusOK, "PATCH", "/storage/v1/b/etags/o/a%2Fb.txt", map[string]any{"metadata": map[string]string{"k": "v"}})
	if patched["kind"] != "storage#object" || patched["etag"] != objectEtagOf(patched) || field(patched, "metadata", "k") != "v" {
		t.Errorf("patch answers %v, want the object resource with its etag", patched)
	}

	for _, c := range []struct{ method, path string }{
		{"GET", "/storage/v1/b/etags/o/a%2Fnope.txt"},
		{"DELETE", "/storage/v1/b/etags/o/a%2Fnope.txt"},
		{"GET", "/storage/v1/b/etags/o/a%2Fnope.txt?alt=media"},
		{"GET", "/download/storage/v1/b/etags/o/a%2Fnope.txt?alt=media"},
	} {
		code, m, raw := call(t, e, c.method, c.path, "", nil)
		if code != 404 {
			t.Errorf("%s %s: %d %s", c.method, c.path, code, raw)
			continue
		}
		wantError(t, m, 404, "notFound", "No such object: etags/a/nope.txt")
	}
	// The Go client still sees its sentinel error.
	ctx := context.Background()
	cl, err := gcs.NewClient(ctx, append(e.ClientOptions(), option.WithEndpoint(e.URL+"/storage/v1/"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Bucket("etags").Object("a/nope.txt").Attrs(ctx); !errors.Is(err, gcs.ErrObjectNotExist) {
		t.Errorf("Attrs of a missing object: %v, want ErrObjectNotExist", err)
	}
	attrs, err := cl.Bucket("etags").Object("a/b.txt").Attrs(ctx)
	if err != nil || attrs.Etag != etag {
		t.Errorf("Attrs: %v, etag %q", err, attrs.Etag)
	}
}

// Autoclass manages the storage class: an insert naming another class with Autoclass on is accepted and the
// bucket is STANDARD. ipFilter is kept as sent.
func TestBucketAutoclassClassAndIPFilter(t *testing.T) {
	e := emulatortest.Start(t)
	ipFilter := map[string]any{"mode": "Enabled", "publicNetworkSource": map[string]any{"allowedIpCidrRanges": []any{"203.0.113.0/24"}}}
	b := must(t, e, http.StatusOK, "POST", bucketsPath, map[string]any{
		"name": "auto-nearline", "storageClass": "NEARLINE", "autoclass": map[string]any{"enabled": true}, "ipFilter": ipFilter})
	if b["storageClass"] != "STANDARD" || field(b, "autoclass", "enabled") != true {
		t.Errorf("autoclass insert with NEARLINE: storageClass %v, autoclass %v; want STANDARD, enabled", b["storageClass"], b["autoclass"])
	}
	if field(b, "ipFilter", "mode") != "Enabled" || field(b, "ipFilter", "publicNetworkSource", "allowedIpCidrRanges").([]any)[0] != "203.0.113.0/24" {
		t.Errorf("ipFilter = %v", b["ipFilter"])
	}
	if got := must(t, e, http.StatusOK, "GET", "/storage/v1/b/auto-nearline", nil); field(got, "ipFilter", "mode") != "Enabled" {
		t.Errorf("get: ipFilter = %v", got["ipFilter"])
	}
	got := must(t, e, http.StatusOK, "PATCH", "/storage/v1/b/auto-nearline", map[string]any{"ipFilter": map[string]any{"mode": "Disabled"}})
	if field(got, "ipFilter", "mode") != "Disabled" {
		t.Errorf("patched ipFilter = %v", got["ipFilter"])
	}
	// On an existing bucket the class is still the caller's to get wrong.
	_, m, _ := call(t, e, "PATCH", "/storage/v1/b/auto-nearline", "", map[string]any{"storageClass": "COLDLINE"})
	wantError(t, m, 400, "invalid", "Autoclass")
}

// objectEtagOf is the etag an object resource should carry: generation and metageneration as protobuf varints.
func objectEtagOf(o map[string]any) string {
	g, _ := strconv.ParseUint(o["generation"].(string), 10, 64)
	m, _ := strconv.ParseUint(o["metageneration"].(string), 10, 64)
	b := binary.AppendUvarint([]byte{0x08}, g)
	return base64.StdEncoding.EncodeToString(binary.AppendUvarint(append(b, 0x10), m))
}
