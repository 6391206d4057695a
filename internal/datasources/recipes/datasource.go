// Package recipes is the hypercompute_recipes data source: the training
// recipe catalog (internal/recipes), filtered by model, size, mode and
// machine profile, so a configuration can see which recipes a partition's
// machines run and with which published defaults before it declares a
// hypercompute_recipe_job.
package recipes

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	rc "github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// NewDataSource is registered by the provider.
func NewDataSource() datasource.DataSource { return &dataSource{} }

type dataSource struct{}

func (d *dataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_recipes"
}

// Read makes no API call: the catalog is compiled into the provider.
func (d *dataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	all := rc.List()
	filters := []struct {
		attr  string
		value types.String
		of    func(rc.Recipe) string
	}{
		{"model", m.Model, func(r rc.Recipe) string { return r.Model }},
		{"size", m.Size, func(r rc.Recipe) string { return r.Size }},
		{"mode", m.Mode, func(r rc.Recipe) string { return r.Mode }},
		{"profile", m.Profile, func(r rc.Recipe) string { return r.Profile }},
	}
	for _, f := range filters {
		v := f.value.ValueString()
		if v == "" {
			continue
		}
		valid := distinct(all, f.of)
		if !slices.Contains(valid, v) {
			resp.Diagnostics.AddAttributeError(path.Root(f.attr), "Unknown "+f.attr,
				fmt.Sprintf("%s: %q is in no recipe of the catalog; valid: %s.", f.attr, v, strings.Join(valid, ", ")))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Recipes = []recipeModel{}
	for _, r := range all {
		keep := true
		for _, f := range filters {
			if v := f.value.ValueString(); v != "" && f.of(r) != v {
				keep = false
			}
		}
		if keep {
			m.Recipes = append(m.Recipes, flatten(r))
		}
	}
	m.ID = types.StringValue(fmt.Sprintf("%s/%s/%s@%s", m.Model.ValueString(), m.Size.ValueString(), m.Mode.ValueString(), m.Profile.ValueString()))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func distinct(rs []rc.Recipe, of func(rc.Recipe) string) []string {
	var out []string
	for _, r := range rs {
		if v := of(r); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func flatten(r rc.Recipe) recipeModel {
	hp := make(map[string]types.String, len(r.Hyperparameters))
	for k, v := range r.Hyperparameters {
		hp[k] = types.StringValue(v)
	}
	out := recipeModel{
		Key: types.StringValue(r.Key()), Model: types.StringValue(r.Model), Size: types.StringValue(r.Size),
		Mode: types.StringValue(r.Mode), Profile: types.StringValue(r.Profile),
		Nodes: types.Int64Value(int64(r.Nodes)), MinNodes: types.Int64Value(int64(r.MinNodes)),
		TensorParallel: types.Int64Value(int64(r.TensorParallel)), PipelineParallel: types.Int64Value(int64(r.PipelineParallel)),
		ContextParallel: types.Int64Value(int64(r.ContextParallel)), VirtualPipeline: types.Int64Value(int64(r.VirtualPipeline)),
		FSDP: types.BoolValue(r.FSDP), Precision: types.StringValue(r.Precision),
		MicroBatch: types.Int64Value(int64(r.MicroBatch)), GlobalBatch: types.Int64Value(int64(r.GlobalBatch)),
		SeqLength: types.Int64Value(int64(r.SeqLength)), Container: types.StringNull(),
		Launcher: types.StringValue(r.Launcher), NeedsResumeFrom: types.BoolValue(r.NeedsResumeFrom),
		GPU: types.BoolValue(r.GPU()), Hyperparameters: hp, Source: types.StringValue(r.Source),
		MaxSteps: types.Int64Value(int64(r.MaxSteps)), Parameters: types.Int64Value(r.Parameters),
		CheckpointGiB: types.Float64Value(r.CheckpointGiB()),
	}
	if r.Container != "" {
		out.Container = types.StringValue(r.Container)
	}
	return out
}
