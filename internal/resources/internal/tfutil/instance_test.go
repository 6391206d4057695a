package tfutil

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

func TestSplitInstanceName(t *testing.T) {
	name := InstanceName("p1", "us-central1-a", "home")
	if name != "projects/p1/locations/us-central1-a/instances/home" {
		t.Fatalf("InstanceName = %q", name)
	}
	if p, l, id, ok := SplitInstanceName(name); !ok || p != "p1" || l != "us-central1-a" || id != "home" {
		t.Errorf("SplitInstanceName = %q %q %q %v", p, l, id, ok)
	}
	for _, bad := range []string{"", "p1/us-central1-a/home", "projects/p1/zones/z/instances/home"} {
		if _, _, _, ok := SplitInstanceName(bad); ok {
			t.Errorf("SplitInstanceName(%q) accepted", bad)
		}
	}
}

func TestImportInstance(t *testing.T) {
	ctx := context.Background()
	sch := schema.Schema{Attributes: map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true}, "project": schema.StringAttribute{Optional: true},
		"zone": schema.StringAttribute{Optional: true}, "name": schema.StringAttribute{Required: true},
	}}
	run := func(id, defaultProject string) (*resource.ImportStateResponse, bool) {
		resp := &resource.ImportStateResponse{State: tfsdk.State{Schema: sch, Raw: tftypes.NewValue(sch.Type().TerraformType(ctx), nil)}}
		ok := ImportInstance(ctx, resource.ImportStateRequest{ID: id}, resp, defaultProject, "zone", catalog.ValidateLustreInstanceID)
		return resp, ok
	}
	for _, id := range []string{"projects/p1/locations/us-central1-a/instances/data", "p1/us-central1-a/data", "us-central1-a/data"} {
		resp, ok := run(id, "p1")
		if !ok {
			t.Fatalf("%s: %v", id, resp.Diagnostics)
		}
		var got, zone string
		resp.State.GetAttribute(ctx, path.Root("id"), &got)
		resp.State.GetAttribute(ctx, path.Root("zone"), &zone)
		if got != "projects/p1/locations/us-central1-a/instances/data" || zone != "us-central1-a" {
			t.Errorf("%s: id %q zone %q", id, got, zone)
		}
	}
	for id, want := range map[string]string{
		"a/b/c/d":          "expected projects/{project}/locations/{zone}/instances/{name}, {project}/{zone}/{name} or {zone}/{name}",
		"us-central1-a/DB": "need a valid instance name, a zone and a project",
		"zone-only/data":   "",
	} {
		resp, ok := run(id, "")
		if want == "" {
			want = "need a valid instance name, a zone and a project" // no project anywhere
		}
		if ok || !strings.Contains(resp.Diagnostics[0].Detail(), want) {
			t.Errorf("%s: ok=%v %v", id, ok, resp.Diagnostics)
		}
	}
}
