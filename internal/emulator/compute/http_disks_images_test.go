package compute_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// These tests speak plain HTTP with the JSON bodies of the Compute REST reference, so what they check is the
// wire answer a user's curl or any client sees, not what one Go client makes of it.

const (
	cz   = "/compute/v1/projects/" + project
	zone = "us-central1-a"
)

// httpNet makes the custom network "net" with subnet "sub" (10.0.0.0/20, us-central1) over plain HTTP.
func httpNet(t *testing.T, env *emulatortest.Env) {
	t.Helper()
	if code, body := do(t, env, "POST", cz+"/global/networks", map[string]any{"name": "net", "autoCreateSubnetworks": false}); code != 200 {
		t.Fatalf("networks.insert: %d %v", code, body)
	}
	if code, body := do(t, env, "POST", cz+"/regions/us-central1/subnetworks", map[string]any{
		"name": "sub", "network": "global/networks/net", "ipCidrRange": "10.0.0.0/20"}); code != 200 {
		t.Fatalf("subnetworks.insert: %d %v", code, body)
	}
}

// instanceBody is an instances.insert body with one boot disk made from image.
func instanceBody(name, image string, disk map[string]any) map[string]any {
	params := map[string]any{"sourceImage": image}
	boot := map[string]any{"boot": true, "initializeParams": params}
	for k, v := range disk {
		if k == "autoDelete" {
			boot[k] = v
		} else {
			params[k] = v
		}
	}
	return map[string]any{
		"name":              name,
		"machineType":       "zones/" + zone + "/machineTypes/n2-standard-2",
		"disks":             []any{boot},
		"networkInterfaces": []any{map[string]any{"subnetwork": "regions/us-central1/subnetworks/sub"}},
	}
}

func wantError(t *testing.T, code int, body map[string]any, wantCode int, wantReason, wantMessage string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("status %d (%v), want %d", code, body, wantCode)
	}
	_, msg, reason := errorBody(t, body)
	if reason != wantReason || (wantMessage != "" && msg != wantMessage) {
		t.Fatalf("error %q %q, want %q %q", reason, msg, wantReason, wantMessage)
	}
}

func TestHTTPPublicImages(t *testing.T) {
	env := emulatortest.Start(t)
	families := map[string][]string{
		"debian-cloud":    {"debian-12", "debian-11"},
		"ubuntu-os-cloud": {"ubuntu-2204-lts", "ubuntu-2404-lts", "ubuntu-2404-lts-amd64"},
	}
	// Every image the catalog pins for a machine type resolves, so provider defaults boot.
	for _, m := range catalog.Machines() {
		families[m.ImageProject] = append(families[m.ImageProject], m.ImageFamily)
	}
	for proj, fams := range families {
		for _, fam := range fams {
			code, img := do(t, env, "GET", "/compute/v1/projects/"+proj+"/global/images/family/"+fam, nil)
			if code != 200 || img["kind"] != "compute#image" || img["status"] != "READY" || img["diskSizeGb"] == nil {
				t.Fatalf("%s/%s: %d %v", proj, fam, code, img)
			}
			self := img["selfLink"].(string)
			if !strings.HasPrefix(self, "https://www.googleapis.com/compute/v1/projects/"+proj+"/global/images/") {
				t.Errorf("%s/%s selfLink %s", proj, fam, self)
			}
			code, byName := do(t, env, "GET", strings.TrimPrefix(self, "https://www.googleapis.com"), nil)
			if code != 200 || byName["name"] != img["name"] || byName["id"] != img["id"] {
				t.Errorf("images.get %s: %d %v", self, code, byName)
			}
		}
	}
	code, arm := do(t, env, "GET", "/compute/v1/projects/ubuntu-os-accelerator-images/global/images/family/ubuntu-accelerator-2404-arm64-with-nvidia-570", nil)
	if code != 200 || arm["architecture"] != "ARM64" {
		t.Errorf("arm64 accelerator image: %d %v", code, arm)
	}
	code, body := do(t, env, "GET", "/compute/v1/projects/debian-cloud/global/images/family/debian-13x", nil)
	wantError(t, code, body, 404, "notFound", "The resource 'projects/debian-cloud/global/images/family/debian-13x' was not found")
	code, body = do(t, env, "GET", "/compute/v1/projects/debian-cloud/global/images/debian-7-wheezy-v20150101", nil)
	wantError(t, code, body, 404, "notFound", "The resource 'projects/debian-cloud/global/images/debian-7-wheezy-v20150101' was not found")
	code, list := do(t, env, "GET", "/compute/v1/projects/debian-cloud/global/images", nil)
	if items, _ := list["items"].([]any); code != 200 || list["kind"] != "compute#imageList" || len(items) < 2 {
		t.Errorf("images.list debian-cloud: %d %v", code, list)
	}
	code, body = do(t, env, "DELETE", "/compute/v1/projects/debian-cloud/global/images/"+arm["name"].(string), nil)
	if code != 404 && code != 403 {
		t.Errorf("deleting a public image answered %d %v", code, body)
	}
}

func TestHTTPCustomImages(t *testing.T) {
	env := emulatortest.Start(t)
	code, op := do(t, env, "POST", cz+"/global/images", map[string]any{
		"name": "golden-1", "family": "golden", "rawDisk": map[string]any{"source": "https://storage.googleapis.com/b/disk.tar.gz"}})
	if code != 200 || op["kind"] != "compute#operation" || op["operationType"] != "insert" {
		t.Fatalf("images.insert: %d %v", code, op)
	}
	code, img := do(t, env, "GET", cz+"/global/images/golden-1", nil)
	if code != 200 || img["family"] != "golden" || img["status"] != "READY" || img["architecture"] != "X86_64" {
		t.Fatalf("images.get: %d %v", code, img)
	}
	code, body := do(t, env, "POST", cz+"/global/images", map[string]any{"name": "golden-1", "rawDisk": map[string]any{"source": "x"}})
	wantError(t, code, body, 409, "alreadyExists", "The resource 'projects/"+project+"/global/images/golden-1' already exists")
	code, body = do(t, env, "POST", cz+"/global/images", map[string]any{"name": "no-source"})
	wantError(t, code, body, 400, "required", "")
	code, body = do(t, env, "POST", "/compute/v1/projects/debian-cloud/global/images", map[string]any{"name": "mine", "rawDisk": map[string]any{"source": "x"}})
	if code != 403 {
		t.Errorf("insert into a public project: %d %v", code, body)
	}
	code, fam := do(t, env, "GET", cz+"/global/images/family/golden", nil)
	if code != 200 || fam["name"] != "golden-1" {
		t.Fatalf("getFromFamily: %d %v", code, fam)
	}
	code, list := do(t, env, "GET", cz+"/global/images", nil)
	if items, _ := list["items"].([]any); code != 200 || len(items) != 1 {
		t.Errorf("images.list: %d %v", code, list)
	}
	// An instance boots from the custom family.
	httpNet(t, env)
	if code, body := do(t, env, "POST", cz+"/zones/"+zone+"/instances", instanceBody("from-golden", "global/images/family/golden", nil)); code != 200 {
		t.Fatalf("instance from custom family: %d %v", code, body)
	}
	code, disk := do(t, env, "GET", cz+"/zones/"+zone+"/disks/from-golden", nil)
	if code != 200 || disk["sourceImage"] != img["selfLink"] {
		t.Errorf("disk of custom-image VM: %d %v", code, disk)
	}
	if code, _ := do(t, env, "DELETE", cz+"/global/images/golden-1", nil); code != 200 {
		t.Fatalf("images.delete: %d", code)
	}
	code, body = do(t, env, "GET", cz+"/global/images/golden-1", nil)
	wantError(t, code, body, 404, "notFound", "")
	code, body = do(t, env, "GET", cz+"/global/images/family/golden", nil)
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/global/images/family/golden' was not found")
	code, body = do(t, env, "DELETE", cz+"/global/images/golden-1", nil)
	wantError(t, code, body, 404, "notFound", "")
}

func TestHTTPBootDisks(t *testing.T) {
	env := emulatortest.Start(t)
	httpNet(t, env)
	const debian = "projects/debian-cloud/global/images/family/debian-12"
	code, body := do(t, env, "POST", cz+"/zones/"+zone+"/instances", instanceBody("vm-1", debian, map[string]any{
		"diskSizeGb": "50", "diskType": "zones/" + zone + "/diskTypes/pd-balanced"}))
	if code != 200 {
		t.Fatalf("instances.insert: %d %v", code, body)
	}
	code, disk := do(t, env, "GET", cz+"/zones/"+zone+"/disks/vm-1", nil)
	if code != 200 {
		t.Fatalf("boot disk named after the instance: %d %v", code, disk)
	}
	_, img := do(t, env, "GET", "/compute/v1/"+debian, nil)
	vmLink := "https://www.googleapis.com/compute/v1/projects/" + project + "/zones/" + zone + "/instances/vm-1"
	users, _ := disk["users"].([]any)
	if disk["kind"] != "compute#disk" || disk["sizeGb"] != "50" || disk["status"] != "READY" ||
		disk["type"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/zones/"+zone+"/diskTypes/pd-balanced" ||
		disk["sourceImage"] != img["selfLink"] || disk["sourceImageId"] != img["id"] || len(users) != 1 || users[0] != vmLink {
		t.Errorf("boot disk = %v", disk)
	}
	// The instance's attachedDisk source is the disk's selfLink.
	_, inst := do(t, env, "GET", cz+"/zones/"+zone+"/instances/vm-1", nil)
	ad := inst["disks"].([]any)[0].(map[string]any)
	if ad["source"] != disk["selfLink"] || ad["diskSizeGb"] != "50" || ad["autoDelete"] != true || ad["boot"] != true {
		t.Errorf("attached disk = %v", ad)
	}
	code, body = do(t, env, "DELETE", cz+"/zones/"+zone+"/disks/vm-1", nil)
	wantError(t, code, body, 400, "resourceInUseByAnotherResource",
		"The disk resource 'projects/"+project+"/zones/"+zone+"/disks/vm-1' is already being used by 'projects/"+project+"/zones/"+zone+"/instances/vm-1'")

	// diskName names the disk; autoDelete false keeps it when the VM goes; the default size is the image's.
	if code, body := do(t, env, "POST", cz+"/zones/"+zone+"/instances", instanceBody("vm-2", debian, map[string]any{
		"diskName": "keep-me", "autoDelete": false})); code != 200 {
		t.Fatalf("instances.insert vm-2: %d %v", code, body)
	}
	code, kept := do(t, env, "GET", cz+"/zones/"+zone+"/disks/keep-me", nil)
	if code != 200 || kept["sizeGb"] != img["diskSizeGb"] || !strings.HasSuffix(kept["type"].(string), "/diskTypes/pd-standard") {
		t.Errorf("disk keep-me: %d %v", code, kept)
	}
	code, list := do(t, env, "GET", cz+"/zones/"+zone+"/disks", nil)
	if items, _ := list["items"].([]any); code != 200 || list["kind"] != "compute#diskList" || len(items) != 2 {
		t.Errorf("disks.list: %d %v", code, list)
	}
	code, agg := do(t, env, "GET", cz+"/aggregated/disks", nil)
	scoped, _ := agg["items"].(map[string]any)["zones/"+zone].(map[string]any)
	if disks, _ := scoped["disks"].([]any); code != 200 || agg["kind"] != "compute#diskAggregatedList" || len(disks) != 2 {
		t.Errorf("disks.aggregatedList: %d %v", code, agg)
	}

	for _, name := range []string{"vm-1", "vm-2"} {
		if code, body := do(t, env, "DELETE", cz+"/zones/"+zone+"/instances/"+name, nil); code != 200 {
			t.Fatalf("instances.delete %s: %d %v", name, code, body)
		}
	}
	code, body = do(t, env, "GET", cz+"/zones/"+zone+"/disks/vm-1", nil)
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/zones/"+zone+"/disks/vm-1' was not found")
	code, kept = do(t, env, "GET", cz+"/zones/"+zone+"/disks/keep-me", nil)
	if users, _ := kept["users"].([]any); code != 200 || len(users) != 0 || kept["lastDetachTimestamp"] == nil {
		t.Errorf("kept disk after its VM went: %d %v", code, kept)
	}
	if code, body := do(t, env, "DELETE", cz+"/zones/"+zone+"/disks/keep-me", nil); code != 200 || body["operationType"] != "delete" {
		t.Errorf("disks.delete of a free disk: %d %v", code, body)
	}
	if code, _ := do(t, env, "GET", cz+"/zones/"+zone+"/disks/keep-me", nil); code != 404 {
		t.Errorf("deleted disk still answers %d", code)
	}
}

func TestHTTPMissingImageFails(t *testing.T) {
	env := emulatortest.Start(t)
	httpNet(t, env)
	missing := "projects/debian-cloud/global/images/family/debian-99"
	wantMissing := "The resource '" + missing + "' was not found"
	code, body := do(t, env, "POST", cz+"/zones/"+zone+"/instances", instanceBody("vm", missing, nil))
	wantError(t, code, body, 404, "notFound", wantMissing)
	code, body = do(t, env, "POST", cz+"/zones/"+zone+"/instances", instanceBody("vm", "projects/debian-cloud/global/images/family/debian-12", map[string]any{"diskSizeGb": "5"}))
	wantError(t, code, body, 400, "invalid", "Invalid value for field 'resource.disks[0].initializeParams.diskSizeGb': '5'. Requested disk size cannot be smaller than the image size (10 GB)")
	code, body = do(t, env, "POST", cz+"/zones/"+zone+"/instances", instanceBody("vm", "family/debian-12", nil))
	wantError(t, code, body, 400, "invalid", "Invalid value for field 'resource.disks[0].initializeParams.sourceImage': 'family/debian-12'. The URL is malformed.")

	props := instanceBody("", missing, nil)
	delete(props, "name")
	props["machineType"] = "n2-standard-2"
	code, body = do(t, env, "POST", cz+"/zones/"+zone+"/instances/bulkInsert", map[string]any{
		"count": "2", "namePattern": "node-#", "instanceProperties": props})
	wantError(t, code, body, 404, "notFound", wantMissing)
	code, body = do(t, env, "POST", cz+"/global/instanceTemplates", map[string]any{"name": "tpl", "properties": props})
	wantError(t, code, body, 404, "notFound", wantMissing)

	// Nothing was left behind: no instance, no disk.
	if code, list := do(t, env, "GET", cz+"/zones/"+zone+"/disks", nil); code != 200 || list["items"] != nil {
		t.Errorf("disks after failed inserts: %d %v", code, list)
	}
	if code, list := do(t, env, "GET", cz+"/zones/"+zone+"/instances", nil); code != 200 || list["items"] != nil {
		t.Errorf("instances after failed inserts: %d %v", code, list)
	}
	// The disk a VM would create already exists: Compute refuses the VM.
	if code, body := do(t, env, "POST", cz+"/zones/"+zone+"/disks", map[string]any{"name": "taken", "sizeGb": "20"}); code != 200 {
		t.Fatalf("disks.insert: %d %v", code, body)
	}
	code, body = do(t, env, "POST", cz+"/zones/"+zone+"/instances", instanceBody("taken", "projects/debian-cloud/global/images/family/debian-12", nil))
	if code != http.StatusConflict {
		t.Errorf("VM whose boot disk name is taken: %d %v", code, body)
	}
}

// A disk made with disks.insert is attached by source: the VM shows in users[], a second read-write VM is
// refused, a missing disk is a 404, and with autoDelete false (the default for attached disks) it outlives the VM.
func TestHTTPAttachExistingDisk(t *testing.T) {
	env := emulatortest.Start(t)
	httpNet(t, env)
	if code, body := do(t, env, "POST", cz+"/zones/"+zone+"/disks", map[string]any{
		"name": "data", "sizeGb": "100", "type": "zones/" + zone + "/diskTypes/pd-ssd"}); code != 200 {
		t.Fatalf("disks.insert: %d %v", code, body)
	}
	code, d := do(t, env, "GET", cz+"/zones/"+zone+"/disks/data", nil)
	if code != 200 || d["sizeGb"] != "100" || d["sourceImage"] != nil || d["users"] != nil || !strings.HasSuffix(d["type"].(string), "/pd-ssd") {
		t.Fatalf("blank disk: %d %v", code, d)
	}
	withData := func(name, disk string) map[string]any {
		b := instanceBody(name, "projects/debian-cloud/global/images/family/debian-12", nil)
		b["disks"] = append(b["disks"].([]any), map[string]any{"source": "zones/" + zone + "/disks/" + disk})
		return b
	}
	if code, body := do(t, env, "POST", cz+"/zones/"+zone+"/instances", withData("vm-a", "data")); code != 200 {
		t.Fatalf("instance with data disk: %d %v", code, body)
	}
	_, d = do(t, env, "GET", cz+"/zones/"+zone+"/disks/data", nil)
	if users, _ := d["users"].([]any); len(users) != 1 || !strings.HasSuffix(users[0].(string), "/instances/vm-a") {
		t.Errorf("users = %v", d["users"])
	}
	code, body := do(t, env, "POST", cz+"/zones/"+zone+"/instances", withData("vm-b", "data"))
	wantError(t, code, body, 400, "resourceInUseByAnotherResource", "")
	code, body = do(t, env, "POST", cz+"/zones/"+zone+"/instances", withData("vm-c", "nope"))
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/zones/"+zone+"/disks/nope' was not found")

	if code, _ := do(t, env, "DELETE", cz+"/zones/"+zone+"/instances/vm-a", nil); code != 200 {
		t.Fatal("instances.delete")
	}
	code, d = do(t, env, "GET", cz+"/zones/"+zone+"/disks/data", nil)
	if code != 200 || d["users"] != nil {
		t.Errorf("data disk after its VM went: %d %v", code, d)
	}
	if code, _ := do(t, env, "GET", cz+"/zones/"+zone+"/disks/vm-a", nil); code != 404 {
		t.Errorf("vm-a's boot disk (autoDelete) still answers %d", code)
	}
}
