#!/usr/bin/env bash
# Installs the Debian packages the tests need: real Slurm and munge for the local
# runtime and the Slurm integration tests, plus the namespace and process tools the
# emulator's local runtime drives, and Cloud Storage FUSE (gcsfuse), built once
# from its Go module. Safe to run repeatedly: when every package is installed and
# gcsfuse is at its version it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(
  # Slurm 22.05 and munge (see docs on the local cloud; versions are Debian 12's).
  munge slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin libpmix2 libpmix-dev
  # Slurm accounting: slurmdbd and the MariaDB it stores into, run inside the controller VM.
  slurmdbd mariadb-server mariadb-client
  # Tools the local runtime and its tests use inside emulated hosts.
  jq iproute2 util-linux procps psmisc curl netcat-openbsd bsdextrautils
  # FUSE for gcsfuse (fusermount3), which the local runtime's `mount -t gcsfuse` runs.
  fuse3
  # PyTorch for the CPU training recipe (tiny-gpt, run with /usr/bin/python3).
  python3-torch python3-numpy
  # Prometheus 2.42 and promtool: the controller's Prometheus on the local runtime, and
  # `promtool check/test rules` on the shipped alert rules.
  prometheus
  # tools/release.sh packs the provider's release zips; the registry test runs it.
  zip git
  # Headless Chromium renders the goodput report page in its browser test (internal/report).
  chromium
)

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps.sh: must run as root (it installs Debian packages)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "install-deps.sh: apt-get not found; install by hand: ${packages[*]}" >&2
  exit 1
fi

# Cloud Storage FUSE is not packaged for Debian 12: build the real one from its Go
# module into a fixed path, once. It needs a newer Go than this project, which
# GOTOOLCHAIN=auto fetches through the Go module proxy (about 4 minutes on 2 cores).
gcsfuse_version=v3.13.0
gcsfuse_bin=/usr/local/bin/gcsfuse
# .ci/run puts /usr/local/go/bin on PATH only after this script.
go=$(command -v go || true)
[[ -z $go && -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go
if [[ -z $go ]]; then
  echo "install-deps.sh: go not found; gcsfuse is not built and the tests that mount buckets will skip" >&2
elif "$go" version -m "$gcsfuse_bin" 2>/dev/null |
  grep -Eq "^[[:space:]]*mod[[:space:]]+github.com/googlecloudplatform/gcsfuse/v3[[:space:]]+$gcsfuse_version([[:space:]]|$)"; then
  echo "install-deps.sh: gcsfuse $gcsfuse_version already installed"
else
  echo "install-deps.sh: building gcsfuse $gcsfuse_version into $gcsfuse_bin"
  gobin=$(mktemp -d)
  (cd "$gobin" && GOTOOLCHAIN=auto GOBIN="$gobin" "$go" install "github.com/googlecloudplatform/gcsfuse/v3@$gcsfuse_version")
  install -m 0755 "$gobin/gcsfuse" "$gcsfuse_bin"
  rm -rf "$gobin"
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps.sh: all packages already installed"
  exit 0
fi

# Package maintainer scripts would start munge and the Slurm daemons on the CI host;
# the tests start their own, so tell invoke-rc.d to start nothing while installing.
policy=/usr/sbin/policy-rc.d
created_policy=false
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  created_policy=true
fi
cleanup() { if $created_policy; then rm -f "$policy"; fi; }
trap cleanup EXIT

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
