package trainingcluster

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// ImportState accepts projects/{project}/zones/{zone}/clusters/{name}, {project}/{zone}/{name},
// {zone}/{name} or {name} (the provider's project and zone fill what is missing).
func (r *clusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var project, zone, name string
	if r.Provider != nil {
		project, zone = r.Provider.Project, r.Provider.Zone
	}
	parts := strings.Split(req.ID, "/")
	switch {
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "zones" && parts[4] == "clusters":
		project, zone, name = parts[1], parts[3], parts[5]
	case len(parts) == 3:
		project, zone, name = parts[0], parts[1], parts[2]
	case len(parts) == 2:
		zone, name = parts[0], parts[1]
	case len(parts) == 1:
		name = parts[0]
	default:
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("expected projects/{project}/zones/{zone}/clusters/{name}, {project}/{zone}/{name}, {zone}/{name} or {name}; got %q", req.ID))
		return
	}
	if err := clusterconfig.ValidateClusterName(name); err != nil || project == "" || catalog.ValidateZone(zone) != nil {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("cannot import %q: need a valid cluster name, a known zone and a project (from the ID or the provider)", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), clusterID(project, zone, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("zone"), zone)...)
}
