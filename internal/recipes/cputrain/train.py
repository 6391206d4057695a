"""tiny-gpt: the hypercompute CPU recipe trainer.

A small decoder-only transformer language model (token + position embedding,
causal self-attention blocks, LM head) trained at byte level with real
PyTorch DistributedDataParallel over gloo, one process per Slurm task. The
batch script rendered by internal/recipes (Render) writes this file and its
config (recipe.json) into the run directory and starts it with srun; the
launch contract is the one NeMo/Megatron-Bridge use on Slurm: RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT per task (torchrun is not
used: Debian's is broken on Python 3.11).

Everything the run needs comes from the config written by Render: the model
dimensions, the hyperparameters and the checkpoint policy live in the Go
recipe table, not here.

Checkpoints are directories ckpt-<step> holding state.pt (model, optimizer,
step, every rank's RNG state) and a COMPLETE marker. They are written under a
temporary name and renamed into place, so a checkpoint without the marker is
torn and never loaded. At start the newest complete checkpoint of the job's
own checkpoint directory is resumed (the step counter continues); without
one, the model weights of checkpoint.resume_from seed the run.

SIGUSR1 (Slurm's --signal=B:USR1@N, forwarded by the batch script) and
SIGTERM (scancel, scontrol requeue) make every rank agree, through the
per-step collective, to checkpoint at the next step boundary and stop with
leaves a STOPPED file in the run directory, so the batch script requeues
the job and it resumes. Every rank then exits 0: Slurm's --kill-on-bad-exit
would turn one rank's non-zero exit into the others' termination, and the
step's exit status would no longer say what happened.
"""

import time

# Process start, before torch is imported: startup_seconds in the progress
# file counts from here to the run's first step (import, rendezvous, resume).
PROCESS_START = time.time()

import datetime
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

# Left in the run directory by a run that checkpointed on a signal before
# max_steps: the batch script requeues the job when it finds it (time limit,
# preemption notice).
STOPPED = "STOPPED"

CKPT_RE = re.compile(r"^ckpt-(\d+)$")
COMPLETE = "COMPLETE"
STATE = "state.pt"


def now_iso(t=None):
    t = time.time() if t is None else t
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(s):
    if not s:
        return None
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def write_rank_timing(run_dir, rank, step, compute_times):
    # This rank's own compute time per step (batch, forward, loss: before any
    # collective), the median of the last steps, in RUN_DIR/ranks/RANK.json.
    # In a synchronous job every rank's step lasts as long as the slowest
    # one's, so only this tells which node is slow: the health policy's
    # straggler check compares it across a partition's nodes.
    if not compute_times:
        return
    p = os.path.join(run_dir, "ranks", "%d.json" % rank)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    rec = {"rank": rank, "node": os.environ.get("SLURMD_NODENAME") or socket.gethostname(), "step": step,
           "compute_seconds": round(sorted(compute_times)[len(compute_times) // 2], 5), "time": now_iso()}
    with open(p + ".new", "w") as f:
        json.dump(rec, f)
    os.replace(p + ".new", p)


def log(msg):
    print("[tiny-gpt rank %s] %s" % (os.environ.get("RANK", "0"), msg), flush=True)


# ---------------------------------------------------------------- corpora
# Deterministic synthetic text, one domain per mode, so every node builds
# the same corpus with no file to ship and no download.

SUBJECTS = ["the cat", "a dog", "the old man", "my sister", "the engineer", "a small bird",
            "the cluster", "our team", "the teacher", "a farmer"]
VERBS = ["sees", "likes", "builds", "finds", "trains", "watches", "carries", "remembers",
         "paints", "follows"]
OBJECTS = ["the red ball", "a long train", "the quiet river", "a new model", "the big house",
           "a warm loaf of bread", "the night sky", "every checkpoint", "the green hill",
           "a wooden boat"]
ENDINGS = ["today", "again", "in the morning", "at night", "with care", "without a word",
           "near the sea", "after lunch"]
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
           "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
           "seventeen", "eighteen"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
OPPOSITES = [("hot", "cold"), ("up", "down"), ("big", "small"), ("fast", "slow"),
             ("open", "closed"), ("light", "dark"), ("early", "late"), ("full", "empty")]


def pretrain_text(rng, n):
    out, size = [], 0
    while size < n:
        s = "%s %s %s %s.\n" % (rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS),
                                rng.choice(ENDINGS))
        out.append(s)
        size += len(s)
    return "".join(out), None


def arithmetic_text(rng, n):
    # continued pretraining: a new domain (number facts) for a model that
    # already knows the sentence corpus.
    out, size = [], 0
    while size < n:
        a, b = rng.randrange(10), rng.randrange(9)
        s = "%s plus %s is %s.\n" % (NUMBERS[a], NUMBERS[b], NUMBERS[a + b])
        out.append(s)
        size += len(s)
    return "".join(out), None


def sft_text(rng, n):
    # supervised fine-tuning: prompt/response pairs; the loss counts only
    # the response bytes (mask 1), as instruction tuning does.
    text, mask, size = [], [], 0
    while size < n:
        kind = rng.randrange(3)
        if kind == 0:
            d = rng.randrange(7)
            q, a = "what day comes after %s?" % DAYS[d], DAYS[(d + 1) % 7]
        elif kind == 1:
            x, y = rng.choice(OPPOSITES)
            if rng.randrange(2):
                x, y = y, x
            q, a = "what is the opposite of %s?" % x, y
        else:
            a_, b_ = rng.randrange(10), rng.randrange(9)
            q, a = "what is %s plus %s?" % (NUMBERS[a_], NUMBERS[b_]), NUMBERS[a_ + b_]
        prompt, answer = "user: %s\nassistant: " % q, a + "\n"
        text.append(prompt + answer)
        mask.append("0" * len(prompt) + "1" * len(answer))
        size += len(prompt) + len(answer)
    return "".join(text), "".join(mask)


CORPORA = {"pretrain": pretrain_text, "continued_pretrain": arithmetic_text, "sft": sft_text}


def build_corpus(mode, seed, n_chars):
    text, mask = CORPORA[mode](random.Random("%s/%d" % (mode, seed)), n_chars)
    data = torch.tensor(list(text.encode("utf-8")), dtype=torch.long)
    if mask is None:
        m = torch.ones(len(data), dtype=torch.float32)
    else:
        m = torch.tensor([1.0 if c == "1" else 0.0 for c in mask], dtype=torch.float32)
    return data, m


def batch_at(data, mask, step, rank, micro_batch, seq_len, seed):
    # The batch of (step, rank) is a pure function of them, so a resumed run
    # sees exactly the data the interrupted one would have.
    g = torch.Generator()
    g.manual_seed((seed * 1000003 + step * 9973 + rank * 7919) % (2 ** 63))
    idx = torch.randint(0, len(data) - seq_len - 1, (micro_batch,), generator=g)
    x = torch.stack([data[i:i + seq_len] for i in idx])
    y = torch.stack([data[i + 1:i + seq_len + 1] for i in idx])
    w = torch.stack([mask[i + 1:i + seq_len + 1] for i in idx])
    return x, y, w


# ---------------------------------------------------------------- model

class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, d_model, n_layer, n_head, max_seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_seq, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        h = self.tok(x) + self.pos(pos)
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln_f(h))


# ---------------------------------------------------------------- files

def measure_peak_flops(seconds=0.3, sizes=(64, 96, 128, 256)):
    """This rank's fp32 matmul peak in FLOP/s, on the threads it trains with.

    The CPU recipe's denominator for MFU (GPU recipes take theirs from the
    catalog). A CPU's matmul rate depends on the shape (Debian's torch uses
    the generic BLAS: n = 64..128 fits the cache and runs faster than 512),
    so the peak is the best rate of repeated n×n matmuls (2n³ FLOPs each)
    over a few sizes, about `seconds` in all so startup barely moves. Every
    rank measures at once, sharing the node's cores as training does, and
    the ranks' rates add up.
    """
    best = 0.0
    for n in sizes:
        a, b = torch.randn(n, n), torch.randn(n, n)
        torch.mm(a, b)  # warm-up: thread pool, allocator
        deadline = time.perf_counter() + seconds / len(sizes)
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            for _ in range(4):
                torch.mm(a, b)
            dt = time.perf_counter() - t0
            if dt > 0:
                best = max(best, 4 * 2 * n ** 3 / dt)
    return best


def flops_per_token(n_params, n_layer, d_model, seq_len):
    """PaLM's model FLOPs per trained token, 6N + 12·L·H·Q·T (H·Q = d_model);
    recipes.FLOPsPerToken is the same count in Go."""
    return 6 * n_params + 12 * n_layer * d_model * seq_len


def write_atomic(path, data):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def complete_checkpoints(root):
    """(step, path, marker) of every complete checkpoint under root, oldest first."""
    out = []
    if not root or not os.path.isdir(root):
        return out
    for name in os.listdir(root):
        m = CKPT_RE.match(name)
        if not m:
            continue
        path = os.path.join(root, name)
        marker = os.path.join(path, COMPLETE)
        if not (os.path.isfile(marker) and os.path.isfile(os.path.join(path, STATE))):
            continue  # torn: never loaded
        try:
            with open(marker) as f:
                info = json.load(f)
        except (OSError, ValueError):
            continue
        out.append((int(m.group(1)), path, info))
    out.sort(key=lambda c: c[0])
    return out


def resolve_resume_from(path):
    """A checkpoint directory itself, or the newest complete one inside it."""
    if os.path.isfile(os.path.join(path, COMPLETE)) and os.path.isfile(os.path.join(path, STATE)):
        return path
    found = complete_checkpoints(path)
    if not found:
        raise SystemExit("checkpoint.resume_from %s holds no complete checkpoint (ckpt-<step> with %s)" % (path, COMPLETE))
    return found[-1][1]


def save_checkpoint(root, step, state, keep_last):
    final = os.path.join(root, "ckpt-%d" % step)
    if os.path.isfile(os.path.join(final, COMPLETE)):
        return final
    tmp = os.path.join(root, ".tmp-ckpt-%d-%d" % (step, os.getpid()))
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with open(os.path.join(tmp, STATE), "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    write_atomic(os.path.join(tmp, COMPLETE), json.dumps({"step": step, "time": now_iso()}))
    fsync_dir(tmp)
    if os.path.exists(final):  # a torn leftover of an earlier run
        shutil.rmtree(final)
    os.rename(tmp, final)
    fsync_dir(root)
    prune(root, keep_last)
    return final


def remove_partial(root):
    """Remove what a writer killed mid-checkpoint left: its .tmp-ckpt-*
    directory, or a ckpt-<step> without its COMPLETE marker. Run by rank 0
    before it writes anything, so every partial one is a dead writer's;
    a complete checkpoint is never touched. Returns the names removed."""
    gone = []
    if not root or not os.path.isdir(root):
        return gone
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if not os.path.isdir(path):
            continue
        partial = name.startswith(".tmp-ckpt-") or (
            CKPT_RE.match(name) and not os.path.isfile(os.path.join(path, COMPLETE)))
        if partial:
            shutil.rmtree(path, ignore_errors=True)
            gone.append(name)
    return gone


def prune(root, keep_last):
    done = complete_checkpoints(root)
    if keep_last > 0:
        for _, path, _ in done[:-keep_last]:
            shutil.rmtree(path, ignore_errors=True)
    for name in os.listdir(root):
        if name.startswith(".tmp-ckpt-"):
            # a temporary directory of a run that died mid-write
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


# ---------------------------------------------------------------- training

class Stop:
    requested = None

    @classmethod
    def handler(cls, signum, _frame):
        cls.requested = signal.Signals(signum).name


# The loss curve and checkpoint steps kept in progress.json for the goodput report
# (recipes.ProgressHistoryMax): bounded, so the file stays small however long the run.
HISTORY_MAX = 256


def keep_point(hist, point):
    hist.append(point)
    if len(hist) > HISTORY_MAX:
        # Every other point, the newest kept: the whole run at half the resolution.
        hist[:] = hist[-1::-2][::-1]


def young_daly(cost, mtbf):
    return math.sqrt(2.0 * cost * mtbf)


def lr_at(step, hp, max_steps):
    base, warm = hp["learning_rate"], hp["warmup_steps"]
    if step <= warm:
        return base * step / max(1, warm)
    frac = (step - warm) / max(1, max_steps - warm)
    return base * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: train.py RECIPE_JSON")
    with open(sys.argv[1]) as f:
        cfg = json.load(f)

    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    # Share the node's cores among the node's tasks instead of each task
    # taking all of them.
    cpus = int(os.environ.get("SLURM_CPUS_ON_NODE") or os.cpu_count() or 1)
    per_node = int((os.environ.get("SLURM_NTASKS_PER_NODE") or "1").split("(")[0])
    torch.set_num_threads(max(1, min(os.cpu_count() or 1, cpus // max(1, per_node))))
    # Denormal floats (tiny Adam moments, decayed gradients) slow CPU
    # arithmetic many times over as training goes on.
    torch.set_flush_denormal(True)

    signal.signal(signal.SIGUSR1, Stop.handler)
    signal.signal(signal.SIGTERM, Stop.handler)

    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=int(cfg.get("collective_timeout_seconds", 300))))
    started = time.time()

    m, hp, ck = cfg["model"], cfg["hyperparameters"], cfg["checkpoint"]
    mode, max_steps = cfg["mode"], int(cfg["max_steps"])
    seq_len, micro_batch = int(hp["seq_length"]), int(hp["micro_batch"])
    seed, log_every = int(hp["seed"]), max(1, int(hp["log_every"]))
    run_dir, ck_dir = cfg["run_dir"], ck["dir"]
    metrics_dir = cfg.get("tensorboard_dir") or run_dir
    progress_path = os.path.join(run_dir, "progress.json")
    if rank == 0:
        for d in (run_dir, ck_dir, metrics_dir):
            os.makedirs(d, exist_ok=True)
        stale = os.path.join(run_dir, STOPPED)
        if os.path.exists(stale):
            os.remove(stale)
        # A run killed while writing leaves a partial checkpoint behind; a
        # run killed again before its own first save would never reach
        # prune, so every start clears them.
        gone = remove_partial(ck_dir)
        if gone:
            log("removed partial checkpoints of an interrupted writer: %s" % " ".join(gone))

    random.seed(seed + rank)
    torch.manual_seed(seed)  # identical initial weights on every rank
    model = TinyGPT(int(m["vocab"]), int(m["d_model"]), int(m["n_layer"]), int(m["n_head"]), seq_len)
    opt = torch.optim.AdamW(model.parameters(), lr=hp["learning_rate"], betas=(0.9, 0.95),
                            weight_decay=hp["weight_decay"])
    n_params = sum(p.numel() for p in model.parameters())
    step_flops = flops_per_token(n_params, int(m["n_layer"]), int(m["d_model"]), seq_len) * micro_batch * seq_len * world
    peak = torch.tensor([measure_peak_flops()], dtype=torch.float64)
    dist.all_reduce(peak)
    peak = peak.item()

    # -- resume: own newest complete checkpoint, else resume_from weights
    step, first_loss, resumed = 0, None, None
    own = complete_checkpoints(ck_dir)
    if own:
        s, path, info = own[-1]
        state = torch.load(os.path.join(path, STATE), map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step, first_loss = int(state["step"]), state.get("first_loss")
        rngs = state.get("rng") or []
        if len(rngs) == world:
            torch.set_rng_state(rngs[rank]["torch"])
            random.setstate(rngs[rank]["python"])
        resumed = {"path": path, "step": s, "time": parse_iso(info.get("time"))}
        log("resumed from %s at step %d" % (path, step))
    elif ck.get("resume_from"):
        path = resolve_resume_from(ck["resume_from"])
        state = torch.load(os.path.join(path, STATE), map_location="cpu")
        model.load_state_dict(state["model"])
        log("initialized from the weights of %s (step %s of that run)" % (path, state.get("step")))

    # -- progress carried over from the run this one restarts
    prog = {"step": step, "max_steps": max_steps, "first_loss": first_loss or 0.0, "last_loss": 0.0,
            "last_checkpoint_step": 0, "checkpoint_cost_seconds": 0.0, "interval_seconds": 0.0,
            "checkpoints": 0, "restarts": 0, "lost_seconds": 0.0, "generation": cfg.get("generation", ""),
            "started_at": now_iso(started), "finished": False,
            "mfu": 0.0, "train_seconds": 0.0, "peak_tflops": round(peak / 1e12, 4),
            "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""), "lost_by_job": {},
            "history": [], "checkpoint_steps": []}
    if rank == 0 and os.path.isfile(progress_path):
        try:
            with open(progress_path) as f:
                prev = json.load(f)
        except (OSError, ValueError):
            prev = None
        if prev:
            # Keyed by Slurm job id, so an earlier generation's losses stay
            # with its jobs.
            prog["lost_by_job"] = dict(prev.get("lost_by_job") or {})
        if prev and prev.get("generation", "") == prog["generation"]:
            for k in ("first_loss", "last_loss", "last_checkpoint_step", "last_checkpoint_time",
                      "checkpoint_cost_seconds", "interval_seconds", "checkpoints", "mfu", "train_seconds",
                      "history", "checkpoint_steps"):
                if k in prev:
                    prog[k] = prev[k]
            # The curve continues from the step this run resumes: steps past it are redone.
            prog["history"] = [p for p in prog["history"] if p.get("step", 0) <= step]
            prog["restarts"] = int(prev.get("restarts", 0)) + 1
            # Work lost: from the checkpoint this run resumes (or the start
            # of the previous run) to the previous run's last sign of life.
            last_alive = parse_iso(prev.get("updated_at"))
            since = resumed["time"] if resumed else parse_iso(prev.get("started_at"))
            lost = max(0.0, last_alive - since) if last_alive and since else 0.0
            prog["lost_seconds"] = float(prev.get("lost_seconds", 0.0)) + lost
            # The work redone was the stopped run's: charge its job.
            stopped = prev.get("slurm_job_id", "")
            prog["lost_by_job"][stopped] = prog["lost_by_job"].get(stopped, 0.0) + lost
            if resumed is None:
                prog["last_checkpoint_step"] = 0
            log("restart %d: %.1f s of training lost" % (prog["restarts"], lost))
    if first_loss is not None:
        prog["first_loss"] = first_loss

    ddp = DDP(model)
    data, mask = build_corpus(mode, seed, int(cfg.get("corpus_chars", 400000)))

    def write_progress():
        if rank == 0:
            prog["updated_at"] = now_iso()
            write_atomic(progress_path, json.dumps(prog, indent=1))

    last_ckpt = [step if resumed else -1]

    def checkpoint(at):
        if last_ckpt[0] == at:
            return
        last_ckpt[0] = at
        # Every rank sends its RNG state; rank 0 writes. The collective also
        # keeps the other ranks from racing ahead of a slow write.
        rngs = [None] * world
        dist.all_gather_object(rngs, {"torch": torch.get_rng_state(), "python": random.getstate()})
        if rank == 0:
            t0 = time.time()
            save_checkpoint(ck_dir, at, {"model": model.state_dict(), "optimizer": opt.state_dict(),
                                         "step": at, "rng": rngs, "first_loss": prog["first_loss"],
                                         "model_config": m, "format": 1}, int(ck["keep_last"]))
            cost = time.time() - t0
            prog.update(last_checkpoint_step=at, last_checkpoint_time=now_iso(), checkpoint_cost_seconds=cost,
                        checkpoints=prog["checkpoints"] + 1)
            prog["checkpoint_steps"] = (prog["checkpoint_steps"] + [at])[-HISTORY_MAX:]
            prog["interval_seconds"] = interval()
            log("checkpoint ckpt-%d in %.3f s" % (at, cost))
        dist.barrier()

    def interval():
        # auto: Young/Daly √(2·C·M) from the last measured cost; before any
        # checkpoint the cost is unknown, so the first one comes after the
        # first step and measures it.
        if ck.get("auto"):
            cost = prog["checkpoint_cost_seconds"]
            return young_daly(cost, float(ck["mtbf_seconds"])) if cost > 0 else 0.0
        return float(ck.get("interval_seconds") or 0)

    tb = None
    if rank == 0:
        try:
            from torch.utils.tensorboard import SummaryWriter
            tb = SummaryWriter(metrics_dir)
        except Exception:  # TensorBoard is not installed: metrics.jsonl only
            tb = None
        metrics = open(os.path.join(metrics_dir, "metrics.jsonl"), "a")
        log("%s %s: %d parameters, %d ranks, steps %d..%d; matmul peak %.1f GFLOP/s over the ranks" % (
            cfg.get("model_name", "tiny-gpt"), cfg.get("size", ""), n_params, world, step + 1, max_steps, peak / 1e9))

    prog["interval_seconds"] = interval()
    since_ckpt = time.time()
    stopped_by = None
    compute_times = []
    while step < max_steps:
        t0 = time.time()
        x, y, w = batch_at(data, mask, step, rank, micro_batch, seq_len, seed)
        lr = lr_at(step + 1, hp, max_steps)
        for g in opt.param_groups:
            g["lr"] = lr
        logits = ddp(x)
        per_tok = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1), reduction="none")
        loss = (per_tok * w.view(-1)).sum() / w.sum().clamp(min=1.0)
        compute_times = (compute_times + [time.time() - t0])[-log_every:]
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if hp["grad_clip"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), hp["grad_clip"])
        opt.step()
        step += 1
        # One collective per step: the mean loss, whether any rank was told
        # to stop, and whether rank 0's clock says a checkpoint is due.
        due = 0.0
        if rank == 0:
            iv = interval()
            if (ck.get("auto") and iv == 0) or (iv > 0 and time.time() - since_ckpt >= iv):
                due = 1.0
        flags = torch.tensor([loss.item() / world, 1.0 if Stop.requested else 0.0, due])
        dist.all_reduce(flags)
        mean_loss, stop, due = flags[0].item(), flags[1].item() > 0, flags[2].item() > 0
        step_time = time.time() - t0
        if rank == 0:
            if "startup_seconds" not in prog:
                prog["startup_seconds"] = time.time() - PROCESS_START
            if not prog["first_loss"]:
                prog["first_loss"] = mean_loss
            prog["step"], prog["last_loss"] = step, mean_loss
            # Step-time-weighted mean over the generation: each step's
            # model FLOPs over its own time and this run's measured peak.
            mfu = step_flops / step_time / peak if peak > 0 and step_time > 0 else 0.0
            ts = prog["train_seconds"] + step_time
            prog["mfu"] = (prog["mfu"] * prog["train_seconds"] + mfu * step_time) / ts
            prog["train_seconds"] = ts
            if step % log_every == 0 or step == max_steps or stop:
                rec = {"step": step, "loss": round(mean_loss, 5), "lr": lr,
                       "tokens_per_s": round(micro_batch * seq_len * world / step_time, 1),
                       "step_time": round(step_time, 5), "mfu": round(mfu, 5), "time": now_iso()}
                keep_point(prog["history"], {"step": step, "loss": rec["loss"], "time": rec["time"]})
                metrics.write(json.dumps(rec) + "\n")
                metrics.flush()
                if tb is not None:
                    tb.add_scalar("loss", mean_loss, step)
                    tb.add_scalar("lr", lr, step)
                write_progress()
        if step % log_every == 0:
            write_rank_timing(run_dir, rank, step, compute_times)
        if stop or step == max_steps:
            break
        if due:
            checkpoint(step)
            since_ckpt = time.time()
            write_progress()
    if step < max_steps:
        stopped_by = Stop.requested or "a signal on another rank"
    checkpoint(step)
    if rank == 0:
        if stopped_by is not None:
            write_atomic(os.path.join(run_dir, STOPPED), json.dumps({"signal": stopped_by, "step": step}))
        if stopped_by is None:
            prog["finished"] = True
            if cfg.get("export_path"):
                export(cfg["export_path"], model, m)
        write_progress()
        metrics.close()
        if tb is not None:
            tb.close()
    dist.barrier()
    dist.destroy_process_group()
    if stopped_by is not None:
        log("stopped by %s at step %d after a checkpoint" % (stopped_by, step))
    # Only rank 0 keeps the progress (loss, MFU); the other ranks' are 0.
    log("finished at step %d, loss %.4f%s" % (step, prog["last_loss"], ", MFU %.1f%%" % (100 * prog["mfu"]) if rank == 0 else ""))
    # Leave before main's locals are freed: freeing the DDP model destroys its Reducer, whose gloo
    # process group joins a worker thread that waits for the GIL this thread holds (seen as a rank
    # that logged "finished" and never exited). Everything is written and flushed by now.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def export(path, model, model_cfg):
    tmp = path.rstrip("/") + ".tmp-%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    torch.save(model.state_dict(), os.path.join(tmp, "model.pt"))
    write_atomic(os.path.join(tmp, "config.json"), json.dumps(model_cfg))
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    os.rename(tmp, path)
    log("exported the final model to %s" % path)


if __name__ == "__main__":
    main()
