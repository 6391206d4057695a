#!/bin/bash
# mount.gcsfuse of an emulated host (hypercompute local runtime). mount(8) runs it
# as: mount.gcsfuse BUCKET TARGET [-n] [-o OPTIONS]. Like Cloud Storage FUSE's own
# mount helper it turns the options into gcsfuse flags and runs the real gcsfuse,
# which returns once the bucket is mounted; unlike it, it also points gcsfuse at
# the local cloud's Cloud Storage API instead of storage.googleapis.com, so the
# guest's `mount -t gcsfuse` is the production one. gcsfuse authenticates with the
# VM's metadata-server token, so the local cloud holds it to the VM's scopes.
set -u
prog=${0##*/}
bucket=${1:-}
target=${2:-}
if [[ -z $bucket || -z $target ]]; then
  echo "$prog: usage: $prog BUCKET TARGET [-o OPTIONS]" >&2
  exit 1
fi
shift 2
opts=""
while [[ $# -gt 0 ]]; do
  case $1 in
    -o) opts+=${opts:+,}${2:-}; shift 2 || shift ;;
    -o*) opts+=${opts:+,}${1#-o}; shift ;;
    *) shift ;; # -n, -s, -v, -f: nothing for gcsfuse
  esac
done
# Bucket names have no "/"; mount(8) may have made the source a path.
bucket=${bucket##*/}

gcsfuse=""
for c in gcsfuse /usr/bin/gcsfuse /usr/local/bin/gcsfuse; do
  if command -v "$c" >/dev/null 2>&1; then
    gcsfuse=$(command -v "$c")
    break
  fi
done
if [[ -z $gcsfuse ]]; then
  echo "$prog: mounting gs://$bucket on $target failed: gcsfuse is not installed on this machine (scripts/install-deps.sh builds it)" >&2
  exit 32
fi
if [[ ! -d $target ]]; then
  echo "$prog: mount point $target does not exist" >&2
  exit 32
fi

# The option rules of gcsfuse's mount helper: mount(8)'s own options are dropped,
# FUSE options and config keys ("file_cache:max_size_mb=-1") stay options, and
# the rest are gcsfuse flags with "_" spelled "-".
args=()
log_file=""
IFS=, read -ra list <<<"$opts"
for o in "${list[@]}"; do
  name=${o%%=*}
  value=""
  [[ $o == *=* ]] && value=${o#*=}
  case $name in
    "" | rw | user | nouser | auto | noauto | _netdev | no_netdev | defaults) ;;
    ro | allow_other | default_permissions | nonempty | exec | noexec | suid | nosuid | dev | nodev | \
      atime | noatime | relatime | sync | async | dirsync) args+=(-o "$o") ;;
    *:*) args+=(-o "$o") ;;
    *)
      flag=${name//_/-}
      [[ $flag == log-file ]] && log_file=$value
      if [[ -z $value ]]; then args+=("--$flag"); else args+=("--$flag=$value"); fi
      ;;
  esac
done
# The host's /var/log is its own: gcsfuse's log lands there unless asked otherwise.
if [[ -z $log_file ]]; then
  log_file=/var/log/gcsfuse-$bucket.log
  args+=("--log-file=$log_file")
fi

api=${HYPERCOMPUTE_EMULATOR_HOST:-169.254.169.253:80}
export GCE_METADATA_HOST=${GCE_METADATA_HOST:-169.254.169.254}
if ! out=$("$gcsfuse" --custom-endpoint="http://$api/storage/v1/" "${args[@]}" "$bucket" "$target" 2>&1); then
  [[ -z $out && -f $log_file ]] && out=$(tail -n 5 "$log_file")
  echo "$prog: mounting gs://$bucket on $target failed: ${out:-gcsfuse exited without a word}" >&2
  exit 32
fi
exit 0
