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
bash tools/module-test-fixtures.sh "$addr"

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

# Blueprints: validate, then plan against the local cloud (a plan never fetches the agent), with
# their state in the local cloud's Cloud Storage as backend/local.hcl names it.
curl -fsS -X POST "http://$addr/storage/v1/b?project=hypercompute-state" -H 'Content-Type: application/json' \
  -d '{"name": "hypercompute-tfstate", "versioning": {"enabled": true}}' >/dev/null
init_backend() { # init_backend DIR: the blueprint's gcs backend on the local cloud
  rm -f "$1/.terraform.lock.hcl"
  terraform -chdir="$1" init -input=false -no-color -reconfigure -backend-config=backend/local.hcl \
    -backend-config="storage_custom_endpoint=http://$addr/storage/v1/" -backend-config=access_token=local-cloud
}
export TF_VAR_agent='{url="file:///opt/hypercompute/hypercompute-agent",sha256="0000000000000000000000000000000000000000000000000000000000000000"}'
export TF_VAR_a3mega_reservation="projects/ml-capacity/reservations/a3mega-us-central1-a"
for bp in examples/blueprints/*/; do
  bp="${bp%/}"
  name="$(basename "$bp")"
  run "init $bp" init_backend "$bp"
  run "validate $bp" terraform -chdir="$bp" validate -no-color
  run "plan $bp" terraform -chdir="$bp" plan -input=false -no-color -var "project_id=bp-$name"
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "module tests failed: ${failed[*]}" >&2
fi
echo "modules: $passed passed, ${#failed[@]} failed"
[ "${#failed[@]}" -eq 0 ]
