#!/usr/bin/env bash
# Installs the Debian packages the tests need: real Slurm and munge for the local
# runtime and the Slurm integration tests, plus the namespace and process tools the
# emulator's local runtime drives. Safe to run repeatedly: when every package is
# already installed it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(
  # Slurm 22.05 and munge (see docs on the local cloud; versions are Debian 12's).
  munge slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin libpmix2 libpmix-dev
  # Tools the local runtime and its tests use inside emulated hosts.
  jq iproute2 util-linux procps psmisc curl netcat-openbsd bsdextrautils
)

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps.sh: must run as root (it installs Debian packages)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "install-deps.sh: apt-get not found; install by hand: ${packages[*]}" >&2
  exit 1
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
