package tfutil

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

func TestDefaultFromProvider(t *testing.T) {
	p := &providerdata.Data{Project: "prov", Region: "us-central1", Zone: "us-central1-a"}
	for _, tc := range []struct {
		name     string
		v, prior types.String
		hasState bool
		p        *providerdata.Data
		want     types.String
		err      string
	}{
		{"configured value kept", types.StringValue("mine"), types.StringValue("old"), true, p, types.StringValue("mine"), ""},
		{"prior state wins over the provider", types.StringUnknown(), types.StringValue("old"), true, p, types.StringValue("old"), ""},
		{"provider default", types.StringNull(), types.StringNull(), false, p, types.StringValue("prov"), ""},
		{"nowhere", types.StringNull(), types.StringNull(), false, &providerdata.Data{}, types.StringNull(),
			"project: set project on the resource or the provider, or export GOOGLE_PROJECT"},
		{"provider not configured yet", types.StringUnknown(), types.StringNull(), false, nil, types.StringUnknown(), ""},
	} {
		var diags diag.Diagnostics
		v := tc.v
		DefaultFromProvider(&v, tc.prior, tc.hasState, tc.p, "project", &diags)
		if !v.Equal(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, v, tc.want)
		}
		if got := detail(diags); got != tc.err {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.err)
		}
	}
	var diags diag.Diagnostics
	zone, region := types.StringNull(), types.StringNull()
	DefaultFromProvider(&zone, types.StringNull(), false, p, "zone", &diags)
	DefaultFromProvider(&region, types.StringNull(), false, p, "region", &diags)
	if zone.ValueString() != "us-central1-a" || region.ValueString() != "us-central1" || diags.HasError() {
		t.Errorf("zone %v, region %v, %v", zone, region, diags)
	}
	zone = types.StringNull()
	DefaultFromProvider(&zone, types.StringNull(), false, &providerdata.Data{}, "zone", &diags)
	if !strings.Contains(detail(diags), "export GOOGLE_ZONE") {
		t.Errorf("missing zone: %v", diags)
	}
}

func TestCheckImmutable(t *testing.T) {
	var diags diag.Diagnostics
	s := types.StringValue
	CheckImmutable(&diags, "Filestore instance", "projects/p/locations/z/instances/home", "HINT",
		Change{Attr: "name", From: s("home"), To: s("home")},
		Change{Attr: "share.name", From: s("home"), To: s("data")},
		Change{Attr: "tier", From: types.StringNull(), To: s("ZONAL")},
		Change{Attr: "location", From: s("z"), To: types.StringUnknown()},
		Change{Attr: "network.name", From: s("ml"), To: s("projects/p/global/networks/ml"),
			Same: func(a, b string) bool { return SameNetwork(a, b, "p") }},
	)
	if len(diags) != 1 {
		t.Fatalf("diagnostics = %v", diags)
	}
	d := diags[0]
	if d.Summary() != "Cannot change share.name" ||
		d.Detail() != `share.name: cannot change from "home" to "data" on Filestore instance projects/p/locations/z/instances/home. HINT` {
		t.Errorf("diagnostic = %q / %q", d.Summary(), d.Detail())
	}
	if got := ReplaceHint("Filestore", "hypercompute_filestore"); !strings.HasPrefix(got, "Filestore cannot change it in place") ||
		!strings.Contains(got, "create a new hypercompute_filestore beside this one") {
		t.Errorf("ReplaceHint = %q", got)
	}
}

func TestKeepNull(t *testing.T) {
	if got := KeepNull(types.StringNull(), ""); !got.IsNull() {
		t.Errorf("unset and empty: %v", got)
	}
	if got := KeepNull(types.StringNull(), "set by hand"); got.ValueString() != "set by hand" {
		t.Errorf("drift: %v", got)
	}
	if got := KeepNull(types.StringValue("x"), ""); got.IsNull() || got.ValueString() != "" {
		t.Errorf("cleared: %v", got)
	}
}

func detail(diags diag.Diagnostics) string {
	if len(diags) == 0 {
		return ""
	}
	return diags[len(diags)-1].Detail()
}
