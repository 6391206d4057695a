package recipes

import (
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// stackMounts are the host directories the NCCL network plugin of each NIC
// stack lives in; the catalog's NCCL env script points LD_LIBRARY_PATH and
// the plugin's sockets there, so the container must see them at the same
// paths (as Google's gpu-recipes mount them into their NeMo containers).
var stackMounts = map[catalog.NICStack][]string{
	catalog.NICTCPX:  {"/var/lib/tcpx", "/run/tcpx"},
	catalog.NICTCPXO: {"/var/lib/tcpxo", "/dev/aperture_devices"},
	catalog.NICRDMA:  {"/usr/local/gib"},
}

// enrootCache holds imported container images on the cluster's shared
// /home, so each image is imported once per cluster, not once per job;
// HYPERCOMPUTE_ENROOT_CACHE in the job's environment moves it.
const enrootCache = "${HYPERCOMPUTE_ENROOT_CACHE:-/home/.hypercompute/enroot}"

// megatronRecipeNames: the Megatron-Bridge performance recipe of each size.
var megatronRecipeNames = map[string]string{
	"8b": "llama3_8b", "70b": "llama3_70b", "405b": "llama31_405b",
}

// profileMachine is the catalog machine type of a GPU profile.
func profileMachine(profile string) (catalog.MachineType, error) {
	for _, m := range catalog.Machines() {
		if m.Profile == profile && m.HasGPU() {
			return m, nil
		}
	}
	return catalog.MachineType{}, fmt.Errorf("profile %q has no GPU machine type in the catalog", profile)
}

// enrootURI turns registry/repo:tag into enroot's docker://registry#repo:tag.
func enrootURI(image string) string {
	if host, rest, ok := strings.Cut(image, "/"); ok && strings.ContainsAny(host, ".:") {
		return "docker://" + host + "#" + rest
	}
	return "docker://" + image
}

func squashName(image string) string {
	return strings.NewReplacer("/", "+", ":", "+", "#", "+").Replace(image) + ".sqsh"
}

func renderGPU(j Job, r Recipe, hp map[string]string) (Script, error) {
	m, err := profileMachine(r.Profile)
	if err != nil {
		return Script{}, err
	}
	stack, ok := catalog.NICStackInfo(m.NICStack)
	if !ok {
		return Script{}, fmt.Errorf("profile %s: NIC stack %q is not in the catalog", r.Profile, m.NICStack)
	}
	gpus := m.GPUCount()
	if err := checkParallelism(r, hp, j.Nodes*gpus); err != nil {
		return Script{}, err
	}
	image := r.Container
	if j.ContainerImage != "" {
		image = j.ContainerImage
	}
	flags := sbatchFlags(j, gpus)
	var b strings.Builder
	scriptHead(&b, j, r, flags)
	fmt.Fprintf(&b, "RUN_DIR=%s\nCKPT_DIR=%s\n", shq(j.RunDir), shq(j.Checkpoint.Dir))
	b.WriteString("mkdir -p \"$RUN_DIR\" \"$CKPT_DIR\"\n")
	fmt.Fprintf(&b, "# NCCL environment of the %s NIC stack (%s), from the machine catalog.\n", m.NICStack, m.Name)
	b.WriteString(stack.NCCLEnvScript)
	b.WriteString(masterAddr)
	envExports(&b, j.Env)

	containerImport(&b, image)
	containerMounts(&b, m.NICStack)
	b.WriteString("echo \"hypercompute: $SLURM_JOB_NAME ($SLURM_JOB_ID, restart ${SLURM_RESTART_COUNT:-0}) on $SLURM_JOB_NODELIST, master $MASTER_ADDR:$MASTER_PORT\"\n")
	precision := r.Precision
	if j.Precision != "" {
		precision = j.Precision
	}
	save, why, err := checkpointSteps(j, r, hp, precision)
	if err != nil {
		return Script{}, err
	}
	fmt.Fprintf(&b, "# Checkpoint every %d steps: %s.\n", save, why)
	// NeMo-RL runs on Ray: one task per VM starts a Ray node (ray_launch.sh),
	// the driver runs on the first. The others start one task per GPU.
	tasks := gpus
	if r.Launcher == launcherNeMoRL {
		tasks = 1
		if err := heredoc(&b, `"$RUN_DIR/ray_launch.sh"`, "HYPERCOMPUTE_RAY_LAUNCH", rayLaunch); err != nil {
			return Script{}, err
		}
	}
	// The pyxis --container-* options are srun options inside the script
	// body, not #SBATCH lines: sbatch without the pyxis plugin (and
	// `sbatch --test-only` anywhere) rejects unknown #SBATCH options, while
	// srun lines are only parsed where the step runs, on nodes that have
	// pyxis.
	b.WriteString("launch_step() {\n")
	fmt.Fprintf(&b, "srun --kill-on-bad-exit=1 --nodes=%d --ntasks-per-node=%d \\\n", j.Nodes, tasks)
	b.WriteString("  --container-image=\"$SQSH\" --container-mounts=\"$mounts\" --container-workdir=" + containerWorkdir(r) + " \\\n")
	b.WriteString("  bash -c 'export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID; exec \"$@\"' launch \\\n")
	for i, arg := range launchArgs(j, r, m, hp, gpus, precision, save) {
		indent := "    "
		if i == 0 {
			indent = "  "
		}
		b.WriteString(indent + arg + " \\\n")
	}
	b.WriteString("  &\n}\n")
	// Megatron and NeMo save a checkpoint and exit on SIGTERM (the exit
	// signal handler), so USR1 is forwarded as TERM; any stop after a USR1
	// requeues. NeMo-RL has no such handler: it saves every save_period
	// steps and, before the time limit, by checkpoint_must_save_by; a TERM
	// loses the steps since its last save.
	stepLoop(&b, j, "TERM", `[ "$stop_signal" = USR1 ]`)
	return Script{Body: b.String(), Sbatch: flags, NeedsBatchSignal: true, MakeDirs: []string{j.RunDir}}, nil
}

// containerImport imports the image once into the shared cache (flock: two
// jobs starting together import it once) and leaves its path in $SQSH.
func containerImport(b *strings.Builder, image string) {
	fmt.Fprintf(b, "IMAGE=%s\nSQSH=%s/%s\n", shq(enrootURI(image)), enrootCache, squashName(image))
	b.WriteString(`mkdir -p "$(dirname "$SQSH")"
flock "$SQSH.lock" bash -c '[ -f "$1" ] || enroot import --output "$1.part" "$2" && mv -f "$1.part" "$1"' _ "$SQSH" "$IMAGE" || { echo "enroot import of $IMAGE failed" >&2; exit 1; }
`)
}

// containerMounts sets $mounts: the checkpoint and run directories, /home,
// /lustre where the cluster has it, and the NIC stack's plugin directories.
func containerMounts(b *strings.Builder, stack catalog.NICStack) {
	b.WriteString(`mounts="$CKPT_DIR:$CKPT_DIR,$RUN_DIR:$RUN_DIR,/home:/home"
[ -d /lustre ] && mounts="$mounts,/lustre:/lustre"
`)
	for _, p := range stackMounts[stack] {
		fmt.Fprintf(b, "mounts=\"$mounts,%s:%s\"\n", p, p)
	}
}

func containerWorkdir(r Recipe) string {
	switch r.Launcher {
	case launcherMegatronBridge:
		return "/opt/Megatron-Bridge"
	case launcherNeMoRL:
		return "/opt/nemo-rl"
	}
	return "/workspace"
}

// rayLaunch runs as the one task per VM of a NeMo-RL job: the first task
// starts the Ray head, waits for every VM's Ray node, runs the driver (its
// arguments) and then writes a done file; the others join the head and
// leave when the done file appears or the head is gone.
const rayLaunch = `#!/bin/bash
set -o pipefail
gpus=${SLURM_GPUS_ON_NODE:-$(nvidia-smi -L | wc -l)}
done_file="$(dirname "$0")/ray-done-$SLURM_JOB_ID-${SLURM_RESTART_COUNT:-0}"
if [ "$SLURM_PROCID" = 0 ]; then
  ray start --head --node-ip-address="$MASTER_ADDR" --port="$MASTER_PORT" --num-gpus="$gpus" || exit 1
  until [ "$(ray list nodes --filter state=ALIVE 2>/dev/null | grep -c ALIVE)" -ge "$SLURM_NNODES" ]; do sleep 5; done
  "$@"; rc=$?
  touch "$done_file"
  ray stop
  exit "$rc"
fi
ray start --address="$MASTER_ADDR:$MASTER_PORT" --num-gpus="$gpus" || exit 1
while [ ! -e "$done_file" ] && ray status --address="$MASTER_ADDR:$MASTER_PORT" >/dev/null 2>&1; do sleep 10; done
ray stop
`

// nemoRLConfigs: NeMo-RL's GRPO config (Megatron backend) of each size,
// and the Hugging Face model it starts from.
var nemoRLConfigs = map[string][2]string{
	"8b":  {"examples/configs/grpo_math_8B_megatron.yaml", "meta-llama/Llama-3.1-8B-Instruct"},
	"70b": {"examples/configs/grpo_math_70B_megatron.yaml", "meta-llama/Llama-3.1-70B-Instruct"},
}

// mustSaveBy is NeMo-RL's checkpoint_must_save_by (DD:HH:MM:SS of the
// run's wall time): the time limit less the signal lead.
func mustSaveBy(j Job) string {
	s := j.TimeLimit*60 - j.SignalLead
	return fmt.Sprintf("%02d:%02d:%02d:%02d", s/86400, s%86400/3600, s%3600/60, s%60)
}

// checkParallelism: TP·PP·CP must divide the job's GPUs, and the global
// batch must split into micro-batches over the data-parallel ranks.
func checkParallelism(r Recipe, hp map[string]string, gpus int) error {
	model := r.TensorParallel * r.PipelineParallel * r.ContextParallel
	if model < 1 || gpus%model != 0 {
		return fmt.Errorf("nodes: %d GPUs do not divide into TP %d × PP %d × CP %d of recipe %s", gpus, r.TensorParallel, r.PipelineParallel, r.ContextParallel, r.Key())
	}
	dp := gpus / model
	mbs, gbs := atoiMust(hp["micro_batch"]), atoiMust(hp["global_batch"])
	if gbs%(mbs*dp) != 0 {
		return fmt.Errorf("hyperparameters: global_batch %d is not a multiple of micro_batch %d × %d data-parallel ranks", gbs, mbs, dp)
	}
	return nil
}

// launchArgs is the training command each task runs inside the container.
func launchArgs(j Job, r Recipe, m catalog.MachineType, hp map[string]string, gpusPerNode int, precision string, saveSteps int) []string {
	keep, save := j.Checkpoint.KeepLast, itoa(saveSteps)
	if r.Launcher == launcherNeMoRL {
		cfg := nemoRLConfigs[r.Size]
		model := cfg[1]
		if j.Checkpoint.ResumeFrom != "" {
			model = j.Checkpoint.ResumeFrom
		}
		args := []string{
			`bash "$RUN_DIR/ray_launch.sh"`,
			"uv run python examples/run_grpo_math.py",
			"--config " + cfg[0],
			fmt.Sprintf("cluster.num_nodes=%d", j.Nodes),
			fmt.Sprintf("cluster.gpus_per_node=%d", gpusPerNode),
			"policy.model_name=" + shq(model),
			fmt.Sprintf("grpo.max_num_steps=%d", j.MaxSteps),
			"grpo.num_prompts_per_step=" + hp["num_prompts_per_step"],
			"grpo.num_generations_per_prompt=" + hp["num_generations_per_prompt"],
			"policy.train_global_batch_size=" + hp["global_batch"],
			"policy.train_micro_batch_size=" + hp["micro_batch"],
			"policy.max_total_sequence_length=" + hp["seq_length"],
			fmt.Sprintf("policy.megatron_cfg.tensor_model_parallel_size=%d", r.TensorParallel),
			fmt.Sprintf("policy.megatron_cfg.pipeline_model_parallel_size=%d", r.PipelineParallel),
			fmt.Sprintf("policy.megatron_cfg.context_parallel_size=%d", r.ContextParallel),
			"policy.megatron_cfg.optimizer.lr=" + hp["learning_rate"],
			"policy.megatron_cfg.optimizer.min_lr=" + hp["min_learning_rate"],
			"policy.megatron_cfg.scheduler.lr_warmup_iters=" + hp["warmup_steps"],
			"checkpointing.enabled=true",
			"checkpointing.checkpoint_dir=" + shq(j.Checkpoint.Dir),
			"checkpointing.save_period=" + save,
			fmt.Sprintf("checkpointing.keep_top_k=%d", keep),
			"logger.log_dir=" + shq(tensorboardDir(j)),
			"logger.tensorboard_enabled=true",
		}
		if j.TimeLimit > 0 {
			args = append(args, "checkpointing.checkpoint_must_save_by="+mustSaveBy(j))
		}
		return args
	}
	if r.Launcher == launcherNeMo2 {
		verb, factory := "pretrain", r.Model+"_"+r.Size
		if r.Mode == ModeSFT {
			verb, factory = "finetune", fmt.Sprintf("%s(peft_scheme='none')", factory)
		}
		args := []string{
			"nemo llm " + verb, "--factory " + shq(factory), "-y",
			fmt.Sprintf("trainer.num_nodes=%d", j.Nodes),
			fmt.Sprintf("trainer.devices=%d", gpusPerNode),
			fmt.Sprintf("trainer.max_steps=%d", j.MaxSteps),
			fmt.Sprintf("trainer.strategy.tensor_model_parallel_size=%d", r.TensorParallel),
			fmt.Sprintf("trainer.strategy.pipeline_model_parallel_size=%d", r.PipelineParallel),
			fmt.Sprintf("trainer.strategy.context_parallel_size=%d", r.ContextParallel),
			"data.micro_batch_size=" + hp["micro_batch"],
			"data.global_batch_size=" + hp["global_batch"],
			"data.seq_length=" + hp["seq_length"],
			"optim.config.lr=" + hp["learning_rate"],
			"optim.lr_scheduler.min_lr=" + hp["min_learning_rate"],
			"optim.lr_scheduler.warmup_steps=" + hp["warmup_steps"],
			"log.log_dir=" + shq(j.RunDir),
			"log.ckpt.dirpath=" + shq(j.Checkpoint.Dir),
			fmt.Sprintf("log.ckpt.save_top_k=%d", keep),
			"log.ckpt.every_n_train_steps=" + save,
			"resume.resume_if_exists=true", "resume.resume_ignore_no_checkpoint=true",
		}
		if j.Checkpoint.ResumeFrom != "" {
			args = append(args, "resume.restore_config.path="+shq(j.Checkpoint.ResumeFrom))
		}
		return args
	}
	dtype := "bf16"
	if precision == catalog.PrecisionFP8 {
		dtype = "fp8_cs"
	}
	args := []string{
		"python3 scripts/performance/run_script.py",
		"--model_family_name llama",
		"--model_recipe_name " + megatronRecipeNames[r.Size],
		"--gpu " + m.GPU.SlurmType,
		fmt.Sprintf("--num_gpus %d", j.Nodes*gpusPerNode),
		fmt.Sprintf("--gpus_per_node %d", gpusPerNode),
		"--compute_dtype " + dtype,
		"--seq_length " + hp["seq_length"],
		"--global_batch_size " + hp["global_batch"],
		"--micro_batch_size " + hp["micro_batch"],
		fmt.Sprintf("--tensor_model_parallel_size %d", r.TensorParallel),
		fmt.Sprintf("--pipeline_model_parallel_size %d", r.PipelineParallel),
		fmt.Sprintf("--context_parallel_size %d", r.ContextParallel),
	}
	if r.VirtualPipeline > 0 {
		args = append(args, fmt.Sprintf("--virtual_pipeline_model_parallel_size %d", r.VirtualPipeline))
	}
	if r.FSDP {
		args = append(args, "--use_megatron_fsdp true")
	}
	if r.Mode == ModeSFT {
		args = append(args, "--task sft")
	}
	args = append(args,
		fmt.Sprintf("--max_steps %d", j.MaxSteps),
		"optimizer.lr="+hp["learning_rate"],
		"optimizer.min_lr="+hp["min_learning_rate"],
		"scheduler.lr_warmup_iters="+hp["warmup_steps"],
		"checkpoint.save="+shq(j.Checkpoint.Dir),
		"checkpoint.load="+shq(j.Checkpoint.Dir),
		"checkpoint.save_interval="+save,
		fmt.Sprintf("checkpoint.most_recent_k=%d", keep),
		"train.exit_signal_handler=true",
		"logger.tensorboard_dir="+shq(tensorboardDir(j)),
	)
	if j.Checkpoint.ResumeFrom != "" {
		args = append(args, "checkpoint.pretrained_checkpoint="+shq(j.Checkpoint.ResumeFrom))
	}
	return args
}

func tensorboardDir(j Job) string {
	if j.TensorBoardDir != "" {
		return j.TensorBoardDir
	}
	return j.RunDir + "/tensorboard"
}
