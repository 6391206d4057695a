// Package goodputplan is the hypercompute_goodput_plan data source: the
// goodput planner of internal/goodput over the catalog's failure, recovery
// and storage figures, so a team sees before it buys a reservation what
// runtime goodput its choices give.
package goodputplan

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/goodput"
)

// NewDataSource is registered by the provider.
func NewDataSource() datasource.DataSource { return &dataSource{} }

type dataSource struct{}

var _ datasource.DataSourceWithValidateConfig = (*dataSource)(nil)

func (d *dataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_goodput_plan"
}

// ValidateConfig refuses bad input at plan time, naming the attribute.
func (d *dataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, diags, _ := check(m)
	resp.Diagnostics.Append(diags...)
}

// Read computes the plan. It makes no API call: everything comes from the
// configuration and internal/catalog.
func (d *dataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s, diags, ok := check(m)
	resp.Diagnostics.Append(diags...)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	plan, err := goodput.Compute(s.params)
	if err != nil {
		resp.Diagnostics.AddError("Goodput plan failed", err.Error())
		return
	}
	best, err := goodput.BestSpares(s.params, s.maxSpares)
	if err != nil {
		resp.Diagnostics.AddError("Goodput plan failed", err.Error())
		return
	}
	warnings, diags := types.ListValueFrom(ctx, types.StringType, nonNil(goodput.Warnings(s.params, plan, s.target)))
	resp.Diagnostics.Append(diags...)

	p := s.params
	m.ID = types.StringValue(fmt.Sprintf("%s x%d+%d %gh", m.MachineType.ValueString(), p.Nodes, p.Spares, p.JobLength.Hours()))
	m.Spares = types.Int64Value(int64(p.Spares))
	m.NodeMTBFHours = types.Float64Value(p.NodeMTBI.Hours())
	m.Recovery = types.StringValue(s.regime)
	m.DetectMinutes = types.Float64Value(p.Detect.Minutes())
	m.SwapMinutes = types.Float64Value(p.Swap.Minutes())
	m.RepairMinutes = types.Float64Value(p.Repair.Minutes())
	m.RestartMinutes = types.Float64Value(p.Restart.Minutes())
	m.CheckpointIntervalMinute = types.Float64Value(plan.Interval.Minutes())
	m.ReliabilitySource = types.StringValue(s.source)
	m.JobMTBFHours = types.Float64Value(plan.JobMTBI.Hours())
	m.PauseSeconds = types.Float64Value(p.CheckpointPause.Seconds())
	m.PersistSeconds = types.Float64Value(p.CheckpointPersist.Seconds())
	m.OptimalIntervalMinutes = types.Float64Value(plan.OptimalInterval.Minutes())
	m.ExpectedInterruptions = types.Float64Value(plan.Interruptions)
	m.Goodput = types.Float64Value(plan.Goodput)
	m.LostCheckpointingHours = types.Float64Value(plan.Lost.Checkpointing.Hours())
	m.LostReworkHours = types.Float64Value(plan.Lost.Rework.Hours())
	m.LostRecoveryHours = types.Float64Value(plan.Lost.Recovery.Hours())
	m.LostSpareWaitHours = types.Float64Value(plan.Lost.SpareWait.Hours())
	m.NoSpareProbability = types.Float64Value(plan.NoSpareProbability)
	m.BestSpares = types.Int64Value(int64(best.Spares))
	m.BestSparesGoodput = types.Float64Value(best.Plan.Goodput)
	m.BestSparesPerNodeHour = types.Float64Value(best.PerNodeHour)
	m.Warnings = warnings
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
