package clusterconfig

import "path"

// The rest of the guest-attribute contract between the agent and the
// provider (metadata.go holds phase, error and config-hash).
const (
	// GuestAttrConfigError is "<hash> <slurmctld's error text>" for a
	// configuration the controller rejected and did not apply; it is
	// deleted once a configuration is applied.
	GuestAttrConfigError = "config-error"
	// GuestAttrAgentVersion is the version of the agent running on the VM.
	GuestAttrAgentVersion = "agent-version"
	// GuestAttrRegisteredPrefix + partition name is the controller guest
	// attribute listing (CompressHostlist) the partition's static nodes
	// that slurmctld sees registered: a state without the power-saving or
	// not-responding suffixes ("idle", "mixed", "drained", not "idle~",
	// "down*" or "unknown"). The provider waits on it so an apply ends
	// when the static nodes can take jobs.
	GuestAttrRegisteredPrefix = "registered-"
)

// RegisteredAttr is the guest attribute key of a partition's registration
// report.
func RegisteredAttr(partition string) string { return GuestAttrRegisteredPrefix + partition }

// The agent's bootstrap phases, in order, plus PhaseError (the node's own
// text is in GuestAttrError) and PhaseLauncherFailed.
const (
	PhaseBooting     = "booting"
	PhaseMounting    = "mounting"
	PhaseConfiguring = "configuring"
	PhaseReady       = "ready"
	PhaseError       = "error"
)

// What the controller shares with the other VMs through the cluster's
// /home, which every VM mounts before anything else.
const (
	// SharedDirName is the cluster's directory at the top of /home.
	SharedDirName = ".hypercompute"
	// SharedSecretsDir (mode 0700, root) holds MungeKeyFile (mode 0400).
	SharedSecretsDir = "secrets"
	MungeKeyFile     = "munge.key"
	// SharedSlurmDir holds the controller's rendered files for login
	// nodes (SLURM_CONF points at slurm.conf there) and the prolog/epilog
	// scripts for compute nodes, which configless slurmd does not fetch.
	SharedSlurmDir = "slurm"
)

// HomeMountPoint is where the cluster's /home is mounted.
func (m Mounts) HomeMountPoint() string {
	if m.Home.MountPoint != "" {
		return m.Home.MountPoint
	}
	return DefaultHomeMountPoint
}

// SharedDir is the cluster's shared directory on /home
// ("/home/.hypercompute").
func (m Mounts) SharedDir() string { return path.Join(m.HomeMountPoint(), SharedDirName) }

// SharedMungeKey is the path of the cluster's munge key on /home.
func (m Mounts) SharedMungeKey() string {
	return path.Join(m.SharedDir(), SharedSecretsDir, MungeKeyFile)
}

// SharedSlurmConf is the slurm.conf login nodes use (SLURM_CONF).
func (m Mounts) SharedSlurmConf() string {
	return path.Join(m.SharedDir(), SharedSlurmDir, SlurmConfFile)
}

// SlurmrestdPort is where the controller's slurmrestd listens (HTTP, JWT
// authentication).
const SlurmrestdPort = 6820
