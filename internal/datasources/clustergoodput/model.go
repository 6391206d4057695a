package clustergoodput

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

type model struct {
	Cluster     types.String            `tfsdk:"cluster"`
	Window      types.String            `tfsdk:"window"`
	GeneratedAt types.String            `tfsdk:"generated_at"`
	Since       types.String            `tfsdk:"since"`
	Total       *figuresModel           `tfsdk:"total"`
	Partitions  map[string]figuresModel `tfsdk:"partitions"`
	Jobs        []jobModel              `tfsdk:"jobs"`
	JobsOmitted types.Int64             `tfsdk:"jobs_omitted"`
	Repairs     map[string]repairModel  `tfsdk:"repairs"`
}

type repairModel struct {
	Repairs     types.Int64   `tfsdk:"repairs"`
	NodeSeconds types.Float64 `tfsdk:"node_seconds"`
}

type figuresModel struct {
	Jobs        types.Int64   `tfsdk:"jobs"`
	WaitSeconds types.Float64 `tfsdk:"wait_seconds"`
	RunSeconds  types.Float64 `tfsdk:"run_seconds"`
	LostSeconds types.Float64 `tfsdk:"lost_seconds"`
	Restarts    types.Int64   `tfsdk:"restarts"`
	Scheduling  types.Float64 `tfsdk:"scheduling_goodput"`
	Runtime     types.Float64 `tfsdk:"runtime_goodput"`
	Program     types.Float64 `tfsdk:"program_goodput"`
	ProgramSecs types.Float64 `tfsdk:"program_seconds"`
}

type jobModel struct {
	JobID       types.String  `tfsdk:"job_id"`
	Name        types.String  `tfsdk:"name"`
	Partition   types.String  `tfsdk:"partition"`
	State       types.String  `tfsdk:"state"`
	WaitSeconds types.Float64 `tfsdk:"wait_seconds"`
	RunSeconds  types.Float64 `tfsdk:"run_seconds"`
	LostSeconds types.Float64 `tfsdk:"lost_seconds"`
	Restarts    types.Int64   `tfsdk:"restarts"`
	Scheduling  types.Float64 `tfsdk:"scheduling_goodput"`
	Runtime     types.Float64 `tfsdk:"runtime_goodput"`
	Program     types.Float64 `tfsdk:"program_goodput"`
	ProgramSecs types.Float64 `tfsdk:"program_seconds"`
}

func figures(f cc.GoodputFigures) figuresModel {
	m := figuresModel{
		Jobs: types.Int64Value(int64(f.Jobs)), WaitSeconds: types.Float64Value(f.WaitSeconds), RunSeconds: types.Float64Value(f.RunSeconds),
		LostSeconds: types.Float64Value(f.LostSeconds), Restarts: types.Int64Value(int64(f.Restarts)),
		Scheduling: types.Float64Value(f.Scheduling), Runtime: types.Float64Value(f.Runtime),
		Program: types.Float64Null(), ProgramSecs: types.Float64Value(f.ProgramSeconds),
	}
	if f.ProgramSeconds > 0 {
		m.Program = types.Float64Value(f.Program)
	}
	return m
}

func (m *model) fill(r cc.GoodputReport) {
	m.GeneratedAt, m.Since = types.StringValue(r.GeneratedAt), types.StringValue(r.Since)
	total := figures(r.Total)
	m.Total = &total
	m.Partitions = map[string]figuresModel{}
	for p, f := range r.Partitions {
		m.Partitions[p] = figures(f)
	}
	m.Jobs = []jobModel{}
	for _, j := range r.Jobs {
		f := figures(j.GoodputFigures)
		m.Jobs = append(m.Jobs, jobModel{
			JobID: types.StringValue(j.JobID), Name: types.StringValue(j.Name), Partition: types.StringValue(j.Partition), State: types.StringValue(j.State),
			WaitSeconds: f.WaitSeconds, RunSeconds: f.RunSeconds, LostSeconds: f.LostSeconds, Restarts: f.Restarts, Scheduling: f.Scheduling, Runtime: f.Runtime,
			Program: f.Program, ProgramSecs: f.ProgramSecs,
		})
	}
	m.JobsOmitted = types.Int64Value(int64(r.JobsOmitted))
	m.Repairs = map[string]repairModel{}
	for p, f := range r.Repairs {
		m.Repairs[p] = repairModel{Repairs: types.Int64Value(int64(f.Repairs)), NodeSeconds: types.Float64Value(f.NodeSeconds)}
	}
}
