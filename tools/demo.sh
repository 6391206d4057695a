#!/usr/bin/env bash
# make demo: start the local cloud, apply the ml-dev blueprint against it, show the outputs and
# what the emulator holds, then destroy. KEEP=1 leaves the environment and the emulator running.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source tools/terraform-env.sh
listen="${HYPERCOMPUTE_EMULATOR_LISTEN:-127.0.0.1:8780}"
work="$root/.tmp/demo"
mkdir -p "$work"
bin/hypercompute-emulator --listen "$listen" --state-file "$work/emulator-state.json" >"$work/emulator.log" 2>&1 &
emu=$!
stop() { if [ "${KEEP:-0}" != 1 ]; then kill "$emu" 2>/dev/null || true; wait "$emu" 2>/dev/null || true; fi; }
trap stop EXIT
for _ in $(seq 1 100); do
  curl -sf "http://$listen/emulator/v1/calls" >/dev/null && break
  kill -0 "$emu" 2>/dev/null || { cat "$work/emulator.log"; exit 1; }
  sleep 0.1
done
export HYPERCOMPUTE_EMULATOR_HOST="$listen"
bp=examples/blueprints/ml-dev
rm -f "$bp/.terraform.lock.hcl"
tf() { terraform -chdir="$bp" "$@"; }
echo "==> local cloud at $listen (log: $work/emulator.log)"
tf init -input=false -no-color >/dev/null
tf apply -input=false -auto-approve -var project_id=hypercompute-demo -var deletion_protection=false -state="$work/terraform.tfstate"
echo "==> outputs"
tf output -state="$work/terraform.tfstate"
echo "==> what the local cloud holds"
curl -s "http://$listen/emulator/v1/inventory" | jq -r '.kinds | to_entries[] | .key as $k | .value[] | "  \($k)\t\(.name)"' | column -t
if [ "${KEEP:-0}" = 1 ]; then
  echo "==> KEEP=1: left running. Emulator pid $emu at $listen; state in $work."
  echo "    export HYPERCOMPUTE_EMULATOR_HOST=$listen; terraform -chdir=$bp destroy -var project_id=hypercompute-demo -var deletion_protection=false -state=$work/terraform.tfstate"
  exit 0
fi
echo "==> destroying"
tf destroy -input=false -auto-approve -no-color -var project_id=hypercompute-demo -var deletion_protection=false -state="$work/terraform.tfstate" | grep -E 'Destr|Error' 
