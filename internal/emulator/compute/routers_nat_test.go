package compute_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// Private NAT (type PRIVATE): no NAT IPs; its rules translate to ranges of PRIVATE_NAT subnetworks.
func TestHTTPPrivateNAT(t *testing.T) {
	env := emulatortest.Start(t)
	httpNet(t, env)
	code, op := do(t, env, "POST", cz+"/regions/us-central1/subnetworks", map[string]any{
		"name": "pnat", "network": "global/networks/net", "ipCidrRange": "10.100.0.0/24", "purpose": "PRIVATE_NAT"})
	doneOp(t, "subnetworks.insert PRIVATE_NAT", code, op)
	const hubMatch = "nexthop.hub == '//networkconnectivity.googleapis.com/projects/test-project/locations/global/hubs/hub'"
	nat := func(change map[string]any) map[string]any {
		n := map[string]any{
			"name": "priv", "type": "PRIVATE", "sourceSubnetworkIpRangesToNat": "LIST_OF_SUBNETWORKS",
			"subnetworks": []any{map[string]any{"name": "regions/us-central1/subnetworks/sub", "sourceIpRangesToNat": []string{"ALL_IP_RANGES"}}},
			"rules": []any{map[string]any{"ruleNumber": 100, "match": hubMatch,
				"action": map[string]any{"sourceNatActiveRanges": []string{"regions/us-central1/subnetworks/pnat"}}}},
		}
		for k, v := range change {
			n[k] = v
		}
		return map[string]any{"name": "r", "network": "global/networks/net", "nats": []any{n}}
	}
	routers := cz + "/regions/us-central1/routers"
	for what, change := range map[string]map[string]any{
		"NAT IP option":       {"natIpAllocateOption": "AUTO_ONLY"},
		"endpoint-indep":      {"enableEndpointIndependentMapping": true},
		"unknown type":        {"type": "SOMETIMES"},
		"rule without ranges": {"rules": []any{map[string]any{"ruleNumber": 100, "match": hubMatch}}},
		"range not PRIVATE_NAT": {"rules": []any{map[string]any{"ruleNumber": 100, "match": hubMatch,
			"action": map[string]any{"sourceNatActiveRanges": []string{"regions/us-central1/subnetworks/sub"}}}}},
	} {
		code, body := do(t, env, "POST", routers, nat(change))
		if code != 400 {
			t.Errorf("%s: %d %v, want 400", what, code, body)
		}
	}
	code, op = do(t, env, "POST", routers, nat(nil))
	doneOp(t, "routers.insert with a private NAT", code, op)
	_, rt := do(t, env, "GET", routers+"/r", nil)
	nats, _ := rt["nats"].([]any)
	if len(nats) != 1 {
		t.Fatalf("router = %v", rt)
	}
	n := nats[0].(map[string]any)
	rules, _ := n["rules"].([]any)
	if n["type"] != "PRIVATE" || n["natIpAllocateOption"] != nil || len(rules) != 1 {
		t.Fatalf("private NAT = %v", n)
	}
	ranges := rules[0].(map[string]any)["action"].(map[string]any)["sourceNatActiveRanges"].([]any)
	if len(ranges) != 1 || ranges[0] != "https://www.googleapis.com/compute/v1/projects/"+project+"/regions/us-central1/subnetworks/pnat" {
		t.Errorf("sourceNatActiveRanges = %v", ranges)
	}

	// A public NAT still needs natIpAllocateOption, and its type defaults to PUBLIC.
	code, body := do(t, env, "POST", routers, map[string]any{"name": "pub", "network": "global/networks/net", "nats": []any{map[string]any{
		"name": "n", "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES"}}})
	wantError(t, code, body, 400, "required", "Required field 'resource.nats[0].natIpAllocateOption' not specified")
	code, op = do(t, env, "POST", routers, map[string]any{"name": "pub", "network": "global/networks/net", "nats": []any{map[string]any{
		"name": "n", "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES", "natIpAllocateOption": "AUTO_ONLY"}}})
	doneOp(t, "routers.insert public NAT", code, op)
	if _, pub := do(t, env, "GET", routers+"/pub", nil); pub["nats"].([]any)[0].(map[string]any)["type"] != "PUBLIC" {
		t.Errorf("public NAT type = %v", pub["nats"])
	}
}
