package lustre

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// flatten writes what the API holds into m, which carries the prior values (configuration forms to
// keep, deletion_protection, timeouts).
func (r *lustreResource) flatten(ctx context.Context, inst *wire.Instance, m *model) diag.Diagnostics {
	var diags diag.Diagnostics
	if project, zone, name, ok := tfutil.SplitInstanceName(inst.Name); ok {
		m.Project, m.Zone, m.Name = types.StringValue(project), types.StringValue(zone), types.StringValue(name)
	}
	m.ID = types.StringValue(inst.Name)
	m.Filesystem = types.StringValue(inst.Filesystem)
	m.CapacityGiB = types.Int64Value(inst.CapacityGib)
	m.PerUnitStorageThroughput = types.Int64Value(inst.PerUnitStorageThroughput)
	if m.Network.IsNull() || m.Network.IsUnknown() || !tfutil.SameNetwork(m.Network.ValueString(), inst.Network, m.Project.ValueString()) {
		m.Network = types.StringValue(tfutil.NetworkRef(inst.Network, m.Project.ValueString()))
	}
	m.Description = tfutil.KeepNull(m.Description, inst.Description)
	m.MountPoint = types.StringValue(inst.MountPoint)
	m.MountSource = types.StringValue(inst.MountPoint)
	ip, _, _ := strings.Cut(inst.MountPoint, "@")
	m.IPAddress = types.StringValue(ip)
	m.State = types.StringValue(inst.State)
	// The API has no deletion protection: it lives in state, and an imported instance starts protected.
	if m.DeletionProtection.IsNull() || m.DeletionProtection.IsUnknown() {
		m.DeletionProtection = types.BoolValue(true)
	}
	var d diag.Diagnostics
	m.Labels, m.EffectiveLabels, d = tfutil.ReadMarkedLabels(ctx, r.Provider, inst.Labels, m.Labels)
	diags.Append(d...)
	return diags
}
