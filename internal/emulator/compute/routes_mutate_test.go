package compute_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestHTTPRoutesInsertDelete(t *testing.T) {
	env := emulatortest.Start(t)
	httpNet(t, env)
	routes := cz + "/global/routes"
	route := map[string]any{"name": "to-onprem", "network": "global/networks/net", "destRange": "192.168.0.0/16", "nextHopIp": "10.0.0.5", "priority": 100}
	code, op := do(t, env, "POST", routes, route)
	doneOp(t, "routes.insert", code, op)
	code, rt := do(t, env, "GET", routes+"/to-onprem", nil)
	if code != 200 || rt["kind"] != "compute#route" || rt["destRange"] != "192.168.0.0/16" || rt["nextHopIp"] != "10.0.0.5" ||
		rt["priority"] != float64(100) || rt["routeType"] != "STATIC" ||
		rt["network"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/global/networks/net" {
		t.Fatalf("route = %d %v", code, rt)
	}
	// The list holds it next to the network's system routes (default route + one per subnet range).
	_, list := do(t, env, "GET", routes, nil)
	if items, _ := list["items"].([]any); len(items) != 3 {
		t.Errorf("routes.list has %d items, want 3: %v", len(items), list)
	}

	code, body := do(t, env, "POST", routes, route)
	wantError(t, code, body, 409, "alreadyExists", "The resource 'projects/"+project+"/global/routes/to-onprem' already exists")
	bad := func(change map[string]any) (int, map[string]any) {
		b := map[string]any{"name": "bad", "network": "global/networks/net", "destRange": "0.0.0.0/0", "nextHopGateway": "global/gateways/default-internet-gateway"}
		for k, v := range change {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return do(t, env, "POST", routes, b)
	}
	code, body = bad(map[string]any{"network": "global/networks/nope"})
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/global/networks/nope' was not found")
	code, body = bad(map[string]any{"destRange": "10.1.2.3/16"})
	wantError(t, code, body, 400, "invalid", "Invalid value for field 'resource.destRange': '10.1.2.3/16'. Must be a CIDR range with no host bits set.")
	code, body = bad(map[string]any{"nextHopIp": "10.0.0.9"})
	wantError(t, code, body, 400, "invalid", "")
	code, body = bad(map[string]any{"nextHopGateway": nil})
	wantError(t, code, body, 400, "invalid", "")
	code, body = bad(map[string]any{"nextHopInstance": "zones/us-central1-a/instances/nope", "nextHopGateway": nil})
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/zones/us-central1-a/instances/nope' was not found")
	code, op = bad(nil)
	doneOp(t, "routes.insert via the internet gateway", code, op)

	// A network cannot go while a route uses it; it can once the route is gone.
	code, op = do(t, env, "POST", cz+"/global/networks", map[string]any{"name": "bare", "autoCreateSubnetworks": false})
	doneOp(t, "networks.insert bare", code, op)
	code, op = do(t, env, "POST", routes, map[string]any{"name": "via-bare", "network": "global/networks/bare", "destRange": "172.16.0.0/12", "nextHopIp": "10.9.0.1"})
	doneOp(t, "routes.insert via-bare", code, op)
	deleteBare := func() map[string]any {
		code, op := do(t, env, "DELETE", cz+"/global/networks/bare", nil)
		if code != 200 {
			t.Fatalf("networks.delete: %d %v", code, op)
		}
		_, done := do(t, env, "GET", cz+"/global/operations/"+op["name"].(string), nil)
		if done["status"] != "DONE" {
			t.Fatalf("networks.delete operation not DONE: %v", done)
		}
		return done
	}
	if done := deleteBare(); done["error"] == nil || done["httpErrorStatusCode"] != float64(400) {
		t.Fatalf("networks.delete with a route: %v, want a failed operation (400)", done)
	}
	code, op = do(t, env, "DELETE", routes+"/via-bare", nil)
	doneOp(t, "routes.delete via-bare", code, op)
	if done := deleteBare(); done["error"] != nil {
		t.Fatalf("networks.delete after the route is gone: %v", done)
	}
	code, op = do(t, env, "DELETE", routes+"/to-onprem", nil)
	doneOp(t, "routes.delete", code, op)
	if code, _ := do(t, env, "GET", routes+"/to-onprem", nil); code != 404 {
		t.Errorf("get after delete: %d, want 404", code)
	}
	code, body = do(t, env, "DELETE", routes+"/to-onprem", nil)
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/global/routes/to-onprem' was not found")
}
