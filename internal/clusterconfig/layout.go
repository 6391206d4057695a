package clusterconfig

import "path"

// Layout is where Slurm's files live and which users run the daemons. The
// zero value means the production layout (DefaultLayout); each empty field
// takes its default, so a caller overrides only what differs (the
// validator, for instance, moves state and logs into a temporary
// directory).
type Layout struct {
	// ConfDir holds slurm.conf, gres.conf and cgroup.conf.
	ConfDir string `json:"conf_dir,omitempty"`
	// SlurmUser runs slurmctld; SlurmdUser runs slurmd (root: it must
	// create cgroups and start jobs as their users).
	SlurmUser  string `json:"slurm_user,omitempty"`
	SlurmdUser string `json:"slurmd_user,omitempty"`
	// StateSaveLocation is slurmctld's state directory (the agent puts it
	// on the controller's boot disk, never on shared storage).
	StateSaveLocation string `json:"state_save_location,omitempty"`
	// SlurmdSpoolDir is slurmd's spool directory.
	SlurmdSpoolDir   string `json:"slurmd_spool_dir,omitempty"`
	SlurmctldLogFile string `json:"slurmctld_log_file,omitempty"`
	SlurmdLogFile    string `json:"slurmd_log_file,omitempty"`
	SlurmctldPidFile string `json:"slurmctld_pid_file,omitempty"`
	SlurmdPidFile    string `json:"slurmd_pid_file,omitempty"`
	// JWTKeyFile is the HS256 key slurmctld and slurmrestd verify tokens
	// with; the agent generates it on first boot (mode 0600, SlurmUser).
	JWTKeyFile string `json:"jwt_key_file,omitempty"`
	// MungeSocket, when set, is written as AuthInfo=socket=...; empty keeps
	// munge's default socket.
	MungeSocket string `json:"munge_socket,omitempty"`
	// PrologDir and EpilogDir hold the prolog/epilog scripts; slurm.conf
	// names them with a glob so the health policy can add its own.
	PrologDir string `json:"prolog_dir,omitempty"`
	EpilogDir string `json:"epilog_dir,omitempty"`
	// AgentBinary is the installed agent the power-saving wrappers exec.
	// It and ProgramDir default to /var/lib/hypercompute, next to the
	// launcher's verified builds: the agent's own directory on the boot
	// disk (and private to each VM of the local cloud, where /usr/local is
	// the machine's).
	AgentBinary string `json:"agent_binary,omitempty"`
	// ProgramDir holds the power-saving wrappers (ProgramWrappers).
	ProgramDir string `json:"program_dir,omitempty"`
	// GPUDeviceDir holds the nvidiaN device files gres.conf names.
	GPUDeviceDir string `json:"gpu_device_dir,omitempty"`
}

// DefaultLayout is the production layout of a cluster VM.
func DefaultLayout() Layout {
	return Layout{
		ConfDir:           "/etc/slurm",
		SlurmUser:         "slurm",
		SlurmdUser:        "root",
		StateSaveLocation: "/var/spool/slurm/ctld",
		SlurmdSpoolDir:    "/var/spool/slurm/d",
		SlurmctldLogFile:  "/var/log/slurm/slurmctld.log",
		SlurmdLogFile:     "/var/log/slurm/slurmd.log",
		SlurmctldPidFile:  "/run/slurm/slurmctld.pid",
		SlurmdPidFile:     "/run/slurm/slurmd.pid",
		JWTKeyFile:        "/etc/slurm/jwt_hs256.key",
		PrologDir:         "/etc/slurm/prolog.d",
		EpilogDir:         "/etc/slurm/epilog.d",
		AgentBinary:       "/var/lib/hypercompute/bin/hypercompute-agent",
		ProgramDir:        "/var/lib/hypercompute/bin",
		GPUDeviceDir:      "/dev",
	}
}

// WithDefaults fills every empty field from DefaultLayout.
func (l Layout) WithDefaults() Layout {
	d := DefaultLayout()
	fill := func(dst *string, def string) {
		if *dst == "" {
			*dst = def
		}
	}
	fill(&l.ConfDir, d.ConfDir)
	fill(&l.SlurmUser, d.SlurmUser)
	fill(&l.SlurmdUser, d.SlurmdUser)
	fill(&l.StateSaveLocation, d.StateSaveLocation)
	fill(&l.SlurmdSpoolDir, d.SlurmdSpoolDir)
	fill(&l.SlurmctldLogFile, d.SlurmctldLogFile)
	fill(&l.SlurmdLogFile, d.SlurmdLogFile)
	fill(&l.SlurmctldPidFile, d.SlurmctldPidFile)
	fill(&l.SlurmdPidFile, d.SlurmdPidFile)
	fill(&l.JWTKeyFile, d.JWTKeyFile)
	fill(&l.PrologDir, d.PrologDir)
	fill(&l.EpilogDir, d.EpilogDir)
	fill(&l.AgentBinary, d.AgentBinary)
	fill(&l.ProgramDir, d.ProgramDir)
	fill(&l.GPUDeviceDir, d.GPUDeviceDir)
	return l
}

// File names of the rendered configuration inside Layout.ConfDir.
const (
	SlurmConfFile  = "slurm.conf"
	GresConfFile   = "gres.conf"
	CgroupConfFile = "cgroup.conf"
)

// Names of the cluster's own prolog/epilog scripts inside PrologDir and
// EpilogDir. The "50-" leaves room for the health policy to run first.
const (
	ClusterPrologScript = "50-cluster-prolog.sh"
	ClusterEpilogScript = "50-cluster-epilog.sh"
)

// Power-saving wrapper names inside Layout.ProgramDir.
const (
	resumeProgramName     = "hypercompute-resume"
	suspendProgramName    = "hypercompute-suspend"
	resumeFailProgramName = "hypercompute-resume-fail"
)

// Agent subcommands the power-saving wrappers run.
const (
	AgentCmdResume     = "resume"
	AgentCmdSuspend    = "suspend"
	AgentCmdResumeFail = "resume-fail"
)

// WithDefaults fills empty program paths with the layout's wrappers.
func (p PowerPrograms) WithDefaults(l Layout) PowerPrograms {
	l = l.WithDefaults()
	if p.ResumeProgram == "" {
		p.ResumeProgram = path.Join(l.ProgramDir, resumeProgramName)
	}
	if p.SuspendProgram == "" {
		p.SuspendProgram = path.Join(l.ProgramDir, suspendProgramName)
	}
	if p.ResumeFailProgram == "" {
		p.ResumeFailProgram = path.Join(l.ProgramDir, resumeFailProgramName)
	}
	return p
}
