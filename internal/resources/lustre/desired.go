package lustre

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"

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
	case !maps.Equal(tfutil.WithoutCreateMarker(got.Labels), w.Labels):
		return "labels"
	}
	return ""
}
