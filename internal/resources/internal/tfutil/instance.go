package tfutil

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Filestore and Managed Lustre name an instance projects/{project}/locations/{location}/instances/{id};
// the location is a zone or a region (Filestore's REGIONAL and ENTERPRISE tiers).

// InstanceName is an instance's full resource name, which is also the resource's id.
func InstanceName(project, location, id string) string {
	return fmt.Sprintf("projects/%s/locations/%s/instances/%s", project, location, id)
}

// SplitInstanceName reads a full instance name.
func SplitInstanceName(name string) (project, location, id string, ok bool) {
	parts := strings.Split(name, "/")
	if len(parts) != 6 || parts[0] != "projects" || parts[2] != "locations" || parts[4] != "instances" {
		return "", "", "", false
	}
	return parts[1], parts[3], parts[5], true
}

// ImportInstance reads an import ID, the full name as InstanceName writes it, {project}/{location}/{id}
// or {location}/{id} (in the provider's project, defaultProject), and
// sets id, project, locAttr ("location" or "zone") and name. validID is the instance ID rule. It
// reports whether the ID was good.
func ImportInstance(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse,
	defaultProject, locAttr string, validID func(string) error) bool {
	project, location, name, ok := SplitInstanceName(req.ID)
	if !ok {
		parts := strings.Split(req.ID, "/")
		switch len(parts) {
		case 3:
			project, location, name = parts[0], parts[1], parts[2]
		case 2:
			project, location, name = defaultProject, parts[0], parts[1]
		default:
			resp.Diagnostics.AddError("Invalid import ID",
				fmt.Sprintf("expected projects/{project}/locations/{%[1]s}/instances/{name}, {project}/{%[1]s}/{name} or {%[1]s}/{name}; got %[2]q", locAttr, req.ID))
			return false
		}
	}
	if err := validID(name); err != nil || project == "" || location == "" {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("cannot import %q: need a valid instance name, a %s and a project (from the ID or the provider)", req.ID, locAttr))
		return false
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), InstanceName(project, location, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(locAttr), location)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	return !resp.Diagnostics.HasError()
}
