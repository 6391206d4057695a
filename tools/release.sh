#!/usr/bin/env bash
# Release build: tools/release.sh VERSION (without the leading v).
#
# Produces the artifacts the Terraform Registry (or any provider mirror) consumes, named exactly as
# .goreleaser.yml names them, with nothing but Go, zip, tar and sha256sum:
#   dist-agents/hypercompute-agent_<v>_linux_{amd64,arm64}   the node agents (published as they are)
#   dist/terraform-provider-hypercompute_<v>_<os>_<arch>.zip  holding terraform-provider-hypercompute_v<v>[.exe]
#   dist/hypercompute-tools_<v>_<os>_<arch>.tar.gz            holding hypercompute-emulator
#   dist/terraform-provider-hypercompute_<v>_manifest.json    terraform-registry-manifest.json
#   dist/terraform-provider-hypercompute_<v>_SHA256SUMS       the zips, tarballs and manifest
#   dist/terraform-provider-hypercompute_<v>_SHA256SUMS.sig   only with GPG_FINGERPRINT set
# The agents are built first so their SHA-256 digests can be baked into the provider
# (internal/release): a VM's launcher refuses any agent whose digest differs from its node config's.
#
# Environment:
#   RELEASE_PLATFORMS  os_arch list (spaces or commas) to build, default all of .goreleaser.yml's
#                      (provider: linux darwin windows freebsd; tools: linux darwin; amd64 and arm64).
#   RELEASE_AGENT_ARCHES  agent architectures, default "amd64 arm64". A provider built without an
#                      arm64 agent names no default agent for Arm clusters (A4X): for tests only.
#   RELEASE_TOOLS=0    no hypercompute-tools tarballs (for tests: the emulator build is the slowest).
#   RELEASE_DIR        where dist/ and dist-agents/ go (default: the repository root).
#   GPG_FINGERPRINT    key that signs SHA256SUMS (detached, gpg --batch). Unset: no signature, which a
#                      mirror does not need but the public Terraform Registry does.
#   RELEASE_WITH_GORELEASER=1  run `goreleaser release --clean` instead (goreleaser on PATH; it
#                      publishes to GitHub). No goreleaser ships with this repository.
set -euo pipefail
die() { echo "release.sh: $*" >&2; exit 1; }

version="${1:-}"
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  die "usage: tools/release.sh VERSION — a semantic version without the leading v, such as 0.1.0 (got '${version}')"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${RELEASE_DIR:-$root}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
dist="$out/dist" agents="$out/dist-agents"

project=terraform-provider-hypercompute
pkg=github.com/hypercompute/terraform-provider-hypercompute/internal/release
provider_platforms=(linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64 freebsd_amd64 freebsd_arm64)
tools_platforms=(linux_amd64 linux_arm64 darwin_amd64 darwin_arm64)

wanted=("${provider_platforms[@]}")
if [[ -n ${RELEASE_PLATFORMS:-} ]]; then
  read -r -a wanted <<<"${RELEASE_PLATFORMS//,/ }"
  for p in "${wanted[@]}"; do
    [[ " ${provider_platforms[*]} " == *" $p "* ]] ||
      die "RELEASE_PLATFORMS: '$p' is not a platform of .goreleaser.yml (${provider_platforms[*]})"
  done
fi
want() { [[ " ${wanted[*]} " == *" $1 "* ]]; }
read -r -a agent_arches <<<"${RELEASE_AGENT_ARCHES:-amd64 arm64}"
for a in "${agent_arches[@]}"; do
  [[ $a == amd64 || $a == arm64 ]] || die "RELEASE_AGENT_ARCHES: '$a' is not an agent architecture (amd64, arm64)"
done
[[ " ${agent_arches[*]} " == *" amd64 "* ]] ||
  die "RELEASE_AGENT_ARCHES must hold amd64: the provider's default agent for x86 clusters is part of every release"
[[ ${#wanted[@]} -gt 0 ]] || die "RELEASE_PLATFORMS names no platform"

for tool in zip tar sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is not installed (Debian: apt-get install $tool; scripts/install-deps.sh installs it)"
done

rm -rf "$agents" && mkdir -p "$agents"
export AGENT_SHA256_AMD64="" AGENT_SHA256_ARM64=""
for arch in "${agent_arches[@]}"; do
  bin="$agents/hypercompute-agent_${version}_linux_${arch}"
  CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -buildvcs=false \
    -ldflags "-s -w -X main.version=${version}" -o "$bin" ./cmd/hypercompute-agent
  sum="$(sha256sum "$bin" | cut -d' ' -f1)"
  export "AGENT_SHA256_${arch^^}=$sum"
  echo "$sum  $(basename "$bin")"
done

[[ -n $AGENT_SHA256_ARM64 ]] || echo "warning: no arm64 agent: this provider names no default agent for Arm (A4X) clusters" >&2

if [[ ${RELEASE_WITH_GORELEASER:-} == 1 ]]; then
  [[ $out == "$root" ]] || die "RELEASE_DIR is not supported with goreleaser (it writes dist/ and reads dist-agents/ in the repository)"
  command -v goreleaser >/dev/null || die "RELEASE_WITH_GORELEASER=1 but goreleaser is not on PATH"
  exec goreleaser release --clean
fi

# goreleaser's {{ .CommitTimestamp }} (mod_timestamp) on every file, in UTC, so the same commit
# gives the same zips and the same SHA256SUMS.
stamp="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}"
export TZ=UTC
# What goreleaser puts into every archive besides the binary (its default archive files).
extras=()
for f in LICENSE* README* CHANGELOG* license* readme* changelog*; do
  [[ -f $f ]] && [[ " ${extras[*]} " != *" $f "* ]] && extras+=("$f")
done

rm -rf "$dist" && mkdir -p "$dist"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# archive BUILD_DIR ARCHIVE: the binary and the extra files, flat, with the commit's timestamp.
archive() {
  local dir="$1" file="$2"
  [[ ${#extras[@]} -eq 0 ]] || cp "${extras[@]}" "$dir/"
  find "$dir" -exec touch -d "@$stamp" {} +
  case "$file" in
    *.zip) (cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | zip -q -X -D "$file" -@) ;;
    *.tar.gz) (cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort |
      tar --owner=0 --group=0 --numeric-owner --mtime="@$stamp" -T - -cf - | gzip -n >"$file") ;;
  esac
}

ldflags="-s -w -X main.version=${version} -X ${pkg}.Version=${version}"
ldflags+=" -X ${pkg}.AgentSHA256AMD64=${AGENT_SHA256_AMD64} -X ${pkg}.AgentSHA256ARM64=${AGENT_SHA256_ARM64}"
for plat in "${provider_platforms[@]}"; do
  want "$plat" || continue
  os="${plat%_*}" arch="${plat#*_}" ext=""
  [[ $os == windows ]] && ext=".exe"
  dir="$stage/provider_$plat" && mkdir -p "$dir"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath -buildvcs=false -ldflags "$ldflags" \
    -o "$dir/${project}_v${version}${ext}" .
  archive "$dir" "$dist/${project}_${version}_${plat}.zip"
done
for plat in "${tools_platforms[@]}"; do
  want "$plat" && [[ ${RELEASE_TOOLS:-1} != 0 ]] || continue
  os="${plat%_*}" arch="${plat#*_}"
  dir="$stage/tools_$plat" && mkdir -p "$dir"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath -buildvcs=false \
    -ldflags "-s -w -X main.version=${version}" -o "$dir/hypercompute-emulator" ./cmd/hypercompute-emulator
  archive "$dir" "$dist/hypercompute-tools_${version}_${plat}.tar.gz"
done
cp terraform-registry-manifest.json "$dist/${project}_${version}_manifest.json"

sums="${project}_${version}_SHA256SUMS"
(cd "$dist" && find . -maxdepth 1 -type f ! -name "$sums" | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >"$sums")
if [[ -n ${GPG_FINGERPRINT:-} ]]; then
  gpg --batch --local-user "$GPG_FINGERPRINT" --output "$dist/$sums.sig" --detach-sign "$dist/$sums"
  echo "signed $sums with $GPG_FINGERPRINT"
else
  echo "$sums is not signed (GPG_FINGERPRINT unset): enough for a provider mirror, not for the Terraform Registry"
fi
cat "$dist/$sums"
echo "release $version in $dist (agents in $agents)"
