package recipes

import (
	"encoding/base64"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// customJob is a custom job on the CPU profile running command.
func customJob(command string) Job {
	return Job{
		Schema: 1, Name: "regress", Cluster: "test", Partition: "cpu", Profile: ProfileCPU,
		Nodes: 2, TasksPerNode: 1, MaxSteps: 300,
		Checkpoint: Checkpoint{Dir: "/home/checkpoints/regress", IntervalSeconds: 30, KeepLast: 2},
		RunDir:     "/home/.hypercompute/jobs/regress", TensorBoardDir: "/home/.hypercompute/jobs/regress/tensorboard",
		SignalLead: 120, TimeLimit: 60, Generation: "g1",
		Env:    map[string]string{"DATA": "/home/data"},
		Custom: &Custom{Command: command},
	}
}

// programOf is the program a custom job's batch script writes (base64 in the script).
func programOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<<'HYPERCOMPUTE_PROGRAM_B64' \|\| exit 1\n(.*?)\nHYPERCOMPUTE_PROGRAM_B64\n`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no program in the script:\n%s", body)
	}
	got, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(m[1], "\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// The custom job's own checks name the field that is wrong.
func TestValidateCustom(t *testing.T) {
	gpu := func(f func(*Job)) Job {
		j := customJob("python3 train.py")
		j.Profile, j.TasksPerNode, j.Custom.GPUsPerNode = "a3-high", 8, 8
		f(&j)
		return j
	}
	cpu := func(f func(*Job)) Job {
		j := customJob("python3 train.py")
		f(&j)
		return j
	}
	for _, tc := range []struct {
		name string
		job  Job
		want string
	}{
		{"both command and script", cpu(func(j *Job) { j.Custom.Script = "#!/bin/sh\ntrue\n" }), `^custom: set exactly one of command and script`},
		{"neither", cpu(func(j *Job) { j.Custom.Command = "" }), `^custom: set exactly one of command and script`},
		{"script without #!", cpu(func(j *Job) { j.Custom.Command, j.Custom.Script = "", "import torch\n" }), `^custom\.script must start with a #! line`},
		{"too long", cpu(func(j *Job) { j.Custom.Command = strings.Repeat("x", MaxCustomProgramBytes+1) }), `^custom\.command is 196609 bytes`},
		{"GPUs on a CPU partition", cpu(func(j *Job) { j.Custom.GPUsPerNode, j.TasksPerNode = 1, 1 }), `^custom\.gpus_per_node = 1: the partition's machine type has no GPUs`},
		{"container on CPU", cpu(func(j *Job) { j.ContainerImage = "nvcr.io/nvidia/pytorch:24.12-py3" }), `^custom\.container_image: containers run with enroot and pyxis`},
		{"a variable the launch sets", cpu(func(j *Job) { j.Env = map[string]string{EnvCheckpointDir: "/tmp"} }), `^env: HYPERCOMPUTE_CHECKPOINT_DIR is set by the job's launch`},
		{"a rank variable", cpu(func(j *Job) { j.Env = map[string]string{"RANK": "0"} }), `^env: RANK is set by the job's launch`},
		{"a bad variable name", cpu(func(j *Job) { j.Env = map[string]string{"1X": "0"} }), `^env: "1X" is not a valid environment variable name`},
		{"a catalog recipe's hyperparameters", cpu(func(j *Job) { j.Hyperparameters = map[string]string{"lr": "1"} }), `^custom: hyperparameters and precision`},
		{"tasks not one per GPU", gpu(func(j *Job) { j.TasksPerNode = 1 }), `^tasks_per_node = 1: a custom job runs one task per GPU it asks for \(8\)`},
		{"a signal lead past the time limit", cpu(func(j *Job) { j.TimeLimit = 2 }), `^signal_lead = 120 s must be shorter than time_limit = 2 min`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Validate(tc.job)
			if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Fatalf("Validate: %v, want %s", err, tc.want)
			}
		})
	}
	for _, j := range []Job{cpu(func(*Job) {}), gpu(func(j *Job) { j.ContainerImage = "nvcr.io/nvidia/pytorch:24.12-py3" }),
		cpu(func(j *Job) { j.MaxSteps = 0; j.Custom.Command, j.Custom.Script = "", "#!/usr/bin/python3\nprint(1)" })} {
		if _, err := Validate(j); err != nil {
			t.Errorf("a valid custom job is refused: %v", err)
		}
	}
}

// The custom job's batch script carries the recipes' guarantees: --requeue and USR1 before the
// time limit, the step loop that forwards USR1 and requeues after a checkpointed stop, the
// restart policy; it exports the checkpoint directory and the job's settings to the program,
// ships the helper module, and runs the user's program byte for byte.
func TestRenderCustom(t *testing.T) {
	script := "#!/usr/bin/python3\n# a line a heredoc would end on:\nHYPERCOMPUTE_PROGRAM_B64\nprint('it''s')"
	j := customJob("")
	j.Custom.Command, j.Custom.Script = "", script
	s, err := Render(j)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#SBATCH --requeue\n", "#SBATCH --signal=B:USR1@120\n", "#SBATCH --time=60\n", "#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=1\n",
		"trap 'stop_signal=USR1; [ -n \"$step_pid\" ] && kill -USR1 \"$step_pid\" 2>/dev/null' USR1\n",
		`if [ -f "$RUN_DIR/STOPPED" ] && [ "$stop_signal" != TERM ]; then`,
		"export HYPERCOMPUTE_CHECKPOINT_DIR='/home/checkpoints/regress'\n",
		"export HYPERCOMPUTE_CHECKPOINT_INTERVAL_SECONDS='30'\n",
		"export HYPERCOMPUTE_KEEP_LAST='2'\n", "export HYPERCOMPUTE_MAX_STEPS='300'\n", "export DATA='/home/data'\n",
		`cat > "$RUN_DIR/hypercompute.py".new <<'HYPERCOMPUTE_HELPER_PY'`,
		"srun --kill-on-bad-exit=1 --nodes=2 --ntasks-per-node=1 \\\n  bash \"$RUN_DIR/hypercompute-task.sh\" \"$RUN_DIR/program\" &\n",
	} {
		if !strings.Contains(s.Body, want) {
			t.Errorf("the script lacks %q:\n%s", want, s.Body)
		}
	}
	if strings.Contains(s.Body, "--gpus-per-node") || strings.Contains(s.Body, "container-image") || !s.NeedsBatchSignal {
		t.Errorf("a CPU job asks for GPUs or a container, or may go through slurmrestd:\n%s", s.Body)
	}
	if got := programOf(t, s.Body); got != script {
		t.Errorf("the program the script writes is %q, want %q", got, script)
	}
	if out, err := exec.Command("bash", "-n", "-c", s.Body).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v: %s", err, out)
	}

	// A command on GPUs in a container: one task per GPU, the pyxis options on srun, the NIC
	// stack's NCCL environment, the catalog's peak for MFU.
	g := customJob("torchrun --nproc-per-node=1 train.py")
	g.Profile, g.TasksPerNode, g.ContainerImage = "a3-mega", 8, "nvcr.io/nvidia/pytorch:24.12-py3"
	g.Custom.GPUsPerNode, g.Custom.FLOPsPerStep, g.Custom.PeakTFLOPS = 8, 1e15, 15824
	s, err = Render(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#SBATCH --gpus-per-node=8\n", "#SBATCH --exclusive\n", "#SBATCH --ntasks-per-node=8\n",
		`--container-image="$SQSH" --container-mounts="$mounts" --container-workdir="$RUN_DIR"`,
		"IMAGE='docker://nvcr.io#nvidia/pytorch:24.12-py3'\n", "NCCL_", "export HYPERCOMPUTE_FLOPS_PER_STEP='1e+15'\n",
		"export HYPERCOMPUTE_PEAK_TFLOPS='15824'\n",
	} {
		if !strings.Contains(s.Body, want) {
			t.Errorf("the GPU script lacks %q", want)
		}
	}
	if got := programOf(t, s.Body); got != "#!/bin/bash\ntorchrun --nproc-per-node=1 train.py\n" {
		t.Errorf("the command's program is %q", got)
	}
}
