package lustre

import (
	"context"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// desired is the instance a plan asks for, in the API's terms.
type desired struct {
	project, zone, name string
	inst                *wire.Instance
}

func (d *desired) parent() string   { return "projects/" + d.project + "/locations/" + d.zone }
func (d *desired) fullName() string { return tfutil.InstanceName(d.project, d.zone, d.name) }

// names is the instance ID (for messages) and the full name.
func (d *desired) names() (id, name string) { return d.name, d.fullName() }

func toDesired(ctx context.Context, m *model) (*desired, diag.Diagnostics) {
	labels, diags := tfutil.LabelMap(ctx, m.EffectiveLabels)
	d := &desired{project: m.Project.ValueString(), zone: m.Zone.ValueString(), name: m.Name.ValueString()}
	d.inst = &wire.Instance{
		Filesystem:               m.Filesystem.ValueString(),
		CapacityGib:              m.CapacityGiB.ValueInt64(),
		Network:                  tfutil.NetworkPath(m.Network.ValueString(), d.project),
		Description:              m.Description.ValueString(),
		Labels:                   labels,
		PerUnitStorageThroughput: m.PerUnitStorageThroughput.ValueInt64(),
	}
	return d, diags
}

// mismatch names the first attribute in which an existing instance differs from the desired one
// ("" when it is the instance this plan would create), for adopting an instance a lost answer created.
func (d *desired) mismatch(got *wire.Instance) string {
	w := d.inst
	switch {
	case got.Filesystem != w.Filesystem:
		return "filesystem"
	case got.PerUnitStorageThroughput != w.PerUnitStorageThroughput:
		return "per_unit_storage_throughput"
	case got.CapacityGib != w.CapacityGib:
		return "capacity_gib"
	case !tfutil.SameNetwork(got.Network, w.Network, d.project):
		return "network"
	case got.Description != w.Description:
		return "description"
	case !maps.Equal(got.Labels, w.Labels):
		return "labels"
	}
	return ""
}

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
	m.Labels, m.EffectiveLabels, d = tfutil.ReadLabels(ctx, r.Provider, inst.Labels, m.Labels)
	diags.Append(d...)
	return diags
}
