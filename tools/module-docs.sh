#!/usr/bin/env bash
# Writes the Requirements/Inputs/Outputs tables of every module's README with terraform-docs
# (between the BEGIN_TF_DOCS/END_TF_DOCS markers), or with --check fails when one is stale.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
check=()
[ "${1:-}" = "--check" ] && check=(--output-check)
stale=()
for dir in modules/*/; do
  dir="${dir%/}"
  grep -q 'BEGIN_TF_DOCS' "$dir/README.md" || { echo "$dir/README.md has no BEGIN_TF_DOCS marker" >&2; exit 1; }
  if ! out="$(go tool terraform-docs -c .terraform-docs.yml "${check[@]}" "$dir" 2>&1)"; then
    stale+=("$dir")
    [ ${#check[@]} -gt 0 ] || { echo "$out" >&2; exit 1; }
  fi
done
if [ ${#stale[@]} -gt 0 ]; then
  echo "module READMEs out of date (run make module-docs): ${stale[*]}" >&2
  exit 1
fi
