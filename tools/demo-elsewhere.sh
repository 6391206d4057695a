#!/usr/bin/env bash
# Runs `make demo` from a copy of this checkout under /tmp, on a port of its own: the demo must not
# depend on where the repository lies (local-cloud VMs have a private /tmp, so an agent fetched by
# file path from there would never start). Run by `make test`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
copy="$(mktemp -d /tmp/hc-checkout.XXXXXX)"
trap 'rm -rf "$copy"' EXIT
# What a clone holds: tracked files and new files git does not ignore (no bin/, no .tmp/).
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c '[ -e "$1" ] && printf "%s\0" "$1" || true' _ {} |
  tar --null -T - -cf - | tar -C "$copy" -xf -
port=$((18000 + RANDOM % 2000))
log="$root/.tmp/demo-elsewhere.log"
mkdir -p "$root/.tmp"
echo "make demo from $copy (port $port; log $log)"
if ! HYPERCOMPUTE_EMULATOR_LISTEN="127.0.0.1:$port" make -C "$copy" --no-print-directory demo >"$log" 2>&1; then
  tail -60 "$log" >&2
  echo "make demo failed from a checkout under /tmp" >&2
  exit 1
fi
# The demo's own proof that the cluster worked: the training run finished and Slurm ran a job.
grep -q 'COMPLETED after' "$log" || { tail -40 "$log" >&2; echo "the demo's training run did not complete" >&2; exit 1; }
echo "ok    make demo from a checkout under /tmp"
