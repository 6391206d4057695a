package recipes

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// customHelper is the Python module a custom job's program imports
// (`import hypercompute`) to checkpoint, resume and report progress the way
// the recipes do; the batch script writes it into the run directory.
//
//go:embed customjob/hypercompute.py
var customHelper string

// CustomHelper returns the helper module's source (tests run it directly).
func CustomHelper() string { return customHelper }

// Names of what a custom job's batch script writes into its run directory.
const (
	// CustomHelperModule is the helper, on PYTHONPATH.
	CustomHelperModule = "hypercompute.py"
	// CustomProgram is the user's script, or the command as a bash script.
	CustomProgram = "program"
	// customTask runs the program as one task (customTaskScript).
	customTask = "hypercompute-task.sh"
)

// MaxCustomProgramBytes bounds a custom job's script or command: the whole
// job must fit one metadata value (256 KiB) on the controller.
const MaxCustomProgramBytes = 192 << 10

// What the batch script exports to a custom job's tasks, besides RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT. A job's environment
// may not set them.
const (
	EnvRunDir             = "HYPERCOMPUTE_RUN_DIR"
	EnvCheckpointDir      = "HYPERCOMPUTE_CHECKPOINT_DIR"
	EnvCheckpointInterval = "HYPERCOMPUTE_CHECKPOINT_INTERVAL_SECONDS"
	EnvCheckpointAuto     = "HYPERCOMPUTE_CHECKPOINT_AUTO"
	EnvMTBF               = "HYPERCOMPUTE_MTBF_SECONDS"
	EnvKeepLast           = "HYPERCOMPUTE_KEEP_LAST"
	EnvResumeFrom         = "HYPERCOMPUTE_RESUME_FROM"
	EnvMaxSteps           = "HYPERCOMPUTE_MAX_STEPS"
	EnvGeneration         = "HYPERCOMPUTE_GENERATION"
	EnvFLOPsPerStep       = "HYPERCOMPUTE_FLOPS_PER_STEP"
	EnvPeakTFLOPS         = "HYPERCOMPUTE_PEAK_TFLOPS"
	EnvTensorBoardDir     = "HYPERCOMPUTE_TENSORBOARD_DIR"
	EnvExportPath         = "HYPERCOMPUTE_EXPORT_PATH"
)

// CustomReservedEnv lists every variable the launch sets for a custom job's
// tasks, sorted.
func CustomReservedEnv() []string {
	out := append([]string{}, launcherEnv...)
	out = append(out, EnvRunDir, EnvCheckpointDir, EnvCheckpointInterval, EnvCheckpointAuto, EnvMTBF, EnvKeepLast,
		EnvResumeFrom, EnvMaxSteps, EnvGeneration, EnvFLOPsPerStep, EnvPeakTFLOPS, EnvTensorBoardDir, EnvExportPath)
	slices.Sort(out)
	return out
}

// customEnv is what the tasks of a custom job learn from the batch script.
func customEnv(j Job) map[string]string {
	c := j.Checkpoint
	env := map[string]string{
		EnvRunDir:             j.RunDir,
		EnvCheckpointDir:      c.Dir,
		EnvCheckpointInterval: strconv.Itoa(c.IntervalSeconds),
		EnvKeepLast:           strconv.Itoa(c.KeepLast),
		EnvGeneration:         j.Generation,
		EnvTensorBoardDir:     j.TensorBoardDir,
	}
	if c.Auto {
		env[EnvCheckpointAuto] = "1"
		env[EnvMTBF] = strconv.FormatFloat(c.MTBFSeconds, 'f', -1, 64)
	}
	if c.ResumeFrom != "" {
		env[EnvResumeFrom] = c.ResumeFrom
	}
	if j.MaxSteps > 0 {
		env[EnvMaxSteps] = strconv.Itoa(j.MaxSteps)
	}
	if j.ExportPath != "" {
		env[EnvExportPath] = j.ExportPath
	}
	if f := j.Custom.FLOPsPerStep; f > 0 {
		env[EnvFLOPsPerStep] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	if p := j.Custom.PeakTFLOPS; p > 0 {
		env[EnvPeakTFLOPS] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	return env
}

// validateCustom checks what only a custom job has. Errors name the Job's
// JSON fields under custom. (custom.script, custom.gpus_per_node, ...).
func validateCustom(j Job) error {
	c := j.Custom
	if j.Model != "" || j.Size != "" || j.Mode != "" {
		return fmt.Errorf("custom: a custom job names no catalog recipe (model %q, size %q, mode %q)", j.Model, j.Size, j.Mode)
	}
	if len(j.Hyperparameters) > 0 || j.Precision != "" {
		return fmt.Errorf("custom: hyperparameters and precision are the catalog recipes'; a custom program takes its own arguments")
	}
	switch {
	case (c.Command == "") == (c.Script == ""):
		return fmt.Errorf("custom: set exactly one of command and script")
	case len(c.Command)+len(c.Script) > MaxCustomProgramBytes:
		return fmt.Errorf("custom.%s is %d bytes; at most %d fit the job's metadata value: keep the program on /home or Lustre and run it with a command",
			map[bool]string{true: "script", false: "command"}[c.Script != ""], len(c.Command)+len(c.Script), MaxCustomProgramBytes)
	case c.Script != "" && !strings.HasPrefix(c.Script, "#!"):
		return fmt.Errorf("custom.script must start with a #! line naming its interpreter (#!/usr/bin/env python3, #!/bin/bash)")
	case strings.ContainsRune(c.Command, 0):
		return fmt.Errorf("custom.command must not contain NUL characters")
	}
	if c.GPUsPerNode < 0 {
		return fmt.Errorf("custom.gpus_per_node = %d must not be negative", c.GPUsPerNode)
	}
	if j.Profile == ProfileCPU {
		if c.GPUsPerNode > 0 {
			return fmt.Errorf("custom.gpus_per_node = %d: the partition's machine type has no GPUs", c.GPUsPerNode)
		}
		if j.ContainerImage != "" {
			return fmt.Errorf("custom.container_image: containers run with enroot and pyxis, which only GPU machine families have; this partition's machine type has no GPUs")
		}
	} else if _, err := profileMachine(j.Profile); err != nil {
		return err
	}
	if want := max(c.GPUsPerNode, 1); j.TasksPerNode != want {
		return fmt.Errorf("tasks_per_node = %d: a custom job runs one task per GPU it asks for (%d)", j.TasksPerNode, want)
	}
	if j.Nodes < 1 {
		return fmt.Errorf("nodes = %d must be at least 1", j.Nodes)
	}
	if j.MaxSteps < 0 {
		return fmt.Errorf("max_steps = %d must not be negative", j.MaxSteps)
	}
	if c.FLOPsPerStep < 0 || c.PeakTFLOPS < 0 {
		return fmt.Errorf("custom.flops_per_step = %g and peak_tflops = %g must not be negative", c.FLOPsPerStep, c.PeakTFLOPS)
	}
	for _, k := range sortedKeys(j.Env) {
		if slices.Contains(CustomReservedEnv(), k) {
			return fmt.Errorf("env: %s is set by the job's launch (the checkpoint directory, ranks, ...) and cannot be overridden", k)
		}
	}
	return nil
}

// customTaskScript runs the job's program as one Slurm task. The program
// gets a process group of its own, and the signals the step gets (USR1
// before the time limit or a host's stop, TERM on a requeue or cancel) are
// sent to that whole group; the task ends only once every process of the
// group has, so a program that saves a checkpoint on SIGUSR1 is not cut short
// because a shell between it and the task (a command's bash) died of the
// signal first.
const customTaskScript = `export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID
export PYTHONPATH="$HYPERCOMPUTE_RUN_DIR${PYTHONPATH:+:$PYTHONPATH}"
cd "$HYPERCOMPUTE_RUN_DIR" || exit 1
setsid "$@" &
child=$!
trap 'kill -USR1 -- -$child 2>/dev/null' USR1
trap 'kill -TERM -- -$child 2>/dev/null' TERM
while :; do
  wait "$child"; rc=$?
  if [ "$rc" -gt 128 ] && kill -0 "$child" 2>/dev/null; then continue; fi
  break
done
while kill -0 -- -"$child" 2>/dev/null; do sleep 0.2; done
exit "$rc"
`

// renderCustom is the batch script of a custom job: the recipes' head,
// restart loop and signal handling around the user's program.
func renderCustom(j Job) (Script, error) {
	c := j.Custom
	gpus := 0
	var m catalog.MachineType
	if j.Profile != ProfileCPU {
		var err error
		if m, err = profileMachine(j.Profile); err != nil {
			return Script{}, err
		}
		gpus = c.GPUsPerNode
	}
	flags := sbatchFlags(j, gpus)
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "# hypercompute recipe job %s: custom program (generation %s)\n", j.Name, j.Generation)
	for _, f := range flags {
		b.WriteString("#SBATCH " + f + "\n")
	}
	b.WriteString("set -o pipefail\n")
	fmt.Fprintf(&b, "RUN_DIR=%s\nCKPT_DIR=%s\n", shq(j.RunDir), shq(j.Checkpoint.Dir))
	b.WriteString("mkdir -p \"$RUN_DIR\" \"$CKPT_DIR\"\n")
	if err := heredoc(&b, `"$RUN_DIR/`+CustomHelperModule+`"`, "HYPERCOMPUTE_HELPER_PY", customHelper); err != nil {
		return Script{}, err
	}
	if err := heredoc(&b, `"$RUN_DIR/`+customTask+`"`, "HYPERCOMPUTE_TASK_SH", customTaskScript); err != nil {
		return Script{}, err
	}
	program := c.Script
	if program == "" {
		program = "#!/bin/bash\n" + c.Command + "\n"
	}
	// base64: the program is the user's text, which no heredoc delimiter is
	// safe from, and may lack a final newline.
	fmt.Fprintf(&b, "base64 -d > \"$RUN_DIR/%[1]s.new\" <<'HYPERCOMPUTE_PROGRAM_B64' || exit 1\n%[2]s\nHYPERCOMPUTE_PROGRAM_B64\nchmod 0755 \"$RUN_DIR/%[1]s.new\" && mv -f \"$RUN_DIR/%[1]s.new\" \"$RUN_DIR/%[1]s\"\n",
		CustomProgram, wrap76(base64.StdEncoding.EncodeToString([]byte(program))))
	// A STOPPED file of an earlier run must not requeue this one.
	fmt.Fprintf(&b, "rm -f \"$RUN_DIR/%s\"\n", StoppedFile)
	if gpus > 0 {
		stack, ok := catalog.NICStackInfo(m.NICStack)
		if !ok {
			return Script{}, fmt.Errorf("profile %s: NIC stack %q is not in the catalog", j.Profile, m.NICStack)
		}
		fmt.Fprintf(&b, "# NCCL environment of the %s NIC stack (%s), from the machine catalog.\n", m.NICStack, m.Name)
		b.WriteString(stack.NCCLEnvScript)
	}
	b.WriteString(masterAddr)
	envExports(&b, j.Env)
	envExports(&b, customEnv(j))
	container := ""
	if j.ContainerImage != "" {
		containerImport(&b, j.ContainerImage)
		containerMounts(&b, m.NICStack)
		container = "  --container-image=\"$SQSH\" --container-mounts=\"$mounts\" --container-workdir=\"$RUN_DIR\" \\\n"
	}
	b.WriteString("echo \"hypercompute: $SLURM_JOB_NAME ($SLURM_JOB_ID, restart ${SLURM_RESTART_COUNT:-0}) on $SLURM_JOB_NODELIST, master $MASTER_ADDR:$MASTER_PORT\"\n")
	b.WriteString("launch_step() {\n")
	fmt.Fprintf(&b, "srun --kill-on-bad-exit=1 --nodes=%d --ntasks-per-node=%d \\\n", j.Nodes, j.TasksPerNode)
	b.WriteString(container)
	fmt.Fprintf(&b, "  bash \"$RUN_DIR/%s\" \"$RUN_DIR/%s\" &\n}\n", customTask, CustomProgram)
	// The program checkpoints on USR1 and leaves STOPPED (the helper's
	// done()), which requeues the job.
	stepLoop(&b, j, "USR1", fmt.Sprintf(`[ -f "$RUN_DIR/%s" ]`, StoppedFile))
	return Script{Body: b.String(), Sbatch: flags, NeedsBatchSignal: true, MakeDirs: []string{j.RunDir}}, nil
}

func wrap76(s string) string {
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	b.WriteString(s)
	return b.String()
}
