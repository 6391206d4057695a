package recipes

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Slurm job and partition names go into #SBATCH lines and scontrol calls
// unquoted; keep them to what needs no quoting.
var slurmName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// launcherEnv is set per task by the launch itself; a job's env may not
// override it.
var launcherEnv = []string{"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"}

// Validate checks a resolved Job against its recipe and returns the recipe.
// Errors name the Job's JSON field (checkpoint.keep_last, ...), so the
// provider can map them to attribute paths; Render calls it too, so the agent
// never submits a job that would fail.
//
// A custom job (Job.Custom) has no row of the catalog: it is checked by
// validateCustom and the Recipe returned is the zero one.
func Validate(j Job) (Recipe, error) {
	if j.Custom != nil {
		if err := validateCustom(j); err != nil {
			return Recipe{}, err
		}
		return Recipe{}, validateCommon(j)
	}
	r, err := Lookup(j.Model, j.Size, j.Mode, j.Profile)
	if err != nil {
		return Recipe{}, err
	}
	if err := validateRecipe(j, r); err != nil {
		return r, err
	}
	return r, validateCommon(j)
}

// validateRecipe checks what a catalog recipe decides: its node minimum, one
// task per GPU, the training length, hyperparameters and precision.
func validateRecipe(j Job, r Recipe) error {
	if j.Nodes < r.MinNodes {
		return fmt.Errorf("nodes = %d: recipe %s needs at least %d", j.Nodes, r.Key(), r.MinNodes)
	}
	want, err := tasksPerNode(r)
	if err != nil {
		return err
	}
	if j.TasksPerNode != want {
		return fmt.Errorf("tasks_per_node = %d: recipe %s runs %d per node (one per GPU, one on CPU)", j.TasksPerNode, r.Key(), want)
	}
	if j.MaxSteps < 1 {
		return fmt.Errorf("max_steps = %d must be at least 1", j.MaxSteps)
	}
	if _, err := ResolveHyperparameters(r, j.Hyperparameters); err != nil {
		return err
	}
	if j.Precision != "" {
		if err := CheckPrecision(r, j.Precision); err != nil {
			return err
		}
	}
	if r.NeedsResumeFrom && j.Checkpoint.ResumeFrom == "" {
		return fmt.Errorf("checkpoint.resume_from is required: mode %s starts from an existing checkpoint", j.Mode)
	}
	return nil
}

// validateCommon checks what every job has, recipe or custom: names, paths,
// the checkpoint, the restart policy, the time limit and the environment.
func validateCommon(j Job) error {
	if !slurmName.MatchString(j.Name) {
		return fmt.Errorf("name %q must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", j.Name)
	}
	if !slurmName.MatchString(j.Partition) {
		return fmt.Errorf("partition %q must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", j.Partition)
	}
	for _, p := range []struct{ field, value string }{
		{"run_dir", j.RunDir}, {"checkpoint.dir", j.Checkpoint.Dir},
	} {
		if err := absPath(p.field, p.value); err != nil {
			return err
		}
	}
	for _, p := range []struct{ field, value string }{
		{"tensorboard_dir", j.TensorBoardDir}, {"export_path", j.ExportPath}, {"checkpoint.resume_from", j.Checkpoint.ResumeFrom},
	} {
		if p.value == "" {
			continue
		}
		if err := absPath(p.field, p.value); err != nil {
			return err
		}
	}
	c := j.Checkpoint
	switch {
	case c.Auto && c.IntervalSeconds != 0:
		return fmt.Errorf("checkpoint: interval_seconds = %d and auto are exclusive", c.IntervalSeconds)
	case c.Auto && !(c.MTBFSeconds > 0):
		return fmt.Errorf("checkpoint.mtbf_seconds = %g: the auto interval √(2·C·M) needs the partition's MTBF M > 0", c.MTBFSeconds)
	case !c.Auto && c.IntervalSeconds < 1:
		return fmt.Errorf("checkpoint.interval_seconds = %d: give an interval of at least 1 s, or auto", c.IntervalSeconds)
	case c.CostSeconds < 0:
		return fmt.Errorf("checkpoint.cost_seconds = %g must not be negative", c.CostSeconds)
	case !c.Auto && float64(c.IntervalSeconds) < c.CostSeconds:
		return fmt.Errorf("checkpoint.interval_seconds = %d is shorter than the checkpoint cost %.1f s: the job would spend all its time checkpointing", c.IntervalSeconds, c.CostSeconds)
	}
	if c.KeepLast < 1 {
		return fmt.Errorf("checkpoint.keep_last = %d must be at least 1", c.KeepLast)
	}
	if rp := j.Restart; rp.MaxRestarts < 0 || rp.BackoffSeconds < 0 {
		return fmt.Errorf("restart_policy: max_restarts = %d and backoff = %d s must not be negative", rp.MaxRestarts, rp.BackoffSeconds)
	}
	if j.SignalLead < 1 {
		return fmt.Errorf("signal_lead = %d must be at least 1 second", j.SignalLead)
	}
	if j.TimeLimit < 0 {
		return fmt.Errorf("time_limit = %d must not be negative", j.TimeLimit)
	}
	if j.TimeLimit > 0 && j.SignalLead >= j.TimeLimit*60 {
		return fmt.Errorf("signal_lead = %d s must be shorter than time_limit = %d min", j.SignalLead, j.TimeLimit)
	}
	for _, k := range sortedKeys(j.Env) {
		if !envName.MatchString(k) {
			return fmt.Errorf("env: %q is not a valid environment variable name", k)
		}
		for _, l := range launcherEnv {
			if k == l {
				return fmt.Errorf("env: %s is set per task by the launcher and cannot be overridden", k)
			}
		}
	}
	return nil
}

// CheckPrecision says whether the recipe runs in precision: one its profile
// trains in (the machine catalog), through a launcher that switches
// precision (Megatron-Bridge's --compute_dtype) unless it is the recipe's own.
func CheckPrecision(r Recipe, precision string) error {
	if precision == r.Precision {
		return nil
	}
	if err := catalog.ValidateTrainingPrecision(r.Profile, precision); err != nil {
		return fmt.Errorf("precision = %q: %w", precision, err)
	}
	if r.Launcher != launcherMegatronBridge {
		return fmt.Errorf("precision = %q: recipe %s (%s) runs in %s only; only Megatron-Bridge recipes switch precision", precision, r.Key(), r.Launcher, r.Precision)
	}
	return nil
}

func absPath(field, p string) error {
	if !path.IsAbs(p) {
		return fmt.Errorf("%s = %q must be an absolute path", field, p)
	}
	if strings.ContainsAny(p, "\n\r\x00") {
		return fmt.Errorf("%s = %q must not contain control characters", field, p)
	}
	return nil
}
