#!/bin/bash
# Startup script of every host of the Slurm test: mount the shared "Filestore"
# (munge key and slurm.conf), start munge, then this host's Slurm daemon.
set -euo pipefail
mount -t nfs 10.7.0.100:/share /home
install -m 400 /home/munge.key /etc/munge/munge.key
chown root:root /etc/munge /var/log/munge /var/lib/munge
mkdir -p -m 755 /run/munge
munged
install -m 644 /home/slurm.conf /etc/slurm/slurm.conf
install -m 644 /home/cgroup.conf /etc/slurm/cgroup.conf
export SLURM_CONF=/etc/slurm/slurm.conf
mkdir -p /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
case $(hostname) in
  ctl) slurmctld -c ;;
  *) slurmd ;;
esac
echo "$(hostname) daemons started"
