package compute_test

import (
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func items(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	raw, _ := body["items"].([]any)
	out := make([]map[string]any, len(raw))
	for i, it := range raw {
		out[i] = it.(map[string]any)
	}
	return out
}

func TestHTTPAutoModeNetworkAndRoutes(t *testing.T) {
	env := emulatortest.Start(t)
	if code, body := do(t, env, "POST", cz+"/global/networks", map[string]any{"name": "auto", "autoCreateSubnetworks": true}); code != 200 {
		t.Fatalf("networks.insert: %d %v", code, body)
	}
	code, n := do(t, env, "GET", cz+"/global/networks/auto", nil)
	if code != 200 || n["autoCreateSubnetworks"] != true {
		t.Fatalf("network: %d %v", code, n)
	}
	// Fields the request did not send and Compute leaves unset are absent, not "" or a default.
	for _, k := range []string{"description", "mtu"} {
		if v, ok := n[k]; ok {
			t.Errorf("network answers %s %v it was not sent", k, v)
		}
	}
	code, sub := do(t, env, "GET", cz+"/regions/us-central1/subnetworks/auto", nil)
	if code != 200 || sub["ipCidrRange"] != "10.128.0.0/20" || sub["gatewayAddress"] != "10.128.0.1" || sub["state"] != "READY" || sub["description"] != nil {
		t.Fatalf("us-central1 auto subnet: %d %v", code, sub)
	}
	for _, region := range catalog.Regions() {
		want, _ := catalog.AutoModeSubnetRange(region)
		_, s := do(t, env, "GET", cz+"/regions/"+region+"/subnetworks/auto", nil)
		if s["ipCidrRange"] != want {
			t.Errorf("%s: auto subnet %v, want %s", region, s["ipCidrRange"], want)
		}
	}
	if subs, _ := n["subnetworks"].([]any); len(subs) != len(catalog.Regions()) {
		t.Errorf("network lists %d subnets, want one per region (%d)", len(subs), len(catalog.Regions()))
	}

	// One Internet route plus one local route per subnet range.
	code, list := do(t, env, "GET", cz+"/global/routes", nil)
	routes := items(t, list)
	if code != 200 || list["kind"] != "compute#routeList" || len(routes) != 1+len(catalog.Regions()) {
		t.Fatalf("routes.list: %d, %d routes", code, len(routes))
	}
	var internet, local map[string]any
	for _, rt := range routes {
		if !strings.HasPrefix(rt["name"].(string), "default-route-") || rt["network"] != n["selfLink"] || rt["kind"] != "compute#route" {
			t.Errorf("route %v", rt)
		}
		switch rt["destRange"] {
		case "0.0.0.0/0":
			internet = rt
		case "10.128.0.0/20":
			local = rt
		}
	}
	if internet == nil || internet["nextHopGateway"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/global/gateways/default-internet-gateway" ||
		internet["priority"] != float64(1000) || internet["description"] != "Default route to the Internet." {
		t.Errorf("internet route %v", internet)
	}
	if local == nil || local["nextHopNetwork"] != n["selfLink"] || local["priority"] != nil && local["priority"] != float64(0) ||
		local["description"] != "Default local route to the subnetwork 10.128.0.0/20." {
		t.Errorf("local route %v", local)
	}
	code, got := do(t, env, "GET", cz+"/global/routes/"+internet["name"].(string), nil)
	if code != 200 || got["id"] != internet["id"] {
		t.Errorf("routes.get: %d %v", code, got)
	}
	code, body := do(t, env, "GET", cz+"/global/routes/default-route-0000000000000000", nil)
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/global/routes/default-route-0000000000000000' was not found")
	code, filtered := do(t, env, "GET", cz+"/global/routes?filter=destRange%3D%220.0.0.0%2F0%22", nil)
	if len(items(t, filtered)) != 1 || code != 200 {
		t.Errorf("filtered routes: %d %v", code, filtered)
	}
}

func TestHTTPPeering(t *testing.T) {
	env := emulatortest.Start(t)
	for _, name := range []string{"a", "b"} {
		if code, body := do(t, env, "POST", cz+"/global/networks", map[string]any{"name": name, "autoCreateSubnetworks": false}); code != 200 {
			t.Fatalf("networks.insert %s: %d %v", name, code, body)
		}
	}
	peering := func(network, name, peer string) (int, map[string]any) {
		return do(t, env, "POST", cz+"/global/networks/"+network+"/addPeering", map[string]any{
			"networkPeering": map[string]any{"name": name, "network": "projects/" + project + "/global/networks/" + peer, "exchangeSubnetRoutes": true}})
	}
	state := func(network string) map[string]any {
		_, n := do(t, env, "GET", cz+"/global/networks/"+network, nil)
		ps, _ := n["peerings"].([]any)
		if len(ps) != 1 {
			return nil
		}
		return ps[0].(map[string]any)
	}
	if code, op := peering("a", "a-to-b", "b"); code != 200 || op["operationType"] != "addPeering" {
		t.Fatalf("addPeering: %d %v", code, op)
	}
	if p := state("a"); p == nil || p["state"] != "INACTIVE" || p["network"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/global/networks/b" ||
		p["exchangeSubnetRoutes"] != true || p["importCustomRoutes"] != false || p["autoCreateRoutes"] != true {
		t.Fatalf("one-sided peering: %v", p)
	}
	if code, _ := peering("b", "b-to-a", "a"); code != 200 {
		t.Fatal("addPeering back")
	}
	if state("a")["state"] != "ACTIVE" || state("b")["state"] != "ACTIVE" {
		t.Errorf("both sides peered: a %v b %v", state("a"), state("b"))
	}
	code, body := peering("a", "a-to-b", "b")
	wantError(t, code, body, 400, "invalid", "")
	code, body = peering("a", "again", "nowhere")
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/global/networks/nowhere' was not found")

	if code, op := do(t, env, "POST", cz+"/global/networks/a/removePeering", map[string]any{"name": "a-to-b"}); code != 200 || op["operationType"] != "removePeering" {
		t.Fatalf("removePeering: %d %v", code, op)
	}
	if state("a") != nil || state("b")["state"] != "INACTIVE" {
		t.Errorf("after removePeering: a %v b %v", state("a"), state("b"))
	}
	code, body = do(t, env, "POST", cz+"/global/networks/a/removePeering", map[string]any{"name": "a-to-b"})
	wantError(t, code, body, 404, "notFound", "")
}

func TestHTTPInternalAddressDefaultsToSubnet(t *testing.T) {
	env := emulatortest.Start(t)
	httpNet(t, env)
	code, body := do(t, env, "POST", cz+"/regions/us-central1/addresses", map[string]any{"name": "no-net", "addressType": "INTERNAL"})
	wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/global/networks/default' was not found")
	if code, body := do(t, env, "POST", cz+"/global/networks", map[string]any{"name": "default"}); code != 200 {
		t.Fatalf("default network: %d %v", code, body)
	}
	if code, body := do(t, env, "POST", cz+"/regions/us-central1/addresses", map[string]any{"name": "ip-1", "addressType": "INTERNAL"}); code != 200 {
		t.Fatalf("addresses.insert: %d %v", code, body)
	}
	code, a := do(t, env, "GET", cz+"/regions/us-central1/addresses/ip-1", nil)
	addr, _ := a["address"].(string)
	if code != 200 || a["subnetwork"] != "https://www.googleapis.com/compute/v1/projects/"+project+"/regions/us-central1/subnetworks/default" ||
		!strings.HasPrefix(addr, "10.128.") || a["purpose"] != "GCE_ENDPOINT" || a["description"] != "" {
		t.Errorf("address in the default network's subnet: %d %v", code, a)
	}
	// Naming a network picks that network's subnet in the region.
	if code, body := do(t, env, "POST", cz+"/regions/us-central1/addresses", map[string]any{"name": "ip-2", "addressType": "INTERNAL", "network": "global/networks/net"}); code != 200 {
		t.Fatalf("addresses.insert in net: %d %v", code, body)
	}
	if _, a := do(t, env, "GET", cz+"/regions/us-central1/addresses/ip-2", nil); !strings.HasSuffix(a["subnetwork"].(string), "/subnetworks/sub") || !strings.HasPrefix(a["address"].(string), "10.0.") {
		t.Errorf("address in net: %v", a)
	}
}

func TestHTTPMachineTypesPerZone(t *testing.T) {
	env := emulatortest.Start(t)
	for _, name := range []string{"n1-standard-8", "n2d-standard-32", "c2d-standard-56", "c3d-standard-90", "c4-standard-96", "h3-standard-88", "h4d-highmem-192",
		"a2-highgpu-8g", "a2-ultragpu-8g", "a3-highgpu-8g", "a3-edgegpu-8g", "a3-megagpu-8g", "a3-ultragpu-8g", "a4-highgpu-8g", "a4x-highgpu-4g",
		"g2-standard-48", "g4-standard-384", "e2-standard-8", "c2-standard-60", "c3-standard-176", "n2-standard-128"} {
		m, ok := catalog.Machine(name)
		if !ok {
			t.Fatalf("%s not in the catalog", name)
		}
		zones := catalog.ZonesOffering(name)
		if len(zones) == 0 {
			t.Fatalf("%s: no zone", name)
		}
		code, mt := do(t, env, "GET", cz+"/zones/"+zones[0]+"/machineTypes/"+name, nil)
		if code != 200 || mt["guestCpus"] != float64(m.CPUs) || mt["memoryMb"] != float64(m.MemoryMB) || mt["kind"] != "compute#machineType" {
			t.Errorf("%s in %s: %d %v", name, zones[0], code, mt)
			continue
		}
		accels, _ := mt["accelerators"].([]any)
		if m.HasGPU() {
			a := accels[0].(map[string]any)
			if len(accels) != 1 || a["guestAcceleratorType"] != m.GPU.Type || a["guestAcceleratorCount"] != float64(m.GPU.Count) {
				t.Errorf("%s accelerators %v", name, accels)
			}
		} else if len(accels) != 0 {
			t.Errorf("%s: accelerators %v on a CPU machine", name, accels)
		}
		// A zone that does not offer it: 404, and an instance there fails with Compute's message.
		for _, z := range catalog.ZoneNames() {
			if zi, _ := catalog.Zone(z); zi.Offers(name) {
				continue
			}
			code, body := do(t, env, "GET", cz+"/zones/"+z+"/machineTypes/"+name, nil)
			wantError(t, code, body, 404, "notFound", "The resource 'projects/"+project+"/zones/"+z+"/machineTypes/"+name+"' was not found")
			inst := instanceBody("vm", "projects/debian-cloud/global/images/family/debian-12", nil)
			inst["machineType"] = "zones/" + z + "/machineTypes/" + name
			code, body = do(t, env, "POST", cz+"/zones/"+z+"/instances", inst)
			wantError(t, code, body, 400, "invalid", "Invalid value for field 'resource.machineType': 'zones/"+z+"/machineTypes/"+name+"'. Machine type with name '"+name+"' does not exist in zone '"+z+"'.")
			break
		}
	}
}

func TestHTTPNetworkProfiles(t *testing.T) {
	env := emulatortest.Start(t)
	code, list := do(t, env, "GET", cz+"/global/networkProfiles", nil)
	got := map[string]bool{}
	for _, p := range items(t, list) {
		got[p["name"].(string)] = true
	}
	for _, z := range catalog.Zones() {
		if want := z.NetworkProfile(); want != "" && !got[want] {
			t.Errorf("profile %s of zone %s missing", want, z.Name)
		}
	}
	if code != 200 || len(got) == 0 {
		t.Fatalf("networkProfiles.list: %d %v", code, list)
	}
	code, p := do(t, env, "GET", cz+"/global/networkProfiles/us-central1-b-vpc-roce", nil)
	loc, _ := p["location"].(map[string]any)
	if code != 200 || loc["name"] != "us-central1-b" || loc["scope"] != "ZONE" {
		t.Errorf("networkProfiles.get: %d %v", code, p)
	}
	code, body := do(t, env, "GET", cz+"/global/networkProfiles/us-central1-f-vpc-roce", nil)
	wantError(t, code, body, 404, "notFound", "")
}

func TestHTTPMalformedPageToken(t *testing.T) {
	env := emulatortest.Start(t)
	for _, name := range []string{"a", "b", "c"} {
		do(t, env, "POST", cz+"/global/networks", map[string]any{"name": name, "autoCreateSubnetworks": false})
	}
	code, page := do(t, env, "GET", cz+"/global/networks?maxResults=2", nil)
	tok, _ := page["nextPageToken"].(string)
	if code != 200 || len(items(t, page)) != 2 || tok == "" {
		t.Fatalf("first page: %d %v", code, page)
	}
	code, page = do(t, env, "GET", cz+"/global/networks?maxResults=2&pageToken="+tok, nil)
	if code != 200 || len(items(t, page)) != 1 || page["nextPageToken"] != nil {
		t.Fatalf("second page: %d %v", code, page)
	}
	// Not base64, and base64 that is not a token of ours: both are Google's 400.
	for _, bad := range []string{"!!!", "YWJj", tok[:len(tok)-2]} {
		code, body := do(t, env, "GET", cz+"/global/networks?pageToken="+bad, nil)
		wantError(t, code, body, 400, "invalid", "")
	}
}

// Compute answers defaults it was not sent (disabled false, logging off) but no description; one sent is kept.
func TestHTTPFirewallDefaults(t *testing.T) {
	env := emulatortest.Start(t)
	httpNet(t, env)
	if code, body := do(t, env, "POST", cz+"/global/firewalls", map[string]any{
		"name": "ssh", "network": "global/networks/net", "sourceRanges": []string{"35.235.240.0/20"},
		"allowed": []any{map[string]any{"IPProtocol": "tcp", "ports": []string{"22"}}}}); code != 200 {
		t.Fatalf("firewalls.insert: %d %v", code, body)
	}
	code, fw := do(t, env, "GET", cz+"/global/firewalls/ssh", nil)
	logCfg, _ := fw["logConfig"].(map[string]any)
	if _, ok := fw["description"]; code != 200 || ok || fw["disabled"] != false || logCfg["enable"] != false ||
		fw["direction"] != "INGRESS" || fw["priority"] != float64(1000) {
		t.Errorf("firewall = %d %v", code, fw)
	}
	if code, body := do(t, env, "POST", cz+"/global/firewalls", map[string]any{
		"name": "iap", "network": "global/networks/net", "sourceRanges": []string{"35.235.240.0/20"}, "description": "IAP SSH",
		"allowed": []any{map[string]any{"IPProtocol": "tcp", "ports": []string{"22"}}}}); code != 200 {
		t.Fatalf("firewalls.insert: %d %v", code, body)
	}
	if _, fw := do(t, env, "GET", cz+"/global/firewalls/iap", nil); fw["description"] != "IAP SSH" {
		t.Errorf("a sent description: %v", fw["description"])
	}
}
