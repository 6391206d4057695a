package recipejob

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// setResolved records in m what resolve decided: the defaults the plan
// shows and the derived names.
func setResolved(ctx context.Context, m *model, ref cc.ClusterID, j recipes.Job) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID = types.StringValue(jobID(ref, j.Name))
	m.Nodes = types.Int64Value(int64(j.Nodes))
	m.TensorBoardDir = types.StringValue(j.TensorBoardDir)
	m.RunDir = types.StringValue(j.RunDir)
	m.Generation = types.StringValue(j.Generation)
	rec, d := withResolvedGPUs(m.Recipe, j)
	diags.Append(d...)
	m.Recipe = rec
	var prior checkpointModel
	if !m.Checkpoint.IsNull() && !m.Checkpoint.IsUnknown() {
		diags.Append(m.Checkpoint.As(ctx, &prior, tfutil.ObjectOpts)...)
	}
	ck, d := checkpointObject(j.Checkpoint, prior)
	diags.Append(d...)
	m.Checkpoint = ck
	return diags
}

// checkpointObject is the checkpoint attribute of a job; the configuration's
// spelling of the interval wins over the canonical one when they agree.
func checkpointObject(c recipes.Checkpoint, prior checkpointModel) (types.Object, diag.Diagnostics) {
	interval := intervalAuto
	if !c.Auto {
		interval = formatDuration(time.Duration(c.IntervalSeconds) * time.Second)
	}
	if s := prior.Interval.ValueString(); s != "" && !prior.Interval.IsUnknown() {
		if d, auto, err := parseInterval(s); err == nil && auto == c.Auto && (auto || int(d/time.Second) == c.IntervalSeconds) {
			interval = s
		}
	}
	resume := types.StringNull()
	if c.ResumeFrom != "" {
		resume = types.StringValue(c.ResumeFrom)
	}
	return types.ObjectValue(checkpointTypes, map[string]attr.Value{
		"directory":   types.StringValue(c.Dir),
		"interval":    types.StringValue(interval),
		"keep_last":   types.Int64Value(int64(c.KeepLast)),
		"resume_from": resume,
	})
}

// setSpecFrom fills the configuration attributes from the job in the
// controller's metadata: on import, and when the key holds another
// generation than the state (rewritten behind Terraform's back).
func setSpecFrom(ctx context.Context, m *model, ref cc.ClusterID, j recipes.Job) diag.Diagnostics {
	var diags diag.Diagnostics
	m.Cluster = types.StringValue(ref.String())
	m.Name = types.StringValue(j.Name)
	m.Partition = types.StringValue(j.Partition)
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	rec, d := types.ObjectValue(recipeTypes, map[string]attr.Value{
		"model": str(j.Model), "mode": str(j.Mode), "size": str(j.Size), "custom": customObject(ctx, j, &diags)})
	diags.Append(d...)
	m.Recipe = rec
	// Optional maps read back empty, never null (tfutil/collections.go).
	strMap := func(in map[string]string) types.Map {
		if len(in) == 0 {
			return tfutil.EmptyMap(types.StringType)
		}
		v, d := types.MapValueFrom(ctx, types.StringType, in)
		diags.Append(d...)
		return v
	}
	maxSteps, image, env := types.Int64Value(int64(j.MaxSteps)), str(j.ContainerImage), strMap(j.Env)
	if j.Custom != nil {
		// A custom program's image and environment are recipe.custom's; its length optional.
		image, env = types.StringNull(), strMap(nil)
		if j.MaxSteps == 0 {
			maxSteps = types.Int64Null()
		}
	}
	ov, d := types.ObjectValue(overridesTypes, map[string]attr.Value{
		"max_steps":       maxSteps,
		"hyperparameters": strMap(j.Hyperparameters),
		"container_image": image,
		"precision":       str(j.Precision),
		"env":             env,
	})
	diags.Append(d...)
	m.Overrides = ov
	m.ExportPath = str(j.ExportPath)
	m.TimeLimit = types.StringNull()
	if j.TimeLimit > 0 {
		m.TimeLimit = types.StringValue(formatDuration(time.Duration(j.TimeLimit) * time.Minute))
	}
	rp, d := types.ObjectValue(restartPolicyTypes, map[string]attr.Value{
		"max_restarts": types.Int64Value(int64(j.Restart.MaxRestarts)),
		"backoff":      types.StringValue(formatDuration(time.Duration(j.Restart.BackoffSeconds) * time.Second)),
	})
	diags.Append(d...)
	m.RestartPolicy = rp
	diags.Append(setResolved(ctx, m, ref, j)...)
	return diags
}

// setReport fills the computed attributes from the controller's report.
func setReport(m *model, j recipes.Job, r cc.JobReport) {
	var p recipes.Progress
	if len(r.Progress) > 0 {
		_ = json.Unmarshal(r.Progress, &p)
	}
	m.JobID = types.Int64Value(int64(r.JobID))
	m.State = types.StringValue(r.State)
	m.StartTime = types.StringValue(r.StartTime)
	m.EndTime = types.StringValue(r.EndTime)
	m.LogPath = types.StringValue(r.LogPath)
	m.Step = types.Int64Value(int64(p.Step))
	m.Checkpoints = types.Int64Value(int64(p.Checkpoints))
	m.LastCheckpointStep = types.Int64Value(int64(p.LastCheckpointStep))
	m.LastCheckpointTime = types.StringValue(p.LastCheckpointTime)
	m.FirstLoss = types.Float64Value(p.FirstLoss)
	m.LastLoss = types.Float64Value(p.LastLoss)
	m.MFU = types.Float64Null()
	if p.TrainSeconds > 0 {
		m.MFU = types.Float64Value(p.MFU)
	}
	interval := ""
	switch {
	case p.IntervalSeconds > 0:
		interval = formatDuration(time.Duration(p.IntervalSeconds * float64(time.Second)))
	case !j.Checkpoint.Auto:
		interval = formatDuration(time.Duration(j.Checkpoint.IntervalSeconds) * time.Second)
	}
	m.CheckpointInterval = types.StringValue(interval)
	m.TimeLost = types.StringValue(formatDuration(time.Duration(p.LostSeconds * float64(time.Second))))
	m.Restarts = types.Int64Value(int64(max(p.Restarts, r.Requeues+r.AutoRestarts)))
	m.AutoRestarts = types.Int64Value(int64(r.AutoRestarts))
	m.LastRestartCause = types.StringValue(r.LastRestartCause)
}

// setNoReport gives the computed attributes known empty values, for a job
// the controller has not reported on yet.
func setNoReport(m *model, j recipes.Job) {
	setReport(m, j, cc.JobReport{})
	m.State = types.StringValue("")
}
