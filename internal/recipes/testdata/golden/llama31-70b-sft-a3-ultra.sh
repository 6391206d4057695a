#!/bin/bash
# hypercompute recipe job train-llama31-70b: llama3.1/70b/sft@a3-ultra (generation g1)
#SBATCH --job-name=train-llama31-70b
#SBATCH --partition=gpu-a3-ultra
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#SBATCH --requeue
#SBATCH --signal=B:USR1@300
#SBATCH --open-mode=append
#SBATCH --chdir=/home/runs/run1
#SBATCH --output=/home/runs/run1/slurm-%j.out
#SBATCH --time=1440
set -o pipefail
RUN_DIR='/home/runs/run1'
CKPT_DIR='/lustre/checkpoints/run1'
mkdir -p "$RUN_DIR" "$CKPT_DIR"
# NCCL environment of the rdma NIC stack (a3-ultragpu-8g), from the machine catalog.
export LD_LIBRARY_PATH=/usr/local/gib/lib64:${LD_LIBRARY_PATH}
source /usr/local/gib/scripts/set_nccl_env.sh
first_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
first_addr=$(scontrol -o show node "$first_node" | tr ' ' '\n' | sed -n 's/^NodeAddr=//p')
export MASTER_ADDR=${first_addr:-$first_node}
# One port per job id: a requeued run (same id) reuses it, two jobs sharing a
# node do not collide.
export MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000))
export HF_HOME='/lustre/hf'
IMAGE='docker://nvcr.io#nvidia/nemo:25.11'
SQSH=${HYPERCOMPUTE_ENROOT_CACHE:-/home/.hypercompute/enroot}/nvcr.io+nvidia+nemo+25.11.sqsh
mkdir -p "$(dirname "$SQSH")"
flock "$SQSH.lock" bash -c '[ -f "$1" ] || enroot import --output "$1.part" "$2" && mv -f "$1.part" "$1"' _ "$SQSH" "$IMAGE" || { echo "enroot import of $IMAGE failed" >&2; exit 1; }
mounts="$CKPT_DIR:$CKPT_DIR,$RUN_DIR:$RUN_DIR,/home:/home"
[ -d /lustre ] && mounts="$mounts,/lustre:/lustre"
mounts="$mounts,/usr/local/gib:/usr/local/gib"
echo "hypercompute: $SLURM_JOB_NAME ($SLURM_JOB_ID, restart ${SLURM_RESTART_COUNT:-0}) on $SLURM_JOB_NODELIST, master $MASTER_ADDR:$MASTER_PORT"
# Checkpoint every 948 steps: auto: Young/Daly √(2 × C 60.0 s × M 36000 s) = 2078 s / expected step 2.19 s (6·N·tokens at 40% of peak fp8) = 948 steps.
launch_step() {
srun --kill-on-bad-exit=1 --nodes=4 --ntasks-per-node=8 \
  --container-image="$SQSH" --container-mounts="$mounts" --container-workdir=/opt/Megatron-Bridge \
  bash -c 'export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID; exec "$@"' launch \
  python3 scripts/performance/run_script.py \
    --model_family_name llama \
    --model_recipe_name llama3_70b \
    --gpu h200 \
    --num_gpus 32 \
    --gpus_per_node 8 \
    --compute_dtype fp8_cs \
    --seq_length 4096 \
    --global_batch_size 32 \
    --micro_batch_size 1 \
    --tensor_model_parallel_size 4 \
    --pipeline_model_parallel_size 4 \
    --context_parallel_size 1 \
    --virtual_pipeline_model_parallel_size 5 \
    --task sft \
    --max_steps 1000 \
    optimizer.lr=0.000005 \
    optimizer.min_lr=0 \
    scheduler.lr_warmup_iters=50 \
    checkpoint.save='/lustre/checkpoints/run1' \
    checkpoint.load='/lustre/checkpoints/run1' \
    checkpoint.save_interval=948 \
    checkpoint.most_recent_k=3 \
    train.exit_signal_handler=true \
    logger.tensorboard_dir='/lustre/tensorboard/run1' \
  &
}
max_restarts=0
delay=0
restarts=0
stop_signal=""
step_pid=""
trap 'stop_signal=USR1; [ -n "$step_pid" ] && kill -TERM "$step_pid" 2>/dev/null' USR1
trap 'stop_signal=TERM; [ -n "$step_pid" ] && kill -TERM "$step_pid" 2>/dev/null' TERM
progress_step() { sed -n 's/^ *"step": *\([0-9]*\).*/\1/p' "$RUN_DIR/progress.json" 2>/dev/null | head -n 1; }
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
  if [ "$stop_signal" = USR1 ] && [ "$stop_signal" != TERM ]; then
    echo "hypercompute: step stopped after a checkpoint (signal ${stop_signal:-to the tasks}); requeueing job $SLURM_JOB_ID"
    scontrol requeue "$SLURM_JOB_ID"
    exit 0
  fi
  if [ "$rc" -eq 0 ] || [ -n "$stop_signal" ]; then exit "$rc"; fi
  step_after=$(progress_step)
  if [ -z "$(find '/lustre/checkpoints/run1' -newer "$RUN_DIR/.attempt-start" -print -quit 2>/dev/null)" ] && [ "${step_after:-0}" -le "${step_before:-0}" ]; then
    echo "hypercompute: training step failed (exit $rc) with no progress since it started: not restarting"
    exit "$rc"
  fi
  if [ "$restarts" -ge "$max_restarts" ]; then
    echo "hypercompute: training step failed (exit $rc); giving up after $restarts of $max_restarts automatic restarts"
    exit "$rc"
  fi
  restarts=$((restarts + 1))
  printf '{"time":"%s","job_id":"%s","attempt":%d,"exit_code":%d,"step":%d}\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$SLURM_JOB_ID" "$restarts" "$rc" "${step_after:-0}" >> "$RUN_DIR/restarts.jsonl"
  echo "hypercompute: training step failed (exit $rc) after progress (step ${step_after:-?}); automatic restart $restarts of $max_restarts in ${delay}s"
  sleep "$delay" & step_pid=$!; wait "$step_pid"; step_pid=""
  [ -n "$stop_signal" ] && exit "$rc"
  delay=$((delay * 2))
done
