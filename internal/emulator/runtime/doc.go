// Package vmruntime boots emulated Compute Engine VMs as real hosts on the local
// Linux machine (root required), so the production payload (startup script,
// agent, munge, Slurm daemons) runs unchanged against the emulator.
//
// A host is a set of namespaces anchored by a small init process (this
// package's binary re-executed, see init_process.go):
//
//   - network: its own netns with eth0 (a veth) on one Linux bridge per emulated
//     VPC. Bridges carry no address in the root namespace, so VPCs with
//     overlapping ranges and parallel emulators never clash. The default route
//     is on-link, so hosts in other subnets of the same VPC answer ARP directly.
//   - pid: the init is PID 1 and reaps orphans; killing it makes the kernel kill
//     every process of the host, double-forked daemons included. That is how
//     Delete, Reset and Stop end a host, so nothing escapes tracking.
//   - cgroup: a cgroup per host in every hierarchy, below the emulator's own,
//     and a cgroup namespace; /sys is the host's sysfs with /sys/fs/cgroup/*
//     bound to those cgroups, so slurmd's proctrack/cgroup and task/cgroup work
//     and stay inside the host.
//   - mount, uts, ipc: own hostname; private bind mounts of per-host
//     directories under Config.StateDir for /etc/slurm, /etc/munge, /var/spool,
//     /var/log, /var/lib/slurm, /var/lib/munge, /run, /tmp, /home, /etc/hosts,
//     /etc/hostname, /etc/environment, /etc/resolv.conf; a fresh /proc and
//     /dev/shm; an overlay on /usr/sbin adding mount.nfs, mount.nfs4,
//     mount.lustre and mount.gcsfuse. Nothing is mounted in the machine's namespace apart from
//     the netns files `ip netns` keeps in /run/netns.
//
// Services reach hosts through link-local listeners the runtime opens inside
// each host's netns (on lo), as on Google Cloud:
//
//	169.254.169.254:80  metadata.google.internal       → HostSpec.MetadataAddr (TCP proxy)
//	169.254.169.253:80  emulator.hypercompute.internal → Config.EmulatorURL's host:port
//	169.254.169.252:80  runtime.hypercompute.internal  → the runtime's service (storage resolver)
//
// so the emulator may listen anywhere in the root namespace (127.0.0.1 is fine).
// Processes the runtime starts in a host get GCE_METADATA_HOST=169.254.169.254
// and HYPERCOMPUTE_EMULATOR_HOST=169.254.169.253:80 (when EmulatorURL is set);
// /etc/environment in the host says the same. DNS points at 169.254.169.254,
// where nothing answers, so names /etc/hosts lacks fail at once.
//
// Storage: `mount -t nfs 10.0.0.2:/share /home` inside a host runs the
// mount.nfs helper, which asks GET
// http://169.254.169.252/v1/storage/resolve?fstype=nfs&source=10.0.0.2:/share;
// the runtime calls Config.ResolveStorage("nfs", "10.0.0.2:/share") and answers
// with the backing directory as seen through /run/hypercompute/rootfs (a
// read-only view of the machine's tree inside the host); the helper bind-mounts
// it on the target (read-write unless -o ro). Errors from the resolver reach
// the guest's mount command as "mount.nfs: mounting ... failed: <error>" with
// exit status 32. Lustre sources ("10.0.0.3@tcp:/lfs") work the same way.
//
// Cloud Storage: `mount -t gcsfuse -o OPTS BUCKET DIR` runs the mount.gcsfuse
// helper, which turns the options into flags as gcsfuse's own helper does and
// runs the machine's real gcsfuse with --custom-endpoint at the emulator's
// Cloud Storage API (http://169.254.169.253/storage/v1/), authenticated with the
// VM's metadata-server token, so the VM's scopes decide what the mount may do.
// The FUSE daemon is a process of the host, so deleting the VM unmounts it.
package vmruntime
