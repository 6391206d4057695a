package recipes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRenderedScriptsParse: bash accepts every rendered script.
func TestRenderedScriptsParse(t *testing.T) {
	for _, r := range List() {
		j := goldenJob(r)
		if !r.GPU() {
			j = testCPUJob("tiny", "/tmp/x", 10)
			j.Size, j.Mode = r.Size, r.Mode
			if r.NeedsResumeFrom {
				j.Checkpoint.ResumeFrom = "/tmp/base"
			}
		}
		s, err := Render(j)
		if err != nil {
			t.Fatalf("%s: %v", r.Key(), err)
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(s.Body)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: bash -n: %v: %s", r.Key(), err, out)
		}
	}
}

// stub writes an executable shell script into dir.
func stub(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestGPUScriptRunsWithStubs runs a rendered GPU script with stand-ins for
// scontrol, enroot, srun and the launcher: the container is imported once
// under its enroot URI, srun gets the pyxis flags and mounts, each task
// sees RANK/WORLD_SIZE/LOCAL_RANK/MASTER_ADDR, and a USR1 to the batch
// shell reaches the training step as TERM and requeues the job.
func TestGPUScriptRunsWithStubs(t *testing.T) {
	r, err := Lookup(ModelLlama31, "8b", ModePretrain, "a3-high")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin, log := filepath.Join(dir, "bin"), filepath.Join(dir, "calls.log")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	stub(t, bin, "scontrol", `echo "scontrol $*" >> "$CALLS"
case "$1 $2" in
"show hostnames") echo a3high-0; echo a3high-1 ;;
"-o show") echo "NodeName=a3high-0 NodeAddr=10.1.0.7 State=ALLOCATED" ;;
esac
`)
	stub(t, bin, "enroot", `echo "enroot $*" >> "$CALLS"; [ "$1" = import ] && touch "$3"`)
	// srun: record the options, then start the task command (after the
	// options) as rank 3 of 16, local rank 3, in the foreground.
	stub(t, bin, "srun", `echo "srun $*" >> "$CALLS"
trap 'echo "srun got TERM" >> "$CALLS"; kill -TERM $child; wait $child; exit 143' TERM
while [ $# -gt 0 ] && [ "$1" != bash ]; do shift; done
SLURM_PROCID=3 SLURM_NTASKS=16 SLURM_LOCALID=3 "$@" &
child=$!
wait $child
`)
	stub(t, bin, "python3", `echo "task RANK=$RANK WORLD_SIZE=$WORLD_SIZE LOCAL_RANK=$LOCAL_RANK MASTER_ADDR=$MASTER_ADDR MASTER_PORT=$MASTER_PORT args=$*" >> "$CALLS"
touch "$READY"
trap 'echo "task got TERM" >> "$CALLS"; exit 0' TERM
while :; do sleep 0.1; done
`)
	j := goldenJob(r)
	j.RunDir, j.Checkpoint.Dir = filepath.Join(dir, "run"), filepath.Join(dir, "ckpt")
	s, err := Render(j)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(script, []byte(s.Body), 0o755); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CALLS="+log, "READY="+ready,
		"SLURM_JOB_ID=4242", "SLURM_JOB_NODELIST=a3high-[0-1]", "SLURM_JOB_NAME=x",
		"HYPERCOMPUTE_ENROOT_CACHE="+filepath.Join(dir, "enroot"))
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := waitUntil(10*time.Second, "the task to start", func() bool { _, err := os.Stat(ready); return err == nil }); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("%v; output:\n%s", err, out)
	}
	_ = cmd.Process.Signal(syscall.SIGUSR1)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("script: %v; output:\n%s", err, out)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the script did not end after USR1; output:\n%s", out)
	}
	calls, _ := os.ReadFile(log)
	c := string(calls)
	for _, w := range []string{
		"enroot import --output " + filepath.Join(dir, "enroot", "nvcr.io+nvidia+nemo+25.11.sqsh.part") + " docker://nvcr.io#nvidia/nemo:25.11",
		"--container-image=" + filepath.Join(dir, "enroot", "nvcr.io+nvidia+nemo+25.11.sqsh"),
		"--container-mounts=" + j.Checkpoint.Dir + ":" + j.Checkpoint.Dir + "," + j.RunDir + ":" + j.RunDir + ",/home:/home",
		"/var/lib/tcpx:/var/lib/tcpx,/run/tcpx:/run/tcpx",
		"task RANK=3 WORLD_SIZE=16 LOCAL_RANK=3 MASTER_ADDR=10.1.0.7 MASTER_PORT=24242",
		"--num_gpus 8 --gpus_per_node 8 --compute_dtype bf16",
		"task got TERM",
		"scontrol requeue 4242",
	} {
		if !strings.Contains(c, w) {
			t.Errorf("calls lack %q:\n%s\noutput:\n%s", w, c, out)
		}
	}
}
