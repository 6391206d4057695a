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

// signalForwarding runs the srun step in the background and forwards the
// batch-only signals to it. Slurm delivers --signal=B:USR1@N to this shell
// only; bash runs a trap only between commands, so srun must not run in the
// foreground. forward is the signal the step's program checkpoints on
// (USR1 for the CPU trainer, TERM for Megatron's exit signal handler).
// SIGTERM (scancel, scontrol requeue) is forwarded too: the tasks get it
// from slurmstepd anyway, and forwarding keeps this shell alive until they
// checkpointed. A run stopped after a USR1 requeues itself (time limit,
// preemption notice); one stopped by TERM is already being requeued or
// cancelled by Slurm. requeueWhen is the shell test for "stopped early".
func signalForwarding(b *strings.Builder, forward, requeueWhen string) {
	fmt.Fprintf(b, `step_pid=$!
stop_signal=""
trap 'stop_signal=USR1; kill -%[1]s "$step_pid" 2>/dev/null' USR1
trap 'stop_signal=TERM; kill -TERM "$step_pid" 2>/dev/null' TERM
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
exit "$rc"
`, forward, requeueWhen)
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
