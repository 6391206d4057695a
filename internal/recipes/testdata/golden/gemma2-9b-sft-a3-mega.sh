#!/bin/bash
# hypercompute recipe job train-gemma2-9b: gemma2/9b/sft@a3-mega (generation g1)
#SBATCH --job-name=train-gemma2-9b
#SBATCH --partition=gpu-a3-mega
#SBATCH --nodes=1
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
# NCCL environment of the tcpxo NIC stack (a3-megagpu-8g), from the machine catalog.
export LD_LIBRARY_PATH=/var/lib/tcpxo/lib64:${LD_LIBRARY_PATH}
source /var/lib/tcpxo/lib64/nccl-env-profile.sh
export NCCL_FASTRAK_CTRL_DEV=enp0s12
export NCCL_FASTRAK_IFNAME=enp6s0,enp7s0,enp13s0,enp14s0,enp134s0,enp135s0,enp141s0,enp142s0
export NCCL_SOCKET_IFNAME=enp0s12
export NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY=/dev/aperture_devices
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
mounts="$mounts,/var/lib/tcpxo:/var/lib/tcpxo"
mounts="$mounts,/dev/aperture_devices:/dev/aperture_devices"
echo "hypercompute: $SLURM_JOB_NAME ($SLURM_JOB_ID, restart ${SLURM_RESTART_COUNT:-0}) on $SLURM_JOB_NODELIST, master $MASTER_ADDR:$MASTER_PORT"
# Checkpoint every 1810 steps: auto: Young/Daly √(2 × C 60.0 s × M 36000 s) = 2078 s / expected step 1.15 s (6·N·tokens at 40% of peak bf16) = 1810 steps.
launch_step() {
srun --kill-on-bad-exit=1 --nodes=1 --ntasks-per-node=8 \
  --container-image="$SQSH" --container-mounts="$mounts" --container-workdir=/workspace \
  bash -c 'export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID; exec "$@"' launch \
  nemo llm finetune \
    --factory 'gemma2_9b(peft_scheme='\''none'\'')' \
    -y \
    trainer.num_nodes=1 \
    trainer.devices=8 \
    trainer.max_steps=1000 \
    trainer.strategy.tensor_model_parallel_size=4 \
    trainer.strategy.pipeline_model_parallel_size=1 \
    trainer.strategy.context_parallel_size=1 \
    data.micro_batch_size=1 \
    data.global_batch_size=32 \
    data.seq_length=2048 \
    optim.config.lr=0.000005 \
    optim.lr_scheduler.min_lr=0 \
    optim.lr_scheduler.warmup_steps=50 \
    log.log_dir='/home/runs/run1' \
    log.ckpt.dirpath='/lustre/checkpoints/run1' \
    log.ckpt.save_top_k=3 \
    log.ckpt.every_n_train_steps=1810 \
    resume.resume_if_exists=true \
    resume.resume_ignore_no_checkpoint=true \
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
