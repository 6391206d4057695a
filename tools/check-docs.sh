#!/usr/bin/env bash
# Fails when docs/ differs from what tfplugindocs generates from the current schemas,
# examples/ and templates/ — so a schema change without `make docs` cannot land.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.tmp/docs-check # tfplugindocs resolves its output dir relative to the provider dir
rm -rf "$out" && mkdir -p .tmp
trap 'rm -rf "$out"' EXIT
go tool tfplugindocs generate --provider-name hypercompute --rendered-website-dir "$out" >.tmp/docs-check.log 2>&1 \
  || { cat .tmp/docs-check.log; exit 1; }
if ! diff -ru docs "$out"; then
  echo "docs/ is stale: run 'make docs' and commit the result" >&2
  exit 1
fi
echo "docs/ is up to date"
