// Package agent is what hypercompute-agent does on a cluster VM, per role.
//
// Every VM's launcher (clusterconfig.RenderLauncher) verifies the agent and
// runs `hypercompute-agent start`, which detaches `hypercompute-agent run`
// (a systemd unit where systemd is PID 1, else a session of its own) so the
// startup script completes. Run reads the VM's hypercompute-node metadata
// value, watches the instance attributes (wait_for_change with the etag of
// the recursive listing) and drives the VM towards them:
//
//   - every role mounts the cluster's shared file systems (/home first: it
//     carries the munge key) with retries, then runs munged with the
//     cluster's key;
//   - the controller generates the munge key (shared through
//     /home/.hypercompute/secrets) and the JWT key (kept in its Slurm
//     directory) on first boot, renders slurm.conf, gres.conf, cgroup.conf
//     and the scripts from the cluster and partition keys, validates them
//     with a throw-away slurmctld, and only then starts slurmctld and
//     slurmrestd or runs `scontrol reconfigure`; a rejected configuration
//     is reported and never applied;
//   - a login VM points SLURM_CONF at the controller's files on /home and
//     proves `sinfo` answers;
//   - a compute VM runs a configless slurmd.
//
// Progress and failures go to guest attributes (clusterconfig's
// GuestAttr* names), where the provider waits for them, with the node's own
// error text. Secrets never leave the files they live in: they are not
// logged, reported or written to metadata.
package agent
