package emulator_test

import (
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// TestProjectNumberAddressesTheProject: every API answers projects/<number>/... as projects/<id>/... — Compute
// (Terraform's Service Networking teardown removes the peering through the number Service Networking names the
// network with) and Cloud Storage's project parameter.
func TestProjectNumberAddressesTheProject(t *testing.T) {
	env := emulatortest.Start(t)
	c := networksClient(t, env)
	insertNetwork(t, c, "a")
	insertNetwork(t, c, "b")
	num := emulator.ProjectNumber("p")
	byNumber := "/compute/v1/projects/" + num
	var op map[string]any
	if code := call(t, env, "POST", "/compute/v1/projects/p/global/networks/a/addPeering",
		map[string]any{"networkPeering": map[string]any{"name": "a-b", "network": "projects/p/global/networks/b"}}, &op); code != 200 {
		t.Fatalf("addPeering: %d %v", code, op)
	}
	var n map[string]any
	if code := call(t, env, "GET", byNumber+"/global/networks/a", nil, &n); code != 200 ||
		n["selfLink"] != "https://www.googleapis.com/compute/v1/projects/p/global/networks/a" || len(n["peerings"].([]any)) != 1 {
		t.Fatalf("networks.get by number: %d %v", code, n)
	}
	op = nil
	if code := call(t, env, "POST", byNumber+"/global/networks/a/removePeering", map[string]any{"name": "a-b"}, &op); code != 200 ||
		op["operationType"] != "removePeering" || !strings.Contains(op["targetLink"].(string), "/projects/p/global/networks/a") {
		t.Fatalf("removePeering by number: %d %v", code, op)
	}
	n = nil
	call(t, env, "GET", "/compute/v1/projects/p/global/networks/a", nil, &n)
	if n["peerings"] != nil {
		t.Errorf("peering left after removePeering by number: %v", n["peerings"])
	}
	op = nil
	if code := call(t, env, "GET", byNumber+"/global/operations/"+op2name(t, env), nil, &op); code != 200 {
		t.Errorf("globalOperations.get by number: %d %v", code, op)
	}
	// A number no project has is a project of its own, with nothing in it.
	var e map[string]any
	if code := call(t, env, "GET", "/compute/v1/projects/123456789012/global/networks/a", nil, &e); code != 404 {
		t.Errorf("unknown project number: %d %v", code, e)
	}

	// Cloud Storage: buckets.list?project=<number> lists the project's buckets.
	var b map[string]any
	if code := call(t, env, "POST", "/storage/v1/b?project=p", map[string]any{"name": "p-data"}, &b); code != 200 {
		t.Fatalf("buckets.insert: %d %v", code, b)
	}
	var list struct {
		Items []struct{ Name, ProjectNumber string }
	}
	if code := call(t, env, "GET", "/storage/v1/b?project="+num, nil, &list); code != 200 || len(list.Items) != 1 ||
		list.Items[0].Name != "p-data" || list.Items[0].ProjectNumber != num {
		t.Errorf("buckets.list by number: %d %+v", code, list)
	}
}

// op2name returns the name of the newest global operation of project p.
func op2name(t *testing.T, env *emulatortest.Env) string {
	t.Helper()
	var ops struct{ Items []struct{ Name string } }
	call(t, env, "GET", "/compute/v1/projects/p/global/operations", nil, &ops)
	if len(ops.Items) == 0 {
		t.Fatal("no global operations")
	}
	return ops.Items[len(ops.Items)-1].Name
}
