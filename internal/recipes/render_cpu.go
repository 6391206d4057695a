package recipes

import (
	"fmt"
	"strings"
)

// trainerConfig is recipe.json, the one input of the CPU trainer: the
// recipe's architecture and resolved hyperparameters plus the Job's run,
// checkpoint and export settings.
type trainerConfig struct {
	ModelName       string         `json:"model_name"`
	Size            string         `json:"size"`
	Name            string         `json:"name"`
	Mode            string         `json:"mode"`
	MaxSteps        int            `json:"max_steps"`
	RunDir          string         `json:"run_dir"`
	TensorBoardDir  string         `json:"tensorboard_dir,omitempty"`
	ExportPath      string         `json:"export_path,omitempty"`
	Generation      string         `json:"generation"`
	Checkpoint      Checkpoint     `json:"checkpoint"`
	Model           Architecture   `json:"model"`
	Hyperparameters map[string]any `json:"hyperparameters"`
}

func newTrainerConfig(j Job, r Recipe, hp map[string]string) trainerConfig {
	return trainerConfig{
		ModelName: r.Model, Size: r.Size, Name: j.Name, Mode: j.Mode, MaxSteps: j.MaxSteps,
		RunDir: j.RunDir, TensorBoardDir: j.TensorBoardDir, ExportPath: j.ExportPath,
		Generation: j.Generation, Checkpoint: j.Checkpoint, Model: *r.Architecture,
		Hyperparameters: numeric(hp),
	}
}

func renderCPU(j Job, r Recipe, hp map[string]string) (Script, error) {
	cfg := newTrainerConfig(j, r, hp)
	flags := sbatchFlags(j, 0)
	var b strings.Builder
	scriptHead(&b, j, r, flags)
	fmt.Fprintf(&b, "RUN_DIR=%s\n", shq(j.RunDir))
	fmt.Fprintf(&b, "mkdir -p \"$RUN_DIR\" %s\n", shq(j.Checkpoint.Dir))
	if err := heredoc(&b, `"$RUN_DIR/train.py"`, "HYPERCOMPUTE_TRAIN_PY", cpuTrainer); err != nil {
		return Script{}, err
	}
	if err := heredoc(&b, `"$RUN_DIR/recipe.json"`, "HYPERCOMPUTE_RECIPE_JSON", marshalIndent(cfg)); err != nil {
		return Script{}, err
	}
	// A STOPPED file of an earlier run must not requeue this one.
	fmt.Fprintf(&b, "rm -f \"$RUN_DIR/%s\"\n", StoppedFile)
	b.WriteString(masterAddr)
	envExports(&b, j.Env)
	b.WriteString("echo \"hypercompute: $SLURM_JOB_NAME ($SLURM_JOB_ID, restart ${SLURM_RESTART_COUNT:-0}) on $SLURM_JOB_NODELIST, master $MASTER_ADDR:$MASTER_PORT\"\n")
	// One process per task with the launch environment NeMo/Megatron use
	// on Slurm; torchrun is not used (Debian's is broken on Python 3.11).
	// --kill-on-bad-exit ends the step when a rank dies instead of leaving
	// the others blocked in a collective.
	b.WriteString("launch_step() {\n")
	fmt.Fprintf(&b, "srun --kill-on-bad-exit=1 --nodes=%d --ntasks-per-node=%d \\\n", j.Nodes, j.TasksPerNode)
	b.WriteString("  bash -c 'export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID; exec /usr/bin/python3 \"$0\" \"$1\"' \\\n")
	b.WriteString("  \"$RUN_DIR/train.py\" \"$RUN_DIR/recipe.json\" &\n}\n")
	stepLoop(&b, j, "USR1", fmt.Sprintf(`[ -f "$RUN_DIR/%s" ]`, StoppedFile))
	return Script{Body: b.String(), Sbatch: flags, NeedsBatchSignal: true, MakeDirs: []string{j.RunDir}}, nil
}
