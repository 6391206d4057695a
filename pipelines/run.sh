#!/usr/bin/env bash
# pipelines/run.sh ENV STAGE: one stage of an environment's Terraform pipeline. The CI definitions
# beside this script run the stages one after another; a person can run them by hand the same way.
# ENV is a blueprint of examples/blueprints (ml-dev, ml-staging, ml-prod). The stages:
#   validate  terraform fmt -check, validate, and the terraform tests of the modules ENV uses (those
#             run on a local cloud: HYPERCOMPUTE_EMULATOR_HOST's, else bin/hypercompute-emulator)
#   plan      a saved plan (tfplan) with its JSON (plan.json) and text; warns when the promotion
#             check (below) would refuse it
#   policy    bin/hypercompute-policy on plan.json; a passed plan is marked (policy.passed)
#   apply     exactly the saved plan, and only once policy passed it and the environments before
#             ENV in promotion.conf verified the same modules version; Terraform refuses a stale
#             plan (the state changed since it was made), and a run while another holds the lock
#   verify    a plan right after the apply must be empty; then records this modules version as
#             verified in ENV, which promotion.conf's later environments require
#   drift     plan -detailed-exitcode (scheduled): exit 0 when nothing drifted, 2 naming what did
# Exit status: 0 done; 1 refused or failed (policy violations, a stale plan, a held lock, errors);
# 2 from verify and drift: the plan is not empty.
#
# Environment:
#   HYPERCOMPUTE_EMULATOR_HOST  the local cloud (host:port): the provider talks to it, and the state
#                               lives in its Cloud Storage (backend/local.hcl and this endpoint)
#   PIPELINE_BACKEND_CONFIG     a backend config file instead of ENV's backend/ENV.hcl (or local.hcl)
#   PIPELINE_WORK_DIR           where a stage leaves its files for the next one (default .pipeline/ENV);
#                               CI passes tfplan, plan.json, plan.txt, plan.env and policy.passed on
#   PIPELINE_VAR_FILE           a .tfvars file for plan, verify and drift (TF_VAR_* work as ever)
#   PIPELINE_LOCK_TIMEOUT       how long to wait for another run's state lock (default 0s: refuse)
#   HYPERCOMPUTE_POLICY         the policy command (default bin/hypercompute-policy)
#   GOOGLE_OAUTH_ACCESS_TOKEN   token for the promotion records in Cloud Storage (default: gcloud's)
# The hypercompute provider is whatever the runner's Terraform CLI configuration installs.
set -euo pipefail

die() {
  echo "pipeline: $*" >&2
  exit 1
}
stages="validate plan policy apply verify drift"
[ $# -eq 2 ] || die "usage: pipelines/run.sh ENV STAGE (stages: $stages)"
env="$1" stage="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
blueprints="$root/examples/blueprints"
[[ "$env" =~ ^[a-z][a-z0-9-]*$ ]] && [ -d "$blueprints/$env" ] ||
  die "no environment \"$env\": environments are the blueprints of examples/blueprints: $(ls "$blueprints" | xargs)"
[[ " $stages " == *" $stage "* ]] || die "no stage \"$stage\": stages are $stages"
bp="$blueprints/$env"

abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
work="${PIPELINE_WORK_DIR:-$root/.pipeline/$env}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
export TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1
# Terraform's working files live with the stage's, not in the checkout: pipelines of two
# environments may share one checkout.
export TF_DATA_DIR="$work/.terraform"
lock_timeout="${PIPELINE_LOCK_TIMEOUT:-0s}"
tf() { terraform -chdir="$bp" "$@"; }

# The state backend: backend/ENV.hcl on Google Cloud, backend/local.hcl on the local cloud, whose
# endpoint only this run knows.
local_cloud="${HYPERCOMPUTE_EMULATOR_HOST:-}"
backend_of() { # backend_of ENV: the file naming ENV's state bucket and prefix
  if [ -n "$local_cloud" ]; then echo "$blueprints/$1/backend/local.hcl"; else echo "$blueprints/$1/backend/$1.hcl"; fi
}
backend="$(backend_of "$env")"
[ -z "${PIPELINE_BACKEND_CONFIG:-}" ] || backend="$(abspath "$PIPELINE_BACKEND_CONFIG")"
[ -f "$backend" ] || die "no backend configuration for $env: $backend does not exist"
backend_flags=(-backend-config="$backend")
if [ -n "$local_cloud" ]; then
  backend_flags+=(-backend-config="storage_custom_endpoint=http://$local_cloud/storage/v1/" -backend-config=access_token=local-cloud)
fi
var_flags=()
if [ -n "${PIPELINE_VAR_FILE:-}" ]; then
  [ -f "$PIPELINE_VAR_FILE" ] || die "PIPELINE_VAR_FILE $PIPELINE_VAR_FILE does not exist"
  var_flags=(-var-file="$(abspath "$PIPELINE_VAR_FILE")")
fi

init() {
  tf init -input=false -no-color -reconfigure "${backend_flags[@]}" >"$work/init.log" 2>&1 ||
    { cat "$work/init.log" >&2; die "terraform init of $env failed (backend $backend)"; }
}

# The modules version: a digest of the modules' Terraform sources, what promotion compares.
modules_version() {
  (cd "$root" && find modules -mindepth 2 -maxdepth 2 -type f -name '*.tf' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) |
    sha256sum | cut -c1-16
}
version="$(modules_version)"
commit="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"

# Promotion records: releases/<env>/<version>.json in each environment's state bucket, read and
# written through the Cloud Storage JSON API with the runner's credentials.
storage_api="https://storage.googleapis.com"
[ -z "$local_cloud" ] || storage_api="http://$local_cloud"
auth=""
authorize() { # sets auth, the header of the calls, once; the token is never printed
  [ -z "$auth" ] || return 0
  local token
  if [ -n "$local_cloud" ]; then
    token=local-cloud
  elif [ -n "${GOOGLE_OAUTH_ACCESS_TOKEN:-}" ]; then
    token="$GOOGLE_OAUTH_ACCESS_TOKEN"
  else
    token="$(gcloud auth print-access-token)" || die "no credentials for Cloud Storage: set GOOGLE_OAUTH_ACCESS_TOKEN or log gcloud in"
  fi
  auth="Authorization: Bearer $token"
}
bucket_in() { sed -n 's/^[[:space:]]*bucket[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -1; }
record() { echo "releases/$1/$version.json"; }

# check_promotion STAGE: apply refuses modules the environments before ENV did not verify; plan
# only warns, since a plan changes nothing (and a pull request plans every environment at once).
check_promotion() {
  local needs from bucket obj code missing
  needs="$(sed -n "s/^$env:[[:space:]]*//p" "$root/pipelines/promotion.conf")"
  [ -z "$needs" ] || authorize
  for from in $needs; do
    bucket="$(bucket_in "$(backend_of "$from")")"
    obj="$(record "$from")"
    code="$(curl -sS -o "$work/promotion-$from.json" -w '%{http_code}' -H "$auth" \
      "$storage_api/storage/v1/b/$bucket/o/${obj//\//%2F}")" || die "promotion: could not read gs://$bucket/$obj"
    case "$code" in
    200) echo "promotion: modules $version were verified in $from (gs://$bucket/$obj)" ;;
    404)
      missing="promotion: $env applies only modules that $needs verified first, and $from has not verified modules $version (this checkout's modules/, commit $commit): no gs://$bucket/$obj. Run $from's pipeline through verify on this revision first."
      [ "$1" = apply ] || { echo "$missing The apply stage will refuse this plan until then." >&2; continue; }
      die "$missing"
      ;;
    *) die "promotion: reading gs://$bucket/$obj answered HTTP $code: $(cat "$work/promotion-$from.json")" ;;
    esac
  done
}

record_verified() {
  local bucket obj
  authorize
  bucket="$(bucket_in "$backend")"
  obj="$(record "$env")"
  printf '{"environment":"%s","modules_version":"%s","commit":"%s","verified_at":"%s"}\n' \
    "$env" "$version" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$work/verified.json"
  curl -fsS -o /dev/null -X POST -H "$auth" -H 'Content-Type: application/json' --data-binary "@$work/verified.json" \
    "$storage_api/upload/storage/v1/b/$bucket/o?uploadType=media&name=${obj//\//%2F}" ||
    die "verify: could not record modules $version as verified in gs://$bucket/$obj"
  echo "verify: modules $version recorded as verified in $env (gs://$bucket/$obj)"
}

# The saved plan must be this environment's, made from these modules.
check_saved_plan() {
  [ -f "$work/tfplan" ] && [ -f "$work/plan.env" ] || die "no saved plan of $env in $work: run the plan stage first"
  local planned_env planned_version
  planned_env="$(sed -n 's/^environment=//p' "$work/plan.env")"
  planned_version="$(sed -n 's/^modules_version=//p' "$work/plan.env")"
  [ "$planned_env" = "$env" ] || die "the saved plan in $work is $planned_env's, not $env's"
  [ "$planned_version" = "$version" ] ||
    die "the saved plan was made from modules $planned_version, this checkout has modules $version: run the plan stage again"
}

plan_digest() { sha256sum <"$work/tfplan" | cut -d' ' -f1; }

# changes lists what a plan's text says changed or will change, one resource a line.
changes() { grep -E '^  # .* (has changed|has been deleted|will be|must be)' "$1" | sed 's/^  # /  /' || true; }

# The modules of modules/ that ENV's configuration uses (after init), each once.
used_modules() {
  local f="$TF_DATA_DIR/modules/modules.json" dir
  [ -f "$f" ] || return 0
  grep -o '"Dir":"[^"]*"' "$f" | sed 's/^"Dir":"//; s/"$//' | while read -r dir; do
    dir="$(cd "$bp" && cd "$dir" 2>/dev/null && pwd)" || continue
    case "$dir" in "$root"/modules/*) [ ! -d "$dir/tests" ] || echo "$dir" ;; esac
  done | sort -u
}

emu_pid=""
stop_emulator() { if [ -n "$emu_pid" ]; then kill "$emu_pid" 2>/dev/null || true; wait "$emu_pid" 2>/dev/null || true; fi; }
trap stop_emulator EXIT

# module_tests runs the terraform tests of the modules ENV uses on a local cloud: the one the
# pipeline runs against, or one of its own (bin/hypercompute-emulator, `make build`).
module_tests() {
  local mods host m name
  mods="$(used_modules)"
  if [ -z "$mods" ]; then
    echo "validate: $env uses no module of modules/: no module tests to run"
    return
  fi
  host="$local_cloud"
  if [ -z "$host" ]; then
    [ -x "$root/bin/hypercompute-emulator" ] ||
      die "validate: the modules' tests run on the local cloud: build it (make build) or set HYPERCOMPUTE_EMULATOR_HOST"
    "$root/bin/hypercompute-emulator" --listen 127.0.0.1:0 --op-latency 1ms --log-level warn >"$work/emulator.out" 2>"$work/emulator.log" &
    emu_pid=$!
    for _ in $(seq 1 100); do
      host="$(sed -n 's/^hypercompute-emulator listening on //p' "$work/emulator.out")"
      [ -z "$host" ] || break
      kill -0 "$emu_pid" 2>/dev/null || { cat "$work/emulator.log" >&2; die "validate: the local cloud did not start"; }
      sleep 0.1
    done
    [ -n "$host" ] || die "validate: the local cloud did not report its address"
  fi
  bash "$root/tools/module-test-fixtures.sh" "$host"
  while read -r m; do
    name="${m#"$root"/}"
    export TF_DATA_DIR="$work/.terraform-modules/$(basename "$m")"
    terraform -chdir="$m" init -input=false -no-color -backend=false >"$work/module-test.log" 2>&1 &&
      HYPERCOMPUTE_EMULATOR_HOST="$host" terraform -chdir="$m" test -no-color >>"$work/module-test.log" 2>&1 ||
      { cat "$work/module-test.log" >&2; die "validate: the terraform tests of $name failed"; }
    echo "validate: $name: $(grep -E '^(Success|Failure)!' "$work/module-test.log" | tail -1)"
  done <<<"$mods"
  export TF_DATA_DIR="$work/.terraform"
}

stage_validate() {
  local unformatted
  unformatted="$(terraform fmt -check -recursive -no-color "$bp" "$root/modules" 2>&1)" ||
    die "validate: terraform fmt -check: these files need terraform fmt: $(echo "$unformatted" | xargs)"
  tf init -input=false -no-color -backend=false >"$work/init.log" 2>&1 ||
    { cat "$work/init.log" >&2; die "validate: terraform init of $env failed"; }
  tf validate -no-color
  module_tests
}

stage_plan() {
  check_promotion plan
  init
  rm -f "$work/tfplan" "$work/plan.json" "$work/plan.txt" "$work/plan.env" "$work/policy.passed"
  tf plan -input=false -no-color -lock-timeout="$lock_timeout" "${var_flags[@]}" -out="$work/tfplan" 2>&1 | tee "$work/plan.txt" ||
    die "terraform plan of $env failed"
  tf show -json "$work/tfplan" >"$work/plan.json"
  printf 'environment=%s\nmodules_version=%s\ncommit=%s\nplanned_at=%s\n' \
    "$env" "$version" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$work/plan.env"
  echo "plan: $env's saved plan is $work/tfplan (modules $version, commit $commit)"
}

stage_policy() {
  check_saved_plan
  [ -f "$work/plan.json" ] || die "no plan.json of $env in $work: run the plan stage first"
  local policy="${HYPERCOMPUTE_POLICY:-$root/bin/hypercompute-policy}" rc=0
  command -v "$policy" >/dev/null || die "policy: $policy is not built: make build (or set HYPERCOMPUTE_POLICY)"
  "$policy" check -env "$env" -plan "$work/plan.json" || rc=$?
  case "$rc" in
  0)
    plan_digest >"$work/policy.passed"
    echo "policy: $env's plan passed"
    ;;
  1) die "policy: $env's plan breaks the rules above; nothing was applied. Change the configuration and plan again." ;;
  *) die "policy: the check could not run (exit $rc)" ;;
  esac
}

stage_apply() {
  check_saved_plan
  [ -f "$work/policy.passed" ] && [ "$(cat "$work/policy.passed")" = "$(plan_digest)" ] ||
    die "apply: $env's saved plan has not passed the policy stage: run policy on it first"
  check_promotion apply
  init
  local rc=0
  tf apply -input=false -no-color -lock-timeout="$lock_timeout" "$work/tfplan" 2>&1 | tee "$work/apply.txt" || rc=$?
  if [ "$rc" = 0 ]; then
    # A saved plan applies once; Terraform would refuse it as stale anyway.
    rm -f "$work/policy.passed"
    return
  fi
  if grep -q 'Saved plan is stale' "$work/apply.txt"; then
    die "apply: $env's saved plan is stale: its state changed after the plan was made (another apply ran). Nothing was applied; run plan and policy again."
  fi
  if grep -q 'Error acquiring the state lock' "$work/apply.txt"; then
    die "apply: another run holds $env's state lock (its ID, Who and Created are in the Lock Info above); nothing was applied. Wait for it, or, if that run died, release the lock with terraform force-unlock ID (docs/guides/pipelines.md)."
  fi
  die "apply: terraform apply of $env failed"
}

# settled STAGE WHY: init, then plan -detailed-exitcode into STAGE.txt. Returns when the plan is
# empty; exits 2 when it is not (printing the plan, then WHY and each resource it changes), 1 on errors.
settled() {
  init
  local rc=0
  tf plan -input=false -no-color -detailed-exitcode -lock-timeout="$lock_timeout" "${var_flags[@]}" >"$work/$1.txt" 2>&1 || rc=$?
  case "$rc" in
  0) return ;;
  2)
    cat "$work/$1.txt"
    echo "$1: $2" >&2
    changes "$work/$1.txt" >&2
    exit 2
    ;;
  esac
  cat "$work/$1.txt" >&2
  die "$1: terraform plan of $env failed"
}

stage_verify() {
  settled verify "the plan right after the apply is not empty; $env does not settle:"
  echo "verify: $env plans no change after the apply"
  record_verified
}

stage_drift() {
  settled drift "$env differs from its configuration; what drifted and what an apply would do:"
  echo "drift: $env matches its configuration"
}

"stage_$stage"
