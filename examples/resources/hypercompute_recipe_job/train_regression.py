#!/usr/bin/python3
"""A team's own training program run by hypercompute_recipe_job (recipe.custom.script).

Linear regression y = X·w + noise, trained with SGD by PyTorch over every task of the job
(torch.distributed gloo, one process per node). It uses the `hypercompute` module the job
ships on PYTHONPATH to get what catalog recipes have:
  - checkpoints in HYPERCOMPUTE_CHECKPOINT_DIR every checkpoint.interval, and on SIGUSR1
    (sent before the time limit or a host's maintenance): the job then requeues itself;
  - a restart (requeue, node failure, a crash under restart_policy) resumes from the newest
    complete checkpoint, so the step counter continues;
  - progress (step, loss, checkpoints, lost time, MFU from flops_per_step) the provider reads.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist

import hypercompute

p = argparse.ArgumentParser()
p.add_argument("--features", type=int, default=64)
p.add_argument("--batch", type=int, default=256)
p.add_argument("--lr", type=float, default=0.05)
p.add_argument("--steps", type=int, default=0, help="default: overrides.max_steps, else 500")
p.add_argument("--step-seconds", type=float, default=float(os.environ.get("STEP_SECONDS") or 0),
               help="slow each step down to this long (demonstrations, tests); default $STEP_SECONDS")
args = p.parse_args()

job = hypercompute.Job()
max_steps = args.steps or job.max_steps or 500
distributed = job.world_size > 1
if distributed:
    dist.init_process_group("gloo", rank=job.rank, world_size=job.world_size)

torch.manual_seed(0)
true_w = torch.randn(args.features, 1)
model = torch.nn.Linear(args.features, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=args.lr)

step = 0
latest = job.latest_checkpoint()
if latest:
    state = torch.load(os.path.join(latest[1], "state.pt"))
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    step = state["step"]
    print("rank %d resumed from %s at step %d" % (job.rank, latest[1], step), flush=True)
elif job.resume_from:
    model.load_state_dict(torch.load(os.path.join(job.resume_from, "state.pt"))["model"])

gen = torch.Generator().manual_seed(1000 * job.rank + step)
stop, mean_loss = False, float("nan")
while step < max_steps:
    t0 = time.time()
    x = torch.randn(args.batch, args.features, generator=gen)
    y = x @ true_w + 0.01 * torch.randn(args.batch, 1, generator=gen)
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    if distributed:
        for prm in model.parameters():
            dist.all_reduce(prm.grad)
            prm.grad /= job.world_size
    opt.step()
    step += 1
    if args.step_seconds:
        time.sleep(max(0.0, args.step_seconds - (time.time() - t0)))
    # Every rank must agree on a checkpoint and a stop: a signal may reach one rank first.
    flags = torch.tensor([loss.item() / job.world_size, float(job.should_stop), float(job.checkpoint_due())])
    if distributed:
        dist.all_reduce(flags)
    mean_loss, stop, due = flags[0].item(), flags[1].item() > 0, flags[2].item() > 0
    job.report(step, loss=mean_loss, tokens=args.batch * job.world_size)
    if due or stop or step == max_steps:
        with job.checkpoint(step) as d:
            if d:
                torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step},
                           os.path.join(d, "state.pt"))
        if distributed:
            dist.barrier()
    if stop:
        print("rank %d stopped by %s at step %d after a checkpoint" % (job.rank, job.stop_signal or "another rank", step), flush=True)
        break
if stop and not job.should_stop:
    job.stop_signal = "a signal on another rank"
job.done(step)
if distributed:
    dist.destroy_process_group()
print("rank %d %s at step %d, loss %.5f" % (job.rank, "stopped" if stop else "finished", step, mean_loss), flush=True)
