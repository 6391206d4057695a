#!/usr/bin/env bash
# The modules' `terraform test` suites and the blueprints' validate + plan, against an API-only
# local cloud (no VM boots, so cluster and partition tests are plan-only). Run by `make test`, which
# also applies the blueprints: internal/blueprints (ml-staging, ml-prod) and make demo (ml-dev).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Always through make: Go's build cache makes it a few seconds when nothing changed, and the
# tests never run a stale provider.
make --no-print-directory build >/dev/null
source tools/terraform-env.sh
work="$(mktemp -d "${TMPDIR:-/tmp}/hc-module-tests.XXXXXX")"
emu=""
stop() {
  if [ -n "$emu" ]; then kill "$emu" 2>/dev/null || true; wait "$emu" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap stop EXIT

# Port 0: the emulator picks a free port and prints it, so parallel runs never collide.
bin/hypercompute-emulator --listen 127.0.0.1:0 --op-latency 1ms --log-level warn \
  --state-file "$work/emulator-state.json" >"$work/emulator.out" 2>"$work/emulator.log" &
emu=$!
addr=""
for _ in $(seq 1 100); do
  addr="$(sed -n 's/^hypercompute-emulator listening on //p' "$work/emulator.out")"
  [ -n "$addr" ] && break
  kill -0 "$emu" 2>/dev/null || { cat "$work/emulator.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { echo "the emulator did not report its address" >&2; cat "$work/emulator.log" >&2; exit 1; }
export HYPERCOMPUTE_EMULATOR_HOST="$addr"

# The reservations the tests and ml-prod consume: a partition's plan checks its reservation's capacity.
seed_reservation() { # seed_reservation PROJECT NAME
  curl -fsS -X POST "http://$addr/emulator/v1/reservations" -H 'Content-Type: application/json' -d "{
    \"project\": \"$1\", \"zone\": \"us-central1-a\", \"reservation\": {\"name\": \"$2\",
    \"specificReservationRequired\": true, \"specificReservation\": {\"count\": \"16\",
    \"instanceProperties\": {\"machineType\": \"a3-megagpu-8g\"}}}}" >/dev/null
}
seed_reservation ml-capacity a3mega
seed_reservation ml-capacity a3mega-us-central1-a
seed_reservation modtest-cluster a3mega-res

failed=()
passed=0
run() { # run NAME CMD...: prints the output only when the step fails
  local name="$1" out
  shift
  if out="$("$@" 2>&1)"; then
    echo "ok    $name"
    passed=$((passed + 1))
  else
    echo "FAIL  $name"
    echo "$out" | sed 's/^/      /'
    failed+=("$name")
  fi
}
# The mirror's binary is rebuilt at one version; a stale lock file's checksum would refuse it.
init() { rm -f "$1/.terraform.lock.hcl"; terraform -chdir="$1" init -input=false -no-color -backend=false; }

run "fmt modules" terraform fmt -check -recursive modules
for m in modules/*/; do
  m="${m%/}"
  run "init $m" init "$m"
  run "test $m" terraform -chdir="$m" test -no-color
  run "init $m/examples/basic" init "$m/examples/basic"
  run "validate $m/examples/basic" terraform -chdir="$m/examples/basic" validate -no-color
done

# Blueprints: validate, then plan against the local cloud (a plan never fetches the agent).
export TF_VAR_agent='{url="file:///opt/hypercompute/hypercompute-agent",sha256="0000000000000000000000000000000000000000000000000000000000000000"}'
export TF_VAR_a3mega_reservation="projects/ml-capacity/reservations/a3mega-us-central1-a"
for bp in examples/blueprints/*/; do
  bp="${bp%/}"
  name="$(basename "$bp")"
  run "init $bp" init "$bp"
  run "validate $bp" terraform -chdir="$bp" validate -no-color
  run "plan $bp" terraform -chdir="$bp" plan -input=false -no-color -lock=false \
    -state="$work/$name.tfstate" -var "project_id=bp-$name"
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "module tests failed: ${failed[*]}" >&2
fi
echo "modules: $passed passed, ${#failed[@]} failed"
[ "${#failed[@]}" -eq 0 ]
