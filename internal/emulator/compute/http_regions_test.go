package compute_test

import (
	"net/url"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// TestHTTPEveryPublicRegion: regions and zones list every public region and zone; an auto-mode network gets
// Google's subnet in each region; aggregated lists carry one scope per region, with Compute's
// NO_RESULTS_ON_PAGE warning for the empty ones.
func TestHTTPEveryPublicRegion(t *testing.T) {
	env := emulatortest.Start(t)
	code, regions := do(t, env, "GET", cz+"/regions?maxResults=500", nil)
	if code != 200 || len(items(t, regions)) != 41 {
		t.Fatalf("regions.list: %d, %d regions", code, len(items(t, regions)))
	}
	code, zones := do(t, env, "GET", cz+"/zones?maxResults=500", nil)
	if code != 200 || len(items(t, zones)) != len(catalog.ZoneNames()) || len(catalog.ZoneNames()) != 124 {
		t.Fatalf("zones.list: %d, %d zones", code, len(items(t, zones)))
	}
	code, r := do(t, env, "GET", cz+"/regions/africa-south1", nil)
	if rz, _ := r["zones"].([]any); code != 200 || len(rz) != 3 ||
		rz[0] != "https://www.googleapis.com/compute/v1/projects/"+project+"/zones/africa-south1-a" {
		t.Errorf("regions.get africa-south1: %d %v", code, r["zones"])
	}

	if code, body := do(t, env, "POST", cz+"/global/networks", map[string]any{"name": "auto", "autoCreateSubnetworks": true}); code != 200 {
		t.Fatalf("networks.insert: %d %v", code, body)
	}
	code, agg := do(t, env, "GET", cz+"/aggregated/subnetworks?filter="+url.QueryEscape(`name eq "auto"`), nil)
	scopes, _ := agg["items"].(map[string]any)
	if code != 200 || agg["kind"] != "compute#subnetworkAggregatedList" || len(scopes) != 41 {
		t.Fatalf("subnetworks.aggregatedList: %d %v, %d scopes", code, agg["kind"], len(scopes))
	}
	for _, region := range catalog.Regions() {
		sc, _ := scopes["regions/"+region].(map[string]any)
		subs, _ := sc["subnetworks"].([]any)
		want, _ := catalog.AutoModeSubnetRange(region)
		if len(subs) != 1 || subs[0].(map[string]any)["ipCidrRange"] != want {
			t.Errorf("regions/%s: %v, want one subnet %s", region, sc, want)
		}
	}
	if r, _ := catalog.AutoModeSubnetRange("europe-north2"); r != "10.226.0.0/20" {
		t.Errorf("europe-north2 auto range %s", r)
	}

	// An empty page: every region scope carries the warning, exactly as Compute shapes it.
	_, empty := do(t, env, "GET", cz+"/aggregated/subnetworks?filter="+url.QueryEscape(`name eq "nothing"`), nil)
	scopes, _ = empty["items"].(map[string]any)
	if len(scopes) != 41 {
		t.Fatalf("empty aggregatedList: %d scopes", len(scopes))
	}
	w, _ := scopes["regions/me-central1"].(map[string]any)["warning"].(map[string]any)
	data, _ := w["data"].([]any)
	if w["code"] != "NO_RESULTS_ON_PAGE" || w["message"] != "There are no results for scope 'regions/me-central1' on this page." ||
		len(data) != 1 || data[0].(map[string]any)["key"] != "scope" || data[0].(map[string]any)["value"] != "regions/me-central1" {
		t.Errorf("warning: %v", w)
	}
	// includeAllScopes=false leaves the empty scopes out.
	_, none := do(t, env, "GET", cz+"/aggregated/subnetworks?includeAllScopes=false&filter="+url.QueryEscape(`name eq "nothing"`), nil)
	if sc, _ := none["items"].(map[string]any); len(sc) != 0 {
		t.Errorf("includeAllScopes=false: %v", sc)
	}
}
