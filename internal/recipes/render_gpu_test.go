package recipes

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenJob is the job every golden script renders: the recipe's defaults
// on a cluster with Lustre checkpoints.
func goldenJob(r Recipe) Job {
	tasks, _ := tasksPerNode(r)
	j := Job{
		Schema: 1, Name: "train-" + strings.ReplaceAll(r.Model+"-"+r.Size, ".", ""), Cluster: "ml-prod",
		Partition: "gpu-" + r.Profile, Model: r.Model, Size: r.Size, Mode: r.Mode, Profile: r.Profile,
		Nodes: r.Nodes, TasksPerNode: tasks, MaxSteps: 1000,
		Checkpoint: Checkpoint{Dir: "/lustre/checkpoints/run1", Auto: true, MTBFSeconds: 36000, CostSeconds: 60, KeepLast: 3},
		RunDir:     "/home/runs/run1", TensorBoardDir: "/lustre/tensorboard/run1",
		SignalLead: 300, TimeLimit: 1440, Generation: "g1",
		Env: map[string]string{"HF_HOME": "/lustre/hf"},
	}
	if r.NeedsResumeFrom {
		j.Checkpoint.ResumeFrom = "/lustre/checkpoints/base"
	}
	return j
}

func goldenName(r Recipe) string {
	return strings.ReplaceAll(r.Model, ".", "") + "-" + r.Size + "-" + r.Mode + "-" + r.Profile + ".sh"
}

// TestGPUScriptsGolden renders every GPU recipe and compares it with its
// golden file (go test -run TestGPUScriptsGolden -update rewrites them).
func TestGPUScriptsGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range List() {
		if !r.GPU() {
			continue
		}
		name := goldenName(r)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			s, err := Render(goldenJob(r))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(s.Body), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(want) != s.Body {
				t.Errorf("%s differs from its golden file; rerun with -update if the change is intended", name)
			}
		})
	}
	if !*update {
		files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.sh"))
		for _, f := range files {
			if !seen[filepath.Base(f)] {
				t.Errorf("golden file %s has no recipe any more", f)
			}
		}
	}
}

// TestGPUScriptContents checks, per recipe, what a reviewer of a script
// looks for: the NCCL environment of the profile's NIC stack, one task
// per GPU, the signal and requeue settings, the container and its mounts,
// the parallelism and the checkpoint settings.
func TestGPUScriptContents(t *testing.T) {
	for _, r := range List() {
		if !r.GPU() {
			continue
		}
		j := goldenJob(r)
		s, err := Render(j)
		if err != nil {
			t.Fatalf("%s: %v", r.Key(), err)
		}
		m, _ := profileMachine(r.Profile)
		stack, _ := catalog.NICStackInfo(m.NICStack)
		want := []string{
			stack.NCCLEnvScript,
			"#SBATCH --ntasks-per-node=" + itoa(m.GPUCount()) + "\n",
			"#SBATCH --gpus-per-node=" + itoa(m.GPUCount()) + "\n",
			"#SBATCH --exclusive\n", "#SBATCH --requeue\n", "#SBATCH --signal=B:USR1@300\n",
			"--container-image=\"$SQSH\"", "$CKPT_DIR:$CKPT_DIR", "/home:/home", "/lustre:/lustre",
			"export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID",
			"export MASTER_ADDR=", enrootURI(r.Container), "export HF_HOME='/lustre/hf'\n",
		}
		for _, p := range stackMounts[m.NICStack] {
			want = append(want, p+":"+p)
		}
		switch r.Launcher {
		case launcherNeMoRL:
			want = append(want, "policy.megatron_cfg.tensor_model_parallel_size="+itoa(r.TensorParallel)+" ",
				"policy.megatron_cfg.pipeline_model_parallel_size="+itoa(r.PipelineParallel)+" ",
				"checkpointing.enabled=true", "checkpointing.checkpoint_dir='/lustre/checkpoints/run1'",
				"checkpointing.keep_top_k=3", "checkpointing.checkpoint_must_save_by=00:23:55:00",
				"grpo.num_generations_per_prompt=32", `bash "$RUN_DIR/ray_launch.sh"`,
				"--ntasks-per-node=1 \\\n", "ray start --head")
		case launcherMegatronBridge:
			want = append(want, "--tensor_model_parallel_size "+itoa(r.TensorParallel)+" ",
				"--pipeline_model_parallel_size "+itoa(r.PipelineParallel)+" ",
				"--context_parallel_size "+itoa(r.ContextParallel)+" ",
				"--global_batch_size "+itoa(r.GlobalBatch)+" ", "checkpoint.save='/lustre/checkpoints/run1'",
				"checkpoint.most_recent_k=3", "train.exit_signal_handler=true")
			if r.Precision == "fp8" {
				want = append(want, "--compute_dtype fp8_cs")
			} else {
				want = append(want, "--compute_dtype bf16")
			}
		default:
			want = append(want, "trainer.strategy.tensor_model_parallel_size="+itoa(r.TensorParallel)+" ",
				"log.ckpt.save_top_k=3", "resume.resume_if_exists=true")
		}
		if r.NeedsResumeFrom {
			want = append(want, "/lustre/checkpoints/base")
		}
		for _, w := range want {
			if !strings.Contains(s.Body, w) {
				t.Errorf("%s: script lacks %q", r.Key(), w)
			}
		}
		for _, line := range strings.Split(s.Body, "\n") {
			if strings.HasPrefix(line, "#SBATCH --container") {
				t.Errorf("%s: pyxis option in an #SBATCH line: %s", r.Key(), line)
			}
		}
		if !s.NeedsBatchSignal {
			t.Errorf("%s: a B:USR1 signal needs sbatch", r.Key())
		}
	}
}

// TestGPUScriptsAcceptedBySbatch submits every rendered GPU script with
// `sbatch --test-only` to the GPU partition of its profile on a real
// slurmctld (cloud nodes shaped by the catalog; none needs to be up).
func TestGPUScriptsAcceptedBySbatch(t *testing.T) {
	s := needSlurm(t)
	dir := t.TempDir()
	for _, r := range List() {
		if !r.GPU() {
			continue
		}
		j := goldenJob(r)
		j.Partition = s.gpuPartitions[r.Profile]
		sc, err := Render(j)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, goldenName(r))
		if err := os.WriteFile(path, []byte(sc.Body), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("sbatch", "--test-only", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "to start at") {
			t.Errorf("%s: sbatch --test-only refused the script: %v: %s", r.Key(), err, out)
		}
	}
}
