#!/usr/bin/env bash
# make demo: start the local cloud with its local runtime (emulated VMs boot as real hosts running
# the production payload and Debian's Slurm), apply the ml-dev blueprint — network, Filestore /home,
# Managed Lustre, a Slurm cluster and a CPU training run (the tiny-gpt recipe, to completion) — show
# the outputs, what the local cloud holds, `sinfo` on the login VM and the run's loss curve; check
# that the plan is empty, grow the debug partition in place and check again; then destroy and check
# that the local cloud holds nothing the apply made. KEEP=1 leaves the environment and the emulator
# running.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "$(id -u)" != 0 ]; then
  echo "make demo boots the cluster's VMs as local hosts (network namespaces), which needs root." >&2
  exit 1
fi
bash scripts/install-deps.sh >/dev/null
source tools/terraform-env.sh
listen="${HYPERCOMPUTE_EMULATOR_LISTEN:-127.0.0.1:8780}"
work="$root/.tmp/demo"
if curl -sf "http://$listen/emulator/v1/healthz" >/dev/null 2>&1; then
  echo "Something already serves $listen (a demo left running with KEEP=1?). Destroy it as that run printed, then stop it." >&2
  exit 1
fi
# Every demo starts from an empty local cloud and an empty Terraform state.
rm -rf "$work" && mkdir -p "$work"
bin/hypercompute-emulator --listen "$listen" --runtime local --state-file "$work/emulator-state.json" >"$work/emulator.log" 2>&1 &
emu=$!
stop() { if [ "${KEEP:-0}" != 1 ]; then kill "$emu" 2>/dev/null || true; wait "$emu" 2>/dev/null || true; fi; }
trap stop EXIT
for _ in $(seq 1 100); do
  curl -sf "http://$listen/emulator/v1/healthz" >/dev/null && break
  kill -0 "$emu" 2>/dev/null || { cat "$work/emulator.log"; exit 1; }
  sleep 0.1
done
export HYPERCOMPUTE_EMULATOR_HOST="$listen"
bp=examples/blueprints/ml-dev
rm -f "$bp/.terraform.lock.hcl"
tf() { terraform -chdir="$bp" "$@"; }
# Publish this build's agent as a release does, to a bucket by digest: the VMs fetch it through the
# local cloud's Cloud Storage, so nothing depends on where this checkout lies (VMs have a private /tmp).
sum="$(sha256sum bin/hypercompute-agent | cut -d' ' -f1)"
bucket=hypercompute-demo-agents object="agents/$sum/hypercompute-agent"
curl -sf -X POST -H 'Content-Type: application/json' -d "{\"name\":\"$bucket\"}" \
  "http://$listen/storage/v1/b?project=hypercompute-demo" >/dev/null
curl -sf -X POST -H 'Content-Type: application/octet-stream' --data-binary @bin/hypercompute-agent \
  "http://$listen/upload/storage/v1/b/$bucket/o?uploadType=media&name=$object" >/dev/null
agent="{url=\"gs://$bucket/$object\",sha256=\"$sum\"}"
vars=(-var project_id=hypercompute-demo -var deletion_protection=false -var "agent=$agent")
echo "==> local cloud at $listen with the local runtime (log: $work/emulator.log)"
# The blueprint's state lives where a team's does, in a versioned Cloud Storage bucket (the gcs
# backend), here the local cloud's: backend/local.hcl names the bucket, the endpoint is the emulator.
state_bucket=hypercompute-tfstate
curl -sf -X POST -H 'Content-Type: application/json' -d "{\"name\":\"$state_bucket\",\"versioning\":{\"enabled\":true}}" \
  "http://$listen/storage/v1/b?project=hypercompute-demo" >/dev/null
tf init -input=false -no-color -reconfigure -backend-config=backend/local.hcl \
  -backend-config="storage_custom_endpoint=http://$listen/storage/v1/" -backend-config=access_token=local-cloud >/dev/null
# The apply ends with the blueprint's outputs.
tf apply -input=false -auto-approve "${vars[@]}"
echo "==> what the local cloud holds"
curl -s "http://$listen/emulator/v1/inventory" | jq -r '.kinds | to_entries[] | .key as $k | .value[] | "  \($k)\t\(.name)"' | column -t
login="$(tf output -raw ssh_command | awk '{print $4}')"
echo "==> sinfo on $login (the emulator's :exec is what gcloud compute ssh is on Google Cloud)"
curl -sf -X POST "http://$listen/emulator/v1/projects/hypercompute-demo/zones/us-central1-a/instances/$login:exec" \
  -d '{"argv":["bash","-lc","sinfo; echo; echo \"$ srun -N2 -p debug hostname\"; srun -N2 -p debug hostname"]}' | jq -r '.stdout, .stderr'
echo "==> the tiny-gpt training run (hypercompute_recipe_job: real PyTorch DDP over gloo on two debug nodes)"
tf output -json training | jq -r '
  "  Slurm job \(.job_id): \(.state) after \(.steps) steps",
  "  loss \(.first_loss * 1000 | round / 1000) at the first step -> \(.last_loss * 1000 | round / 1000) at the last",
  "  \(.checkpoints) checkpoints, the newest at step \(.last_checkpoint_step), in \(.checkpoint_directory)",
  "  log: \(.log_path)"'
# An applied environment must plan nothing, before and after an in-place change: a plan that never
# settles would have every later apply touch the cluster.
settled() { # settled WHEN
  local rc=0
  tf plan -input=false -no-color -detailed-exitcode "${vars[@]}" >"$work/plan.txt" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    cat "$work/plan.txt"
    echo "terraform plan -detailed-exitcode $1 exited $rc, not 0 (2: changes, 1: an error)" >&2
    exit 1
  fi
  echo "  terraform plan $1: no changes"
}
echo "==> the applied environment plans nothing"
settled "after the apply"
echo "==> an in-place change: the debug partition grows from 2 to 3 static nodes (a real VM boots and registers with Slurm)"
vars+=(-var debug_nodes=3)
tf apply -input=false -auto-approve -no-color "${vars[@]}" >"$work/apply-change.txt" 2>&1 || { cat "$work/apply-change.txt"; exit 1; }
grep -q 'Resources: 0 added, 1 changed, 0 destroyed' "$work/apply-change.txt" || {
  cat "$work/apply-change.txt"
  echo "the node count change was not one in-place update" >&2
  exit 1
}
settled "after the in-place change"
if [ "${KEEP:-0}" = 1 ]; then
  echo "==> KEEP=1: left running. Emulator pid $emu at $listen; Terraform state in gs://$state_bucket/hypercompute/ml-dev there."
  echo "    export HYPERCOMPUTE_EMULATOR_HOST=$listen TF_CLI_CONFIG_FILE=$TF_CLI_CONFIG_FILE"
  echo "    terraform -chdir=$bp destroy ${vars[*]}"
  exit 0
fi
echo "==> destroying"
tf destroy -input=false -auto-approve -no-color "${vars[@]}" | grep -E 'Destr|Error'
# Nothing the apply made may outlive the destroy; the agent's bucket and the state bucket are the
# demo's own.
left="$(curl -sf "http://$listen/emulator/v1/inventory" | jq -r --arg b "$bucket" --arg s "$state_bucket" \
  '.kinds | to_entries[] | .key as $k | .value[] | select(($k == "storage.buckets" and (.name == $b or .name == $s)) | not) | "  \($k)\t\(.name)"')"
if [ -n "$left" ]; then
  echo "after the destroy the local cloud still holds:" >&2
  echo "$left" >&2
  exit 1
fi
echo "==> the local cloud holds nothing the apply made"
