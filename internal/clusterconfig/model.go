package clusterconfig

// SchemaVersion is written into every serialized Cluster, Partition and Node.
// An agent refuses a config whose schema is newer than the one it was built
// with instead of misreading it; fields are only ever added within a schema.
const SchemaVersion = 1

// Role is what a VM does in the cluster.
type Role string

const (
	RoleController Role = "controller"
	RoleLogin      Role = "login"
	RoleCompute    Role = "compute"
)

// Cluster is the desired configuration the hypercompute_training_cluster
// resource owns. It holds no secret: the munge and JWT keys are generated
// inside the cluster and never travel through metadata.
type Cluster struct {
	Schema int `json:"schema"`
	// Name is the Slurm ClusterName and the prefix of every VM name.
	Name       string     `json:"name"`
	Controller Controller `json:"controller"`
	// LoginCount is the number of login VMs (named LoginName(Name, i)).
	LoginCount int           `json:"login_count"`
	Slurm      SlurmSettings `json:"slurm"`
	Mounts     Mounts        `json:"mounts"`
	// Agents lists the agent builds, one per CPU architecture the cluster's
	// machines use (x86_64 always; arm64 when an A4X partition exists).
	Agents []AgentRef    `json:"agents"`
	Power  PowerPrograms `json:"power,omitzero"`
	Health *HealthCheck  `json:"health_check,omitempty"`
	// Accounting is slurmdbd and its database (accounting.go); nil keeps no records.
	Accounting *Accounting `json:"accounting,omitempty"`
	// LoginStartupScript runs on each login VM (Node.StartupScript).
	LoginStartupScript string `json:"login_startup_script,omitempty"`
	// Monitoring is metrics, Prometheus and Cloud Monitoring (monitoring.go); nil: none.
	Monitoring *Monitoring `json:"monitoring,omitempty"`
	Layout     Layout      `json:"layout,omitzero"`
	// Cloud is where the cluster's VMs run (set by the training cluster resource).
	Cloud *Cloud `json:"cloud,omitempty"`
	// LocalRuntime is set when the cluster runs on the local cloud's emulated VMs, whose hosts have
	// fewer cores and less memory than the machine types they stand for: slurmd then reports the
	// declared node instead of the host's hardware (SlurmdParameters=config_overrides). Never set
	// on Google Cloud, where a node smaller than declared is a fault Slurm must catch.
	LocalRuntime bool `json:"local_runtime,omitempty"`
	// Rewrite is a generation the training cluster raises to have the agent put back files
	// changed out of band (drift.go); it renders into no file.
	Rewrite int `json:"rewrite,omitempty"`
}

// Controller is the VM that runs slurmctld.
type Controller struct {
	Hostname string `json:"hostname"`
	// Address is the controller's internal IP. When empty, slurm.conf names
	// the controller by hostname only and nodes resolve it through DNS.
	Address string `json:"address,omitempty"`
}

// SlurmSettings are the cluster-wide Slurm options a user controls.
type SlurmSettings struct {
	// SchedulerParameters are added to the product's defaults; an entry
	// whose name (the part before "=") matches a default replaces it.
	SchedulerParameters []string `json:"scheduler_parameters,omitempty"`
	// Prolog and Epilog are script contents (not paths); the agent writes
	// them under Layout.PrologDir/EpilogDir and slurm.conf points there.
	Prolog string `json:"prolog,omitempty"`
	Epilog string `json:"epilog,omitempty"`
	// PrologScripts and EpilogScripts are ordered lists of script contents, run one after the
	// other by a runner in Layout.PrologDir/EpilogDir (scripts.go); the first to fail fails the
	// prolog. Not together with Prolog/Epilog.
	PrologScripts []string `json:"prolog_scripts,omitempty"`
	EpilogScripts []string `json:"epilog_scripts,omitempty"`
	// Extra holds further slurm.conf settings, checked by
	// ValidateExtraSlurmSettings.
	Extra map[string]string `json:"extra,omitempty"`
	// Ports; zero means Slurm's defaults (6817, 6818).
	SlurmctldPort int `json:"slurmctld_port,omitempty"`
	SlurmdPort    int `json:"slurmd_port,omitempty"`
	// SuspendTime is how long (seconds) a dynamic node stays idle before it
	// is powered down, for partitions that do not set their own.
	SuspendTime int `json:"suspend_time,omitempty"`
	// ResumeTimeout is the cluster-wide limit (seconds) for a powered-down
	// node to boot and register; partitions may set a longer one.
	ResumeTimeout int `json:"resume_timeout,omitempty"`
}

// PowerPrograms are the executables slurmctld runs for power saving. Slurm
// passes only the node list as argument and refuses paths with arguments,
// so each is a path of its own that dispatches to an agent subcommand
// (see ProgramWrappers). Empty fields take the Layout defaults.
type PowerPrograms struct {
	ResumeProgram     string `json:"resume_program,omitempty"`
	SuspendProgram    string `json:"suspend_program,omitempty"`
	ResumeFailProgram string `json:"resume_fail_program,omitempty"`
}

// HealthCheck is the hook the health policy fills: slurmd runs Program
// every Interval seconds on nodes in NodeState.
type HealthCheck struct {
	Program string `json:"program"`
	// Interval in seconds; 0 means the default (300).
	Interval int `json:"interval,omitempty"`
	// NodeState is Slurm's HealthCheckNodeState (e.g. "ANY", "IDLE,CYCLE");
	// empty means ANY.
	NodeState string `json:"node_state,omitempty"`
	// Prolog and Epilog: a health policy runs checks there too (HealthPlan.HealthScripts), so
	// slurm.conf names the prolog/epilog directories even when the cluster has no script of its own.
	Prolog bool `json:"prolog,omitempty"`
	Epilog bool `json:"epilog,omitempty"`
}

// AgentRef identifies one build of the node agent.
type AgentRef struct {
	Version string `json:"version"`
	// Arch is catalog.ArchX86 or catalog.ArchARM; empty means x86_64.
	Arch string `json:"arch,omitempty"`
	// URL is where the launcher fetches the binary: http(s)://, file:// or an
	// absolute path baked into the image.
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
}

// Partition is one node set, owned by one hypercompute_node_partition, and the Slurm partition it
// forms or joins (SlurmPartition; nodesets.go). Each is written under a metadata key of its own
// (PartitionKey) on the controller. Name is the node set's own name: its key, node names, guest
// attributes and health policies use it; only Slurm's PartitionName uses SlurmName().
type Partition struct {
	Schema      int    `json:"schema"`
	Name        string `json:"name"`
	MachineType string `json:"machine_type"`
	// SlurmPartition is the Slurm partition the node set's nodes belong to; empty means Name, so a
	// key written before node sets existed forms its own partition as it always did.
	SlurmPartition string `json:"slurm_partition,omitempty"`
	// Weight is the Slurm node Weight of the node set's nodes (lowest allocated first); 0 means
	// DefaultWeight(Provisioning).
	Weight int `json:"weight,omitempty"`
	// Provisioning is how the VMs are obtained (ProvisioningStandard, ...); it sets the default
	// Weight. Empty (a key written before node sets existed): no Weight is rendered (Slurm's 1).
	Provisioning string `json:"provisioning,omitempty"`
	// NodeNamePrefix names the nodes <prefix>-<index> (static) and
	// <prefix>-d<index> (dynamic); empty means NodeNamePrefix(cluster, Name).
	NodeNamePrefix string `json:"node_name_prefix,omitempty"`
	// StaticNodes are created by the provider and never powered down;
	// they are <prefix>-0 .. <prefix>-(StaticNodes-1).
	StaticNodes int `json:"static_nodes"`
	// MaxDynamicNodes are created on demand by the agent's ResumeProgram
	// and deleted when idle; they are <prefix>-d0 .. <prefix>-d(MaxDynamicNodes-1),
	// a range of their own, so neither count renames the other's nodes.
	MaxDynamicNodes int  `json:"max_dynamic_nodes"`
	Default         bool `json:"default,omitempty"`
	Exclusive       bool `json:"exclusive,omitempty"`
	// MaxTime in Slurm's time format ("UNLIMITED", "60", "2-00:00:00");
	// empty means UNLIMITED.
	MaxTime string `json:"max_time,omitempty"`
	// ResumeTimeout and SuspendTime in seconds; 0 means the defaults
	// (ResumeTimeout: 1200 for GPU machines, the cluster's otherwise;
	// SuspendTime: the cluster's).
	ResumeTimeout int `json:"resume_timeout,omitempty"`
	SuspendTime   int `json:"suspend_time,omitempty"`
	// ResumeRetryAfter is how long (seconds) a dynamic node whose resume failed stays DOWN and
	// powered down before the controller's agent returns it to service, so a job waiting for
	// it makes Slurm try again: nil means DefaultResumeRetryAfter, 0 never (an administrator
	// resumes it). See ResumeRetry.
	ResumeRetryAfter *int `json:"resume_retry_after,omitempty"`
	// Features are added to the machine type's own (catalog Features).
	Features []string `json:"features,omitempty"`
	// Extra holds further PartitionName settings, checked by
	// ValidateExtraPartitionSettings.
	Extra map[string]string `json:"extra,omitempty"`

	// Where the agent's ResumeProgram creates this partition's VMs
	// (written by hypercompute_node_partition; none of them changes the
	// rendered Slurm files). Project and Zone empty mean the controller's.
	Project string `json:"project,omitempty"`
	Zone    string `json:"zone,omitempty"`
	// InstanceTemplate is the relative name of the partition's instance
	// template, projects/P/global/instanceTemplates/N: dynamic nodes are
	// bulk-inserted from it, exactly like the static ones.
	InstanceTemplate string `json:"instance_template,omitempty"`
	// Drain asks the controller's agent to drain nodes the provider is
	// about to delete (a scale-down); see Drain.
	Drain *Drain `json:"drain,omitempty"`
	// Calendar: the partition's capacity is a calendar-mode future reservation (calendar.go).
	Calendar *Calendar `json:"calendar,omitempty"`
	// StartupScript runs on each of the partition's nodes (Node.StartupScript).
	StartupScript string `json:"startup_script,omitempty"`
	// Storage are the mount paths of the cluster's extra mounts and buckets the node set's nodes
	// mount (Mounts.ForNodeSet); empty means all of them (an empty Terraform list is an unset one,
	// tfutil/collections.go). /home and the cluster's lustre are mounted either way.
	Storage []string `json:"storage,omitempty"`
}

// Node is the hypercompute-node metadata value every VM gets: enough for
// the agent to know its role and reach the controller before it reads
// anything else.
type Node struct {
	Schema     int        `json:"schema"`
	Role       Role       `json:"role"`
	Cluster    string     `json:"cluster"`
	Controller Controller `json:"controller"`
	// SlurmctldPort is where slurmd fetches its configuration
	// (configless: slurmd --conf-server host:port).
	SlurmctldPort int    `json:"slurmctld_port"`
	Mounts        Mounts `json:"mounts"`
	// Partition and NodeSet are set for compute nodes.
	Partition string `json:"partition,omitempty"`
	NodeSet   string `json:"node_set,omitempty"`
	// Agent is the build this VM's launcher runs.
	Agent AgentRef `json:"agent"`
	// ConfigKeys are the metadata keys (on the controller) whose changes
	// the agent applies; ConfigKeyPrefixes cover keys added later
	// (partitions and health policies created after the cluster).
	ConfigKeys        []string `json:"config_keys,omitempty"`
	ConfigKeyPrefixes []string `json:"config_key_prefixes,omitempty"`
	// Layout is the cluster's Layout as configured (zero: the defaults), so
	// login and compute agents, which never read the cluster's config,
	// prepare the same directories the controller renders into slurm.conf.
	Layout Layout `json:"layout,omitzero"`
	// MountTimeout is how long (seconds) the agent retries a shared file
	// system that does not mount before it reports the failure; 0 means
	// DefaultMountTimeout.
	MountTimeout int `json:"mount_timeout,omitempty"`
	// StartupScript is the user's script this node runs once per boot after its own
	// bootstrap and before it joins Slurm (startup_script.go); from its partition or the
	// cluster's login settings.
	StartupScript string `json:"startup_script,omitempty"`
}

// DefaultMountTimeout: a Filestore or Lustre instance that was just
// created can take a few minutes to answer its first mount.
const DefaultMountTimeout = 300
