#!/usr/bin/env bash
# Builds the node agents for a release, exports their digests and runs goreleaser, which bakes the
# digests into the provider (internal/release) and publishes the agents next to it under the names
# release.AgentURL expects: hypercompute-agent_<version>_linux_<arch>.
set -euo pipefail
version="${1:?usage: tools/release.sh VERSION (without the leading v)}"
cd "$(dirname "$0")/.."
rm -rf dist-agents && mkdir -p dist-agents
for arch in amd64 arm64; do
  out="dist-agents/hypercompute-agent_${version}_linux_${arch}"
  CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -buildvcs=false \
    -ldflags "-s -w -X main.version=${version}" -o "$out" ./cmd/hypercompute-agent
  sum="$(sha256sum "$out" | cut -d' ' -f1)"
  export "AGENT_SHA256_${arch^^}=$sum"
  echo "$sum  $(basename "$out")"
done
goreleaser release --clean
