package clusterconfig

import "strings"

// Defaults the product writes when the user sets nothing.
const (
	DefaultSlurmctldPort = 6817
	DefaultSlurmdPort    = 6818
	// DefaultSuspendTime: an idle dynamic node is deleted after 10 minutes.
	DefaultSuspendTime = 600
	// DefaultResumeTimeout covers creating and booting a CPU VM.
	DefaultResumeTimeout = 600
	// DefaultGPUResumeTimeout: GPU VMs take longer to create and boot
	// (driver load, GPU NIC setup); the field's GPU blueprints use
	// 900-1200 s.
	DefaultGPUResumeTimeout = 1200
	// DefaultSuspendTimeout: deleting a VM takes about a minute; a node is
	// not resumed again before this many seconds have passed.
	DefaultSuspendTimeout = 300
	// DefaultResumeRetryAfter: a dynamic node whose VM could not be made (a stockout, most
	// often, which tends to clear within minutes) is tried again after 10 minutes powered
	// down, as AWS ParallelCluster returns nodes after an insufficient-capacity failure
	// (insufficient_capacity_timeout, 600 s by default).
	DefaultResumeRetryAfter = 600
	// MaxResumeRetryAfter: a day; a node held down longer is one an administrator looks at.
	MaxResumeRetryAfter = 86400
	// DefaultHealthCheckInterval in seconds.
	DefaultHealthCheckInterval = 300
	// maxSlurmUint16 is the largest value Slurm 22.05 stores for timeouts
	// parsed as uint16 (ResumeTimeout, SuspendTimeout, ...).
	maxSlurmUint16 = 65533
)

// defaultSchedulerParameters make salloc and sbatch wait until every node of
// a job has booted, so the first srun of a job never races a node that is
// still powering up, and keep backfill going across lock releases.
var defaultSchedulerParameters = []string{"bf_continue", "salloc_wait_nodes", "sbatch_wait_nodes"}

// defaultSlurmctldParameters: cloud_dns because Compute's internal DNS (and
// /etc/hosts on the local cloud) resolves every node name, so slurmctld
// need not hand out node addresses; enable_configless so slurmd and client
// commands fetch slurm.conf from the controller; idle_on_node_suspend so a
// node that was powered down while drained or down can be resumed later.
// (cloud_reg_addrs is deliberately absent: Slurm 23.11 removed it.)
var defaultSlurmctldParameters = []string{"cloud_dns", "enable_configless", "idle_on_node_suspend"}

// defaultPrivateData: "cloud" makes powered-down cloud nodes visible to
// sinfo and scontrol, so users see a partition's full size.
var defaultPrivateData = []string{"cloud"}

// defaultPrologFlags: Alloc runs the prolog when a job is allocated (health
// checks run before the job, not at its first step); Contain creates the
// extern step so processes from ssh into a node are tracked with the job.
var defaultPrologFlags = []string{"Alloc", "Contain"}

// defaultLaunchParameters: salloc opens its shell on the job's first node.
var defaultLaunchParameters = []string{"use_interactive_step"}

// withDefaults returns the cluster with every unset field filled.
func (c Cluster) withDefaults() Cluster {
	c.Layout = c.Layout.WithDefaults()
	c.Power = c.Power.WithDefaults(c.Layout)
	if c.Slurm.SlurmctldPort == 0 {
		c.Slurm.SlurmctldPort = DefaultSlurmctldPort
	}
	if c.Slurm.SlurmdPort == 0 {
		c.Slurm.SlurmdPort = DefaultSlurmdPort
	}
	if c.Slurm.SuspendTime == 0 {
		c.Slurm.SuspendTime = DefaultSuspendTime
	}
	if c.Slurm.ResumeTimeout == 0 {
		c.Slurm.ResumeTimeout = DefaultResumeTimeout
	}
	if c.Health != nil {
		h := *c.Health
		if h.Interval == 0 {
			h.Interval = DefaultHealthCheckInterval
		}
		if h.NodeState == "" {
			h.NodeState = "ANY"
		}
		c.Health = &h
	}
	return c
}

// WithDefaults returns the cluster with the product's defaults filled in
// (ports, power-saving programs, timeouts, layout), as rendering sees it.
func (c Cluster) WithDefaults() Cluster { return c.withDefaults() }

// agentArch maps an AgentRef arch to the catalog's names.
func agentArch(a string) string {
	if a == "" {
		return "x86_64"
	}
	return strings.ToLower(a)
}
