package recipes

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Render turns a resolved Job into its batch script. It validates the Job
// first (Validate), so what it returns is what sbatch gets.
func Render(j Job) (Script, error) {
	r, err := Validate(j)
	if err != nil {
		return Script{}, fmt.Errorf("recipe job %s: %w", j.Name, err)
	}
	if j.Custom != nil {
		return renderCustom(j)
	}
	hp, _ := ResolveHyperparameters(r, j.Hyperparameters)
	if r.GPU() {
		return renderGPU(j, r, hp)
	}
	return renderCPU(j, r, hp)
}

// tasksPerNode is one task per GPU (the catalog's GPUs per VM of the
// profile), one on CPU.
func tasksPerNode(r Recipe) (int, error) {
	if !r.GPU() {
		return 1, nil
	}
	return catalog.ProfileGPUsPerNode(r.Profile)
}

// sbatchFlags are the submission flags every recipe job carries. Requeued
// runs append to the same log (--open-mode=append) so one file tells the
// whole story of a job across restarts.
func sbatchFlags(j Job, gpusPerNode int) []string {
	f := []string{
		"--job-name=" + j.Name,
		"--partition=" + j.Partition,
		fmt.Sprintf("--nodes=%d", j.Nodes),
		fmt.Sprintf("--ntasks-per-node=%d", j.TasksPerNode),
	}
	if gpusPerNode > 0 {
		f = append(f, fmt.Sprintf("--gpus-per-node=%d", gpusPerNode), "--exclusive")
	}
	f = append(f,
		"--requeue",
		fmt.Sprintf("--signal=B:USR1@%d", j.SignalLead),
		"--open-mode=append",
		// The run directory is the job's working directory, so sacct's
		// WorkDir leads any reader (the login node's goodput command) to
		// its progress file.
		"--chdir="+j.RunDir,
		"--output="+j.RunDir+"/slurm-%j.out",
	)
	if j.TimeLimit > 0 {
		f = append(f, fmt.Sprintf("--time=%d", j.TimeLimit))
	}
	return f
}

func scriptHead(b *strings.Builder, j Job, r Recipe, flags []string) {
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(b, "# hypercompute recipe job %s: %s (generation %s)\n", j.Name, r.Key(), j.Generation)
	for _, f := range flags {
		b.WriteString("#SBATCH " + f + "\n")
	}
	// No `set -u`: the NIC stacks' env scripts extend variables that may be
	// unset (${LD_LIBRARY_PATH}).
	b.WriteString("set -o pipefail\n")
}

// envExports writes the job's extra environment, sorted, quoted.
func envExports(b *strings.Builder, env map[string]string) {
	for _, k := range sortedKeys(env) {
		fmt.Fprintf(b, "export %s=%s\n", k, shq(env[k]))
	}
}

// masterAddr resolves the first node of the allocation to an address every
// task can reach: the node's NodeAddr (which is its name unless the
// configuration says otherwise), so a node name that is not in DNS still
// works.
const masterAddr = `first_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
first_addr=$(scontrol -o show node "$first_node" | tr ' ' '\n' | sed -n 's/^NodeAddr=//p')
export MASTER_ADDR=${first_addr:-$first_node}
# One port per job id: a requeued run (same id) reuses it, two jobs sharing a
# node do not collide.
export MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000))
`

// stepLoop runs the training step (launch_step, which the script defines and
// which starts srun in the background) and forwards the batch-only signals to
// it. Slurm delivers --signal=B:USR1@N to this shell only; bash runs a trap
// only between commands, so srun must not run in the foreground. forward is
// the signal the step's program checkpoints on (USR1 for the CPU trainer,
// TERM for Megatron's exit signal handler). SIGTERM (scancel, scontrol
// requeue) is forwarded too: the tasks get it from slurmstepd anyway, and
// forwarding keeps this shell alive until they checkpointed. A run stopped
// after a USR1 requeues itself (time limit, preemption notice: requeueWhen is
// the shell test for "stopped early"); one stopped by TERM is already being
// requeued or cancelled by Slurm, and is never restarted here. A step that failed on its own is
// restarted in the same allocation by the job's RestartPolicy when it made
// progress since it started: a checkpoint newer than the attempt, or a step
// counter the Progress file advanced.
func stepLoop(b *strings.Builder, j Job, forward, requeueWhen string) {
	fmt.Fprintf(b, `max_restarts=%[3]d
delay=%[4]d
restarts=0
stop_signal=""
step_pid=""
trap 'stop_signal=USR1; [ -n "$step_pid" ] && kill -%[1]s "$step_pid" 2>/dev/null' USR1
trap 'stop_signal=TERM; [ -n "$step_pid" ] && kill -TERM "$step_pid" 2>/dev/null' TERM
progress_step() { sed -n 's/^ *"step": *\([0-9]*\).*/\1/p' "$RUN_DIR/%[5]s" 2>/dev/null | head -n 1; }
while :; do
  touch "$RUN_DIR/.attempt-start"
  step_before=$(progress_step)
  launch_step
  step_pid=$!
  rc=0
  while :; do
    wait "$step_pid"; rc=$?
    # wait returns >128 when a trapped signal interrupted it: keep waiting
    # while the step lives, then take its real status.
    if [ "$rc" -gt 128 ] && kill -0 "$step_pid" 2>/dev/null; then continue; fi
    break
  done
  if [ "$rc" -gt 128 ]; then wait "$step_pid" 2>/dev/null; r=$?; [ "$r" -ne 127 ] && rc=$r; fi
  if %[2]s && [ "$stop_signal" != TERM ]; then
    echo "hypercompute: step stopped after a checkpoint (signal ${stop_signal:-to the tasks}); requeueing job $SLURM_JOB_ID"
    scontrol requeue "$SLURM_JOB_ID"
    exit 0
  fi
  if [ "$rc" -eq 0 ] || [ -n "$stop_signal" ]; then exit "$rc"; fi
  step_after=$(progress_step)
  if [ -z "$(find %[6]s -newer "$RUN_DIR/.attempt-start" -print -quit 2>/dev/null)" ] && [ "${step_after:-0}" -le "${step_before:-0}" ]; then
    echo "hypercompute: training step failed (exit $rc) with no progress since it started: not restarting"
    exit "$rc"
  fi
  if [ "$restarts" -ge "$max_restarts" ]; then
    echo "hypercompute: training step failed (exit $rc); giving up after $restarts of $max_restarts automatic restarts"
    exit "$rc"
  fi
  restarts=$((restarts + 1))
  printf '{"time":"%%s","job_id":"%%s","attempt":%%d,"exit_code":%%d,"step":%%d}\n' "$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)" "$SLURM_JOB_ID" "$restarts" "$rc" "${step_after:-0}" >> "$RUN_DIR/%[7]s"
  echo "hypercompute: training step failed (exit $rc) after progress (step ${step_after:-?}); automatic restart $restarts of $max_restarts in ${delay}s"
  sleep "$delay" & step_pid=$!; wait "$step_pid"; step_pid=""
  [ -n "$stop_signal" ] && exit "$rc"
  delay=$((delay * 2))
done
`, forward, requeueWhen, j.Restart.MaxRestarts, j.Restart.BackoffSeconds, ProgressFile, shq(j.Checkpoint.Dir), RestartsFile)
}

// heredoc writes content to path from the script itself (written to a
// temporary name and renamed, so a half-written file is never run). The
// delimiter is checked not to occur in the content.
func heredoc(b *strings.Builder, path, delim, content string) error {
	for _, line := range strings.Split(content, "\n") {
		if line == delim {
			return fmt.Errorf("recipes: heredoc delimiter %s occurs in %s", delim, path)
		}
	}
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	fmt.Fprintf(b, "cat > %s.new <<'%s'\n%s%s\nmv -f %s.new %s\n", path, delim, content, delim, path, path)
	return nil
}

func marshalIndent(v any) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic("recipes: " + err.Error())
	}
	return string(data)
}
