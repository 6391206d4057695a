"""hypercompute: what a custom hypercompute_recipe_job's program uses to get
the recipes' guarantees.

The batch script writes this module into the job's run directory and puts
that directory on PYTHONPATH, so `import hypercompute` works in every task
(the standard library only; PyTorch is used when the program imported it).

    job = hypercompute.Job()                 # reads HYPERCOMPUTE_*, traps SIGUSR1/SIGTERM
    start = job.latest_checkpoint()          # (step, path) of the newest complete one, or None
    for step in range(first, job.max_steps or 1000):
        ...                                  # train one step
        job.report(step + 1, loss=..., tokens=...)
        if job.checkpoint_due():             # interval passed, or a stop was asked (SIGUSR1)
            with job.checkpoint(step + 1) as d:
                if d:                         # rank 0 writes; None on the other ranks
                    torch.save(state, os.path.join(d, "state.pt"))
        if job.should_stop:
            break
    job.done(step)                           # STOPPED after a signal (the job requeues), else finished

Checkpoints are `ckpt-<step>/` directories under HYPERCOMPUTE_CHECKPOINT_DIR,
written under a temporary name, marked COMPLETE and renamed, so a run killed
while writing never resumes from half a checkpoint; the newest keep_last are
kept. Progress goes to progress.json in the run directory (the file the
cluster's agent reports to Terraform), metrics to metrics.jsonl. Ranks must
agree on checkpoint_due() and should_stop (all_reduce them) when the
checkpoint is a collective.
"""

import contextlib
import datetime
import json
import math
import os
import re
import shutil
import signal
import sys
import time

PROGRESS = "progress.json"
STOPPED = "STOPPED"
COMPLETE = "COMPLETE"
CKPT_RE = re.compile(r"^ckpt-(\d+)$")
# Progress is written at most this often (and at every checkpoint and the end).
WRITE_EVERY = 1.0


def now_iso(t=None):
    t = time.time() if t is None else t
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(s):
    if not s:
        return None
    try:
        return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def write_atomic(path, data):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def _env_float(name):
    try:
        return float(os.environ.get(name) or 0)
    except ValueError:
        return 0.0


def _env_int(name, default=0):
    try:
        return int(os.environ.get(name) or default)
    except ValueError:
        return default


class Job:
    """The running job as the batch script describes it in the environment."""

    def __init__(self):
        self.started = time.time()
        self.rank = _env_int("RANK")
        self.world_size = max(1, _env_int("WORLD_SIZE", 1))
        self.local_rank = _env_int("LOCAL_RANK")
        self.run_dir = os.environ.get("HYPERCOMPUTE_RUN_DIR") or os.getcwd()
        self.checkpoint_dir = os.environ.get("HYPERCOMPUTE_CHECKPOINT_DIR") or os.path.join(self.run_dir, "checkpoints")
        self.resume_from = os.environ.get("HYPERCOMPUTE_RESUME_FROM") or None
        self.max_steps = _env_int("HYPERCOMPUTE_MAX_STEPS") or None
        self.keep_last = max(1, _env_int("HYPERCOMPUTE_KEEP_LAST", 3))
        self.interval = _env_float("HYPERCOMPUTE_CHECKPOINT_INTERVAL_SECONDS")
        self.auto = os.environ.get("HYPERCOMPUTE_CHECKPOINT_AUTO") == "1"
        self.mtbf = _env_float("HYPERCOMPUTE_MTBF_SECONDS")
        self.flops_per_step = _env_float("HYPERCOMPUTE_FLOPS_PER_STEP")
        self.peak_flops = _env_float("HYPERCOMPUTE_PEAK_TFLOPS") * 1e12
        self.metrics_dir = os.environ.get("HYPERCOMPUTE_TENSORBOARD_DIR") or self.run_dir
        self.export_path = os.environ.get("HYPERCOMPUTE_EXPORT_PATH") or None
        self.stop_signal = None
        signal.signal(signal.SIGUSR1, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)
        self._progress_path = os.path.join(self.run_dir, PROGRESS)
        self._last_write = 0.0
        self._last_step = None
        self._t_ref = None
        self._since_ckpt = time.time()
        self.prog = {
            "step": 0, "max_steps": self.max_steps or 0, "first_loss": 0.0, "last_loss": 0.0,
            "last_checkpoint_step": 0, "checkpoint_cost_seconds": 0.0, "interval_seconds": 0.0,
            "checkpoints": 0, "restarts": 0, "lost_seconds": 0.0,
            "generation": os.environ.get("HYPERCOMPUTE_GENERATION", ""),
            "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""), "lost_by_job": {},
            "started_at": now_iso(self.started), "finished": False,
        }
        if self.rank == 0:
            os.makedirs(self.checkpoint_dir, exist_ok=True)
            os.makedirs(self.metrics_dir, exist_ok=True)
            self._remove_partial()
            self._carry_over()
        self.prog["interval_seconds"] = self._interval()
        self._write(force=True)

    # -- signals -----------------------------------------------------------
    def _on_signal(self, signum, _frame):
        if self.stop_signal is None:
            self.stop_signal = signal.Signals(signum).name

    @property
    def should_stop(self):
        """True once SIGUSR1 (the time limit or a host's stop notice is near) or SIGTERM came:
        checkpoint now and leave through done()."""
        return self.stop_signal is not None

    # -- checkpoints -------------------------------------------------------
    def checkpoints(self):
        """(step, path) of every complete checkpoint, oldest first."""
        out = []
        if not os.path.isdir(self.checkpoint_dir):
            return out
        for name in os.listdir(self.checkpoint_dir):
            m = CKPT_RE.match(name)
            path = os.path.join(self.checkpoint_dir, name)
            if m and os.path.isfile(os.path.join(path, COMPLETE)):
                out.append((int(m.group(1)), path))
        return sorted(out)

    def latest_checkpoint(self):
        """(step, path) of the newest complete checkpoint of this job, or None: resume from it.
        With none, resume_from (checkpoint.resume_from) is where to take weights from, if set."""
        cks = self.checkpoints()
        return cks[-1] if cks else None

    def _interval(self):
        # auto: Young/Daly sqrt(2·C·M) from the last measured cost; before the first checkpoint
        # the cost is unknown, so the first one comes after the first step and measures it.
        if self.auto:
            c = self.prog["checkpoint_cost_seconds"]
            return math.sqrt(2 * c * self.mtbf) if c > 0 and self.mtbf > 0 else 0.0
        return self.interval

    def checkpoint_due(self):
        """Whether to checkpoint now: the interval passed since the last one, or a stop was asked."""
        if self.should_stop:
            return True
        iv = self._interval()
        if self.auto and iv == 0:
            return True
        return iv > 0 and time.time() - self._since_ckpt >= iv

    @contextlib.contextmanager
    def checkpoint(self, step):
        """Yields the directory to save checkpoint `step` into (rank 0; None elsewhere). Once the
        block ends it is marked COMPLETE and renamed ckpt-<step>, older ones beyond keep_last
        are removed, and the progress file records it."""
        t0 = time.time()
        if self.rank != 0:
            yield None
            self._since_ckpt = time.time()
            self._t_ref = time.time()
            return
        final = os.path.join(self.checkpoint_dir, "ckpt-%d" % step)
        tmp = "%s.partial-%d" % (final, os.getpid())
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        yield tmp
        write_atomic(os.path.join(tmp, COMPLETE), json.dumps({"step": step, "time": now_iso()}))
        if os.path.exists(final):
            shutil.rmtree(final)
        os.rename(tmp, final)
        self.checkpoint_saved(step, time.time() - t0)

    def checkpoint_saved(self, step, cost_seconds=None):
        """Records a checkpoint the program wrote itself (its own layout): call on rank 0 once it
        is complete. checkpoint() calls it."""
        self._since_ckpt = time.time()
        self._t_ref = time.time()
        if self.rank != 0:
            return
        self.prog.update(last_checkpoint_step=int(step), last_checkpoint_time=now_iso(),
                         checkpoints=self.prog["checkpoints"] + 1)
        if cost_seconds is not None:
            self.prog["checkpoint_cost_seconds"] = float(cost_seconds)
        self.prog["interval_seconds"] = self._interval()
        self._prune()
        self._write(force=True)

    def _prune(self):
        for _, path in self.checkpoints()[:-self.keep_last]:
            shutil.rmtree(path, ignore_errors=True)

    def _remove_partial(self):
        if not os.path.isdir(self.checkpoint_dir):
            return
        for name in os.listdir(self.checkpoint_dir):
            if ".partial-" in name and name.startswith("ckpt-"):
                shutil.rmtree(os.path.join(self.checkpoint_dir, name), ignore_errors=True)

    # -- progress ----------------------------------------------------------
    def _carry_over(self):
        """A restart of the same generation continues the counts of the run it restarts and
        charges the work it redoes to the Slurm job that stopped."""
        try:
            os.remove(os.path.join(self.run_dir, STOPPED))
        except FileNotFoundError:
            pass
        try:
            with open(self._progress_path) as f:
                prev = json.load(f)
        except (OSError, ValueError):
            return
        self.prog["lost_by_job"] = dict(prev.get("lost_by_job") or {})
        if prev.get("generation", "") != self.prog["generation"]:
            return
        for k in ("first_loss", "last_loss", "last_checkpoint_step", "last_checkpoint_time", "checkpoint_cost_seconds",
                  "checkpoints", "mfu", "train_seconds", "peak_tflops", "step"):
            if k in prev:
                self.prog[k] = prev[k]
        self.prog["restarts"] = int(prev.get("restarts", 0)) + 1
        latest = self.latest_checkpoint()
        since = None
        if latest:
            try:
                with open(os.path.join(latest[1], COMPLETE)) as f:
                    since = parse_iso(json.load(f).get("time"))
            except (OSError, ValueError):
                since = None
            self.prog["step"] = latest[0]
        if since is None:
            since = parse_iso(prev.get("last_checkpoint_time")) or parse_iso(prev.get("started_at"))
        last_alive = parse_iso(prev.get("updated_at"))
        lost = max(0.0, last_alive - since) if last_alive and since else 0.0
        self.prog["lost_seconds"] = float(prev.get("lost_seconds", 0.0)) + lost
        stopped = prev.get("slurm_job_id", "")
        self.prog["lost_by_job"][stopped] = self.prog["lost_by_job"].get(stopped, 0.0) + lost

    def _peak(self):
        # GPU partitions: the catalog's figure, from the provider. CPU: this rank's fp32 matmul
        # rate (0.3 s, only when the program uses PyTorch) times the ranks.
        if self.peak_flops == 0 and "torch" in sys.modules:
            torch = sys.modules["torch"]
            best = 0.0
            for n in (64, 128, 256):
                a, b = torch.randn(n, n), torch.randn(n, n)
                torch.mm(a, b)
                deadline = time.perf_counter() + 0.1
                while time.perf_counter() < deadline:
                    t0 = time.perf_counter()
                    for _ in range(4):
                        torch.mm(a, b)
                    dt = time.perf_counter() - t0
                    if dt > 0:
                        best = max(best, 8 * n ** 3 / dt)
            self.peak_flops = best * self.world_size
            self.prog["peak_tflops"] = round(self.peak_flops / 1e12, 6)
        return self.peak_flops

    def report(self, step, loss=None, tokens=None):
        """Records that optimizer step `step` finished (1-based: the steps done so far), with its
        loss and the tokens (or samples) it trained on over all ranks. Rank 0 writes."""
        now = time.time()
        if self.rank != 0:
            return
        if self.prog.get("startup_seconds") is None:
            self.prog["startup_seconds"] = now - self.started
        step_time = None
        if self._t_ref is not None and self._last_step is not None and step > self._last_step:
            step_time = (now - self._t_ref) / (step - self._last_step)
        self._t_ref, self._last_step = now, step
        self.prog["step"] = int(step)
        if loss is not None:
            loss = float(loss)
            if not self.prog["first_loss"]:
                self.prog["first_loss"] = loss
            self.prog["last_loss"] = loss
        rec = {"step": int(step), "time": now_iso(now)}
        if loss is not None:
            rec["loss"] = round(loss, 6)
        if step_time:
            rec["step_time"] = round(step_time, 6)
            if tokens:
                rec["tokens_per_s"] = round(tokens / step_time, 1)
            if self.flops_per_step > 0 and self._peak() > 0:
                mfu = self.flops_per_step / step_time / self.peak_flops
                ts = float(self.prog.get("train_seconds", 0.0))
                self.prog["mfu"] = (float(self.prog.get("mfu", 0.0)) * ts + mfu * step_time) / (ts + step_time)
                self.prog["train_seconds"] = ts + step_time
                rec["mfu"] = round(mfu, 6)
        if self._write():
            with open(os.path.join(self.metrics_dir, "metrics.jsonl"), "a") as f:
                f.write(json.dumps(rec) + "\n")

    def done(self, step=None):
        """Call once at the end. After SIGUSR1/SIGTERM it leaves STOPPED in the run directory, so
        the batch script requeues the job (which resumes from the checkpoint); otherwise the run
        is finished."""
        if self.rank != 0:
            return
        if step is not None:
            self.prog["step"] = int(step)
        if self.should_stop:
            write_atomic(os.path.join(self.run_dir, STOPPED), json.dumps({"signal": self.stop_signal, "step": self.prog["step"]}))
        else:
            self.prog["finished"] = True
        self._write(force=True)

    def _write(self, force=False):
        if self.rank != 0:
            return False
        now = time.time()
        if not force and now - self._last_write < WRITE_EVERY:
            return False
        self._last_write = now
        self.prog["updated_at"] = now_iso(now)
        # indent=1 keeps "step" on a line of its own: the batch script reads it with sed.
        write_atomic(self._progress_path, json.dumps(self.prog, indent=1))
        return True
