// Package machinetype is the hypercompute_machine_type data source: the
// catalog's facts about one Compute Engine machine type, so modules and
// blueprints decide by the provider's table (is it a GPU machine, how many
// GPUs, which NIC stack) instead of restating it.
package machinetype

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// NewDataSource is registered by the provider.
func NewDataSource() datasource.DataSource { return &dataSource{} }

type dataSource struct{}

func (d *dataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_machine_type"
}

// Read needs no API call: every fact comes from internal/catalog, the table
// the provider, the agent and the local cloud share.
func (d *dataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := m.Name.ValueString()
	mt, ok := catalog.Machine(name)
	if !ok {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Unknown machine type",
			fmt.Sprintf("name: %q is not a machine type this provider knows; known families: %s.", name, strings.Join(families(), ", ")))
		return
	}
	if z := m.Zone.ValueString(); z != "" {
		if err := catalog.ValidateMachineInZone(name, z); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("zone"), "Machine type not offered in zone", "zone: "+err.Error())
			return
		}
	}
	m.fill(mt)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func families() []string {
	seen := map[string]bool{}
	var out []string
	for _, mt := range catalog.Machines() {
		if !seen[mt.Family] {
			seen[mt.Family] = true
			out = append(out, mt.Family)
		}
	}
	return out
}

func (m *model) fill(mt catalog.MachineType) {
	m.Family = types.StringValue(mt.Family)
	m.Profile = types.StringValue(mt.Profile)
	m.CPUs = types.Int64Value(int64(mt.CPUs))
	m.MemoryMB = types.Int64Value(int64(mt.MemoryMB))
	m.Arch = types.StringValue(mt.Arch)
	m.GPUCount = types.Int64Value(int64(mt.GPUCount()))
	m.GPUType, m.GPUSlurmType, m.GPUMemoryGB = types.StringNull(), types.StringNull(), types.Int64Value(0)
	if mt.HasGPU() {
		m.GPUType = types.StringValue(mt.GPU.Type)
		m.GPUSlurmType = types.StringValue(mt.GPU.SlurmType)
		m.GPUMemoryGB = types.Int64Value(int64(mt.GPU.MemoryGB))
	}
	m.NICStack = types.StringValue(string(mt.NICStack))
	m.GPUNICCount = types.Int64Value(int64(mt.GPUNICCount))
	m.MTU = types.Int64Value(int64(mt.MTU))
	m.NetworkBandwidthGbps = types.Int64Value(int64(mt.NetworkBandwidthGbps))
	m.LocalSSDGB = types.Int64Value(int64(mt.LocalSSDGB))
	m.ImageFamily = types.StringValue(mt.ImageFamily)
	m.ImageProject = types.StringValue(mt.ImageProject)
	m.OnHostMaintenance = types.StringValue(mt.OnHostMaintenance)
	m.SpotCapable = types.BoolValue(mt.SpotCapable)
	m.FlexStartCapable = types.BoolValue(mt.FlexStartCapable)
	m.ReservationBound = types.BoolValue(mt.Placement.ReservationBound)
	m.ReservationRecommended = types.BoolValue(mt.Placement.ReservationRecommended)
	m.Placement = types.StringValue(string(mt.Placement.Mode))
	m.NCCLBusBandwidthGBps = types.Float64Value(mt.NCCLBusBandwidthGBps)
	m.MinResumeTimeout = types.Int64Value(0)
	if mt.HasGPU() {
		m.MinResumeTimeout = types.Int64Value(cc.DefaultGPUResumeTimeout)
	}
	m.ID = types.StringValue(mt.Name)
}
