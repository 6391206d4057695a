#!/bin/bash
# mount.nfs / mount.nfs4 / mount.lustre of an emulated host (hypercompute local
# runtime). mount(8) runs it as: mount.TYPE SOURCE TARGET [-sfnv] [-o OPTIONS].
# The emulator resolves SOURCE (an emulated Filestore share or Lustre
# filesystem) to a backing directory, which is bind-mounted on TARGET inside
# this host only.
set -u
prog=${0##*/}
fstype=${prog#mount.}
[[ $fstype == nfs4 ]] && fstype=nfs
source=${1:-}
target=${2:-}
if [[ -z $source || -z $target ]]; then
  echo "$prog: usage: $prog SOURCE TARGET [-o OPTIONS]" >&2
  exit 1
fi
shift 2
opts=""
while [[ $# -gt 0 ]]; do
  case $1 in
    -o) opts=${2:-}; shift 2 || shift ;;
    -o*) opts=${1#-o}; shift ;;
    -N | -t) shift 2 || shift ;;
    *) shift ;;
  esac
done
if [[ ! -d $target ]]; then
  echo "$prog: mount point $target does not exist" >&2
  exit 32
fi
# 169.254.169.252 is the runtime's service address inside every host.
out=$(curl -sS --max-time 15 -G -w '\n%{http_code}' \
  --data-urlencode "fstype=$fstype" --data-urlencode "source=$source" \
  http://169.254.169.252/v1/storage/resolve 2>&1)
code=${out##*$'\n'}
body=${out%$'\n'*}
if [[ $code != 200 ]]; then
  echo "$prog: mounting $source on $target failed: ${body:-the storage resolver did not answer}" >&2
  exit 32
fi
if ! mount --bind "$body" "$target"; then
  echo "$prog: mounting $source on $target failed: cannot bind $body" >&2
  exit 32
fi
# The source view is read-only; the share is writable unless asked otherwise.
mode=rw
[[ ,$opts, == *,ro,* ]] && mode=ro
if ! mount -o remount,bind,$mode "$target"; then
  umount "$target"
  echo "$prog: mounting $source on $target failed: cannot make it $mode" >&2
  exit 32
fi
exit 0
