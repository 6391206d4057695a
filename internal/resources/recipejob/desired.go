package recipejob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	gopath "path"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/goodput"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Provider defaults of a job that no recipe decides.
const (
	defaultKeepLast = 3
	// signalLead: the job is told this many seconds before its time limit
	// to checkpoint and stop (--signal=B:USR1@signalLead).
	signalLead = 120
	// A crashed rank is restarted up to 3 times per job, 30 s after the
	// first failure and twice as long after each next: enough for transient
	// faults (an NCCL timeout, a one-off OOM), not a loop.
	defaultMaxRestarts    = 3
	defaultRestartBackoff = "30s"
	maxRestartBackoff     = time.Hour
)

// spec is the configuration part of the model, read into plain values.
// Unknown values make it incomplete: the job is then resolved at apply.
type spec struct {
	ref       cc.ClusterID
	name      string
	partition string
	recipe    recipeModel
	nodes     int // 0: the recipe's default
	overrides overridesModel
	ckpt      checkpointModel
	restart   recipes.RestartPolicy
	tbDir     string
	export    string
	// custom is recipe.custom: the user's program instead of a catalog recipe.
	custom    *customModel
	timeLimit string
	complete  bool
}

func readSpec(ctx context.Context, m *model) (spec, diag.Diagnostics) {
	var s spec
	var diags diag.Diagnostics
	known := func(vs ...attrValue) bool {
		for _, v := range vs {
			if v.IsUnknown() {
				return false
			}
		}
		return true
	}
	s.complete = known(m.Cluster, m.Name, m.Partition, m.Recipe, m.Nodes, m.Overrides, m.TensorBoardDir, m.ExportPath, m.TimeLimit)
	if !m.Cluster.IsUnknown() {
		ref, err := cc.ParseClusterID(m.Cluster.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("cluster"), "Invalid cluster", "cluster: "+err.Error())
			return s, diags
		}
		s.ref = ref
	}
	s.name, s.partition = m.Name.ValueString(), m.Partition.ValueString()
	if !m.Recipe.IsNull() && !m.Recipe.IsUnknown() {
		diags.Append(m.Recipe.As(ctx, &s.recipe, tfutil.ObjectOpts)...)
		s.complete = s.complete && known(s.recipe.Model, s.recipe.Size, s.recipe.Mode, s.recipe.Custom)
		if s.custom = readCustom(ctx, s.recipe, &diags); s.custom != nil {
			s.complete = s.complete && s.custom.known()
		}
	}
	if !m.Nodes.IsNull() && !m.Nodes.IsUnknown() {
		s.nodes = int(m.Nodes.ValueInt64())
	}
	if !m.Overrides.IsNull() && !m.Overrides.IsUnknown() {
		diags.Append(m.Overrides.As(ctx, &s.overrides, tfutil.ObjectOpts)...)
		o := s.overrides
		s.complete = s.complete && known(o.MaxSteps, o.Hyperparameters, o.ContainerImage, o.Precision, o.Env)
	}
	if !m.Checkpoint.IsNull() && !m.Checkpoint.IsUnknown() {
		diags.Append(m.Checkpoint.As(ctx, &s.ckpt, tfutil.ObjectOpts)...)
		// directory, interval and keep_last are computed when unset: unknown means "default".
		s.complete = s.complete && known(s.ckpt.ResumeFrom)
	}
	s.restart, s.complete = readRestartPolicy(ctx, m.RestartPolicy, s.complete, &diags)
	s.tbDir, s.export = m.TensorBoardDir.ValueString(), m.ExportPath.ValueString()
	s.timeLimit = m.TimeLimit.ValueString()
	return s, diags
}

type attrValue interface{ IsUnknown() bool }

// interval reads checkpoint.interval; unset is "auto".
func (s spec) interval() (time.Duration, bool, error) {
	if s.ckpt.Interval.IsNull() || s.ckpt.Interval.IsUnknown() || s.ckpt.Interval.ValueString() == "" {
		return 0, true, nil
	}
	return parseInterval(s.ckpt.Interval.ValueString())
}

// resolve turns a complete spec into the Job the agent runs, checking it
// against the partition it names. Every error names its attribute.
func resolve(s spec, v *controllerView, p cc.Partition, diags *diag.Diagnostics) (recipes.Job, bool) {
	mt, ok := catalog.Machine(p.MachineType)
	if !ok {
		diags.AddAttributeError(path.Root("partition"), "Unknown machine type",
			fmt.Sprintf("partition: partition %s runs machine type %q, which the catalog does not know", p.Name, p.MachineType))
		return recipes.Job{}, false
	}
	// What the job runs: a catalog row on the partition's profile, or the user's program.
	var (
		r       recipes.Recipe
		profile string
		tasks   int
		custom  *recipes.Custom
		nodes   = s.nodes
	)
	if s.custom != nil {
		nodes = max(nodes, 1)
		if profile, tasks, custom, ok = customOn(s.custom, mt, p, nodes, diags); !ok {
			return recipes.Job{}, false
		}
	} else {
		profile = mt.Profile
		if !mt.HasGPU() {
			profile = recipes.ProfileCPU
		}
		var err error
		r, err = recipeOn(s.recipe, profile)
		if err != nil && profile != recipes.ProfileCPU {
			// The CPU recipe trains on any machine's CPUs, a GPU machine's too (the local cloud's GPU
			// VMs, whose GPUs are stand-ins, run it under the health checks).
			if cpu, cerr := recipeOn(s.recipe, recipes.ProfileCPU); cerr == nil {
				r, err, profile = cpu, nil, recipes.ProfileCPU
			}
		}
		if err != nil {
			diags.AddAttributeError(path.Root("recipe"), "Recipe cannot run on this partition",
				fmt.Sprintf("recipe: %v (partition %s runs %s)", err, p.Name, p.MachineType))
			return recipes.Job{}, false
		}
		if nodes == 0 {
			nodes = r.Nodes
		}
		tasks = tasksPerNode(mt, profile)
	}
	if most := p.StaticNodes + p.MaxDynamicNodes; nodes > most {
		diags.AddAttributeError(path.Root("nodes"), "Too many nodes",
			fmt.Sprintf("nodes: the job needs %d nodes, but partition %s holds at most %d (%d static, %d dynamic)", nodes, p.Name, most, p.StaticNodes, p.MaxDynamicNodes))
		return recipes.Job{}, false
	}
	interval, auto, err := s.interval()
	if err != nil {
		diags.AddAttributeError(path.Root("checkpoint").AtName("interval"), "Invalid checkpoint interval", "checkpoint.interval: "+err.Error())
		return recipes.Job{}, false
	}
	ck := recipes.Checkpoint{
		Dir:        s.ckpt.Directory.ValueString(),
		KeepLast:   defaultKeepLast,
		ResumeFrom: s.ckpt.ResumeFrom.ValueString(),
	}
	if ck.Dir == "" {
		ck.Dir = defaultCheckpointDir(v.cfg.Mounts, s.name)
	}
	if !s.ckpt.KeepLast.IsNull() && !s.ckpt.KeepLast.IsUnknown() {
		ck.KeepLast = int(s.ckpt.KeepLast.ValueInt64())
	}
	// A custom program's checkpoint size is unknown: its helper measures the cost instead.
	if custom == nil {
		cost, err := estimateCheckpointCost(v.cfg.Mounts, ck.Dir, mt.Name, nodes, r)
		if err != nil {
			diags.AddAttributeError(path.Root("checkpoint").AtName("directory"), "Cannot estimate the checkpoint cost", "checkpoint.directory: "+err.Error())
			return recipes.Job{}, false
		}
		if cost.known {
			ck.CostSeconds = cost.cost.Write.Seconds()
			if !auto && interval.Seconds() < ck.CostSeconds {
				least := formatDuration(time.Duration(math.Ceil(ck.CostSeconds)) * time.Second)
				diags.AddAttributeError(path.Root("checkpoint").AtName("interval"), "Checkpoint interval shorter than a checkpoint",
					fmt.Sprintf("checkpoint.interval: %s is shorter than the checkpoint cost C = %.1f s: %s. The job would spend all its time checkpointing; set at least %q, or \"auto\"",
						formatDuration(interval), ck.CostSeconds, cost.describe(r, nodes), least))
				return recipes.Job{}, false
			}
		}
	}
	if auto {
		mtbf, err := goodput.JobMTBF(mt.Profile, nodes)
		if err != nil {
			diags.AddAttributeError(path.Root("checkpoint").AtName("interval"), "No failure figures for auto",
				fmt.Sprintf("checkpoint.interval: \"auto\" needs the expected time between failures of %d %s nodes: %v. Set a duration instead, e.g. \"30m\"", nodes, p.MachineType, err))
			return recipes.Job{}, false
		}
		ck.Auto, ck.MTBFSeconds = true, mtbf.Seconds()
	} else {
		ck.IntervalSeconds = int(interval / time.Second)
	}
	// The recipe's own training length unless the job sets one; a custom program's own (0).
	maxSteps := r.MaxSteps
	if !s.overrides.MaxSteps.IsNull() {
		maxSteps = int(s.overrides.MaxSteps.ValueInt64())
	}
	timeLimit := 0
	if s.timeLimit != "" {
		if timeLimit, err = parseTimeLimit(s.timeLimit); err != nil {
			tfutil.AddInvalid(diags, path.Root("time_limit"), err.Error())
			return recipes.Job{}, false
		}
	}
	run := runDir(v.cfg.Mounts, s.name)
	j := recipes.Job{
		Schema:          1,
		Name:            s.name,
		Cluster:         s.ref.Name,
		Partition:       p.Name,
		Model:           s.recipe.Model.ValueString(),
		Size:            s.recipe.Size.ValueString(),
		Mode:            s.recipe.Mode.ValueString(),
		Profile:         profile,
		Nodes:           nodes,
		TasksPerNode:    tasks,
		MaxSteps:        maxSteps,
		Hyperparameters: stringMap(s.overrides.Hyperparameters),
		ContainerImage:  s.overrides.ContainerImage.ValueString(),
		Precision:       s.overrides.Precision.ValueString(),
		Env:             stringMap(s.overrides.Env),
		Checkpoint:      ck,
		Restart:         s.restart,
		RunDir:          run,
		TensorBoardDir:  s.tbDir,
		ExportPath:      s.export,
		TimeLimit:       timeLimit,
		SignalLead:      signalLead,
		Custom:          custom,
	}
	if custom != nil {
		j.ContainerImage, j.Env = s.custom.ContainerImage.ValueString(), stringMap(s.custom.Environment)
		if len(j.Hyperparameters) == 0 {
			j.Hyperparameters = nil
		}
		if len(j.Env) == 0 {
			j.Env = nil
		}
	}
	if j.TensorBoardDir == "" {
		j.TensorBoardDir = gopath.Join(run, "tensorboard")
	}
	j.Generation = generation(j)
	// The catalog's own check of the whole job (hyperparameter names and values, the
	// environment, the recipe's node minimum): what the agent's Render would refuse.
	if _, err := recipes.Validate(j); err != nil {
		p := validatedPath(err.Error(), custom != nil)
		diags.AddAttributeError(p, "Invalid job", tfutil.WithPath(attrName(p), err.Error()))
		return recipes.Job{}, false
	}
	return j, true
}

// generation names a spec: a short hash of the job without its generation.
func generation(j recipes.Job) string {
	j.Generation = ""
	b, _ := json.Marshal(j)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

func stringMap(m types.Map) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		if s, ok := v.(basetypes.StringValue); ok {
			out[k] = s.ValueString()
		}
	}
	return out
}

// encodeJob is the JobKey value.
func encodeJob(j recipes.Job) (string, error) {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return "", err
	}
	if len(b) > cc.MaxMetadataValue {
		return "", fmt.Errorf("the job spec is %d bytes; a metadata value holds at most %d", len(b), cc.MaxMetadataValue)
	}
	return string(b), nil
}
