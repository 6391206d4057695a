package clusterconfig

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Validate checks a cluster and its partitions together: everything
// ValidateCluster and ValidatePartition check, plus what only the whole
// shows (unique partitions and node names, one default partition, an agent
// build for every architecture in use).
func Validate(c Cluster, parts []Partition) error {
	if err := ValidateCluster(c); err != nil {
		return err
	}
	byName := map[string]bool{}
	byPrefix := map[string]string{}
	var defaults []string
	for _, p := range parts {
		if err := ValidatePartition(c.Name, p); err != nil {
			return err
		}
		if byName[p.Name] {
			return fmt.Errorf("partition %q is declared twice", p.Name)
		}
		byName[p.Name] = true
		prefix := p.Prefix(c.Name)
		if other, dup := byPrefix[prefix]; dup {
			return fmt.Errorf("partitions %q and %q would both name their nodes %s-<index>; rename one of them", other, p.Name, prefix)
		}
		byPrefix[prefix] = p.Name
		if prefix == strings.TrimSuffix(LoginName(c.Name, 0), "-0") {
			return fmt.Errorf("partition %q would name its nodes like the login VMs (%s-<index>); choose another partition name", p.Name, prefix)
		}
		if c.Cloud != nil {
			for _, lp := range c.Cloud.LoginPools {
				if prefix == strings.TrimSuffix(LoginPoolName(c.Name, lp.Name, 0), "-0") {
					return fmt.Errorf("partition %q would name its nodes like login pool %q's VMs (%s-<index>); choose another partition or pool name", p.Name, lp.Name, prefix)
				}
			}
		}
		if _, _, clash := p.NodeIndex(c.Name, c.Controller.Hostname); clash {
			return fmt.Errorf("partition %q would name a node %s, the controller's host name; choose another partition name", p.Name, c.Controller.Hostname)
		}
		// One Slurm partition is the default, however many node sets form it (they agree on it).
		if p.Default {
			defaults = append(defaults, p.SlurmName())
		}
		m, _ := catalog.Machine(p.MachineType)
		if _, err := c.AgentFor(m.Arch); err != nil {
			return fmt.Errorf("partition %q (%s, %s): %w", p.Name, p.MachineType, m.Arch, err)
		}
	}
	sorted := slices.Clone(parts)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	if err := validateNodeSets(sorted); err != nil {
		return err
	}
	defaults = slices.Compact(slices.Sorted(slices.Values(defaults)))
	if len(defaults) > 1 {
		return fmt.Errorf("partitions %s are all marked default; at most one partition can be the default", quoteList(defaults))
	}
	return nil
}

// ValidateCluster checks the cluster's own configuration.
func ValidateCluster(c Cluster) error {
	if c.Schema > SchemaVersion {
		return fmt.Errorf("cluster config has schema %d, newer than this build understands (%d); update the agent", c.Schema, SchemaVersion)
	}
	if err := ValidateClusterName(c.Name); err != nil {
		return err
	}
	if err := validateController(c.Controller); err != nil {
		return err
	}
	if c.LoginCount < 0 || c.LoginCount > MaxLoginNodes {
		return fmt.Errorf("login count %d is out of range; use 0 to %d", c.LoginCount, MaxLoginNodes)
	}
	if err := validateSlurmSettings(c.Slurm); err != nil {
		return err
	}
	if err := ValidateAccounting(c); err != nil {
		return err
	}
	if err := ValidateStartupScript(c.LoginStartupScript); err != nil {
		return fmt.Errorf("login.startup_script: %w", err)
	}
	if err := ValidateMonitoring(c.Monitoring); err != nil {
		return fmt.Errorf("monitoring.%w", err)
	}
	if err := ValidateMounts(c.Mounts); err != nil {
		return err
	}
	if err := validateAgents(c.Agents); err != nil {
		return err
	}
	for _, p := range []struct{ key, path string }{
		{"resume program", c.Power.ResumeProgram},
		{"suspend program", c.Power.SuspendProgram},
		{"resume-fail program", c.Power.ResumeFailProgram},
	} {
		if p.path != "" {
			if err := validateProgramPath(p.key, p.path); err != nil {
				return err
			}
		}
	}
	if c.Health != nil {
		if err := validateHealthCheck(*c.Health); err != nil {
			return err
		}
	}
	return validateLayout(c.Layout)
}

func validateController(ctl Controller) error {
	if ctl.Hostname == "" {
		return errors.New("controller hostname must be set")
	}
	if !catalog.IsValidResourceName(ctl.Hostname) {
		return fmt.Errorf("controller hostname %q is not a valid host name (lowercase letters, digits and hyphens, at most 63 characters)", ctl.Hostname)
	}
	if ctl.Address != "" && net.ParseIP(ctl.Address) == nil {
		return fmt.Errorf("controller address %q is not an IP address", ctl.Address)
	}
	return nil
}

func validateSlurmSettings(s SlurmSettings) error {
	for _, item := range s.SchedulerParameters {
		if item == "" || strings.ContainsAny(item, ", \t\n\r#\"") {
			return fmt.Errorf("scheduler parameter %q is invalid: give one option per entry, without spaces, commas, quotes or \"#\"", item)
		}
	}
	for _, sc := range []struct{ name, body string }{{"prolog", s.Prolog}, {"epilog", s.Epilog}} {
		if sc.body != "" && !strings.HasPrefix(sc.body, "#!") {
			return fmt.Errorf("the %s script must start with an interpreter line such as #!/bin/bash (slurmd executes it directly)", sc.name)
		}
	}
	if err := validateScriptLists(s); err != nil {
		return err
	}
	if err := ValidateExtraSlurmSettings(s.Extra); err != nil {
		return err
	}
	for _, port := range []struct {
		name string
		v    int
	}{{"slurmctld port", s.SlurmctldPort}, {"slurmd port", s.SlurmdPort}} {
		if port.v != 0 && (port.v < 1 || port.v > 65535) {
			return fmt.Errorf("%s %d is out of range (1-65535)", port.name, port.v)
		}
	}
	if s.SlurmctldPort != 0 && s.SlurmctldPort == s.SlurmdPort {
		return fmt.Errorf("slurmctld and slurmd cannot share port %d", s.SlurmctldPort)
	}
	if err := validateSeconds("cluster suspend_time", s.SuspendTime); err != nil {
		return err
	}
	return validateSeconds("cluster resume_timeout", s.ResumeTimeout)
}

func validateSeconds(what string, v int) error {
	if v < 0 || v > maxSlurmUint16 {
		return fmt.Errorf("%s %d is out of range; use 1 to %d seconds (0 keeps the default)", what, v, maxSlurmUint16)
	}
	return nil
}

var (
	versionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$`)
	sha256RE  = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

func validateAgents(agents []AgentRef) error {
	seen := map[string]bool{}
	for _, a := range agents {
		if err := ValidateAgentRef(a); err != nil {
			return err
		}
		arch := agentArch(a.Arch)
		if seen[arch] {
			return fmt.Errorf("agent build for %s is listed twice", arch)
		}
		seen[arch] = true
	}
	if !seen[catalog.ArchX86] {
		return errors.New("the cluster needs an x86_64 agent build (controller and login VMs are x86_64)")
	}
	return nil
}

// ValidateAgentRef checks one agent build reference.
func ValidateAgentRef(a AgentRef) error {
	if !versionRE.MatchString(a.Version) {
		return fmt.Errorf("agent version %q is invalid: use letters, digits, \".\", \"_\", \"+\" and \"-\"", a.Version)
	}
	switch arch := agentArch(a.Arch); arch {
	case catalog.ArchX86, catalog.ArchARM:
	default:
		return fmt.Errorf("agent architecture %q is not supported; use %s or %s", a.Arch, catalog.ArchX86, catalog.ArchARM)
	}
	if !sha256RE.MatchString(a.SHA256) {
		return fmt.Errorf("agent sha256 %q is invalid: it must be 64 lowercase hexadecimal digits", a.SHA256)
	}
	switch {
	case a.URL == "":
		return errors.New("agent URL must be set")
	case strings.ContainsAny(a.URL, "'\"\\`$ \t\n\r"):
		return fmt.Errorf("agent URL %q must not contain quotes, backslashes, \"$\", \"`\" or whitespace", a.URL)
	case strings.HasPrefix(a.URL, "gs://"):
		if b, o, ok := strings.Cut(strings.TrimPrefix(a.URL, "gs://"), "/"); !ok || b == "" || o == "" {
			return fmt.Errorf("agent URL %q must name a bucket and an object: gs://BUCKET/OBJECT", a.URL)
		}
		return nil
	case strings.HasPrefix(a.URL, "https://"), strings.HasPrefix(a.URL, "http://"),
		strings.HasPrefix(a.URL, "file:///"), strings.HasPrefix(a.URL, "/"):
		return nil
	}
	return fmt.Errorf("agent URL %q is not supported: use gs://, https://, http://, file:/// or an absolute path baked into the image", a.URL)
}

// AgentFor returns the cluster's agent build for a CPU architecture.
func (c Cluster) AgentFor(arch string) (AgentRef, error) {
	want := agentArch(arch)
	for _, a := range c.Agents {
		if agentArch(a.Arch) == want {
			return a, nil
		}
	}
	return AgentRef{}, fmt.Errorf("the cluster has no %s build of the agent; add one to the cluster's agent settings", want)
}

func validateProgramPath(what, p string) error {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\n\r#\"'") {
		return fmt.Errorf("%s %q must be an absolute path without spaces or quotes (Slurm passes no arguments)", what, p)
	}
	return nil
}

func validateHealthCheck(h HealthCheck) error {
	if err := validateProgramPath("health check program", h.Program); err != nil {
		return err
	}
	if h.Interval < 0 || h.Interval > maxSlurmUint16 {
		return fmt.Errorf("health check interval %d is out of range; use 1 to %d seconds", h.Interval, maxSlurmUint16)
	}
	if h.NodeState != "" {
		for _, s := range strings.Split(h.NodeState, ",") {
			switch strings.ToUpper(s) {
			case "ALLOC", "ANY", "CYCLE", "IDLE", "NONDRAINED_IDLE", "MIXED":
			default:
				return fmt.Errorf("health check node state %q is invalid; use ALLOC, ANY, CYCLE, IDLE, NONDRAINED_IDLE or MIXED, comma-separated", s)
			}
		}
	}
	return nil
}

func validateLayout(l Layout) error {
	paths := map[string]string{
		"conf_dir": l.ConfDir, "state_save_location": l.StateSaveLocation, "slurmd_spool_dir": l.SlurmdSpoolDir,
		"slurmctld_log_file": l.SlurmctldLogFile, "slurmd_log_file": l.SlurmdLogFile,
		"slurmctld_pid_file": l.SlurmctldPidFile, "slurmd_pid_file": l.SlurmdPidFile,
		"jwt_key_file": l.JWTKeyFile, "munge_socket": l.MungeSocket, "prolog_dir": l.PrologDir,
		"epilog_dir": l.EpilogDir, "agent_binary": l.AgentBinary, "program_dir": l.ProgramDir,
		"gpu_device_dir": l.GPUDeviceDir,
	}
	for _, k := range sortedKeys(paths) {
		if v := paths[k]; v != "" {
			if err := validateProgramPath("layout "+k, v); err != nil {
				return err
			}
		}
	}
	for k, u := range map[string]string{"slurm_user": l.SlurmUser, "slurmd_user": l.SlurmdUser} {
		if u != "" && !userRE.MatchString(u) {
			return fmt.Errorf("layout %s %q is not a valid user name", k, u)
		}
	}
	return nil
}

var userRE = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)

// ValidatePartition checks one partition of a cluster.
func ValidatePartition(cluster string, p Partition) error {
	if p.Schema > SchemaVersion {
		return fmt.Errorf("partition %q has schema %d, newer than this build understands (%d)", p.Name, p.Schema, SchemaVersion)
	}
	if err := validatePartitionNames(cluster, p); err != nil {
		return err
	}
	if err := catalog.ValidateMachineType(p.MachineType); err != nil {
		return fmt.Errorf("partition %q: %w", p.Name, err)
	}
	if p.SlurmPartition != "" {
		if err := catalog.ValidateSlurmPartitionName(p.SlurmPartition); err != nil {
			return fmt.Errorf("partition %q: slurm.partition: %w", p.Name, err)
		}
	}
	if p.Weight < 0 || p.Weight > MaxWeight {
		return fmt.Errorf("partition %q: slurm.weight %d is out of range; use 1 to %d (0 keeps the provisioning model's default)", p.Name, p.Weight, MaxWeight)
	}
	switch {
	case p.StaticNodes < 0 || p.MaxDynamicNodes < 0:
		return fmt.Errorf("partition %q: node counts cannot be negative", p.Name)
	case p.TotalNodes() == 0:
		return fmt.Errorf("partition %q has no nodes: set static_node_count or max_dynamic_node_count", p.Name)
	case p.TotalNodes() > MaxPartitionNodes:
		return fmt.Errorf("partition %q has %d nodes; at most %d are supported", p.Name, p.TotalNodes(), MaxPartitionNodes)
	}
	if p.MaxTime != "" {
		if err := ValidateSlurmTime(p.MaxTime); err != nil {
			return fmt.Errorf("partition %q: max_time %w", p.Name, err)
		}
	}
	if err := ValidateCalendar(p.Calendar); err != nil {
		return fmt.Errorf("partition %q: %w", p.Name, err)
	}
	if err := ValidateStartupScript(p.StartupScript); err != nil {
		return fmt.Errorf("partition %q: startup_script: %w", p.Name, err)
	}
	if err := validateSeconds(fmt.Sprintf("partition %q resume_timeout", p.Name), p.ResumeTimeout); err != nil {
		return err
	}
	if err := validateSeconds(fmt.Sprintf("partition %q suspend_time", p.Name), p.SuspendTime); err != nil {
		return err
	}
	if r := p.ResumeRetryAfter; r != nil && (*r < 0 || *r > MaxResumeRetryAfter) {
		return fmt.Errorf("partition %q resume_retry_after %d is out of range; use 0 (never) to %d seconds", p.Name, *r, MaxResumeRetryAfter)
	}
	for _, f := range p.Features {
		if err := ValidateFeature(f); err != nil {
			return fmt.Errorf("partition %q: %w", p.Name, err)
		}
	}
	if err := ValidateExtraPartitionSettings(p.Extra); err != nil {
		return fmt.Errorf("partition %q: %w", p.Name, err)
	}
	return nil
}

// MaxPartitionNodes bounds one partition (static plus dynamic).
const MaxPartitionNodes = 10000

var slurmTimeRE = regexp.MustCompile(`^(?:\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d{1,2}|\d+-\d{1,2}:\d{1,2}|\d+-\d{1,2}:\d{1,2}:\d{1,2})$`)

// ValidateSlurmTime checks a Slurm time limit: "UNLIMITED" (or "INFINITE"),
// minutes, minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes or days-hours:minutes:seconds.
func ValidateSlurmTime(v string) error {
	switch strings.ToUpper(v) {
	case "UNLIMITED", "INFINITE":
		return nil
	}
	if !slurmTimeRE.MatchString(v) {
		return fmt.Errorf("%q is not a Slurm time: use UNLIMITED, minutes (\"60\"), \"hours:minutes:seconds\" or \"days-hours[:minutes[:seconds]]\"", v)
	}
	return nil
}

var featureRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidateFeature checks a Slurm node feature name: job constraints combine
// features with & | , * [ ] ( ) and !, so those cannot appear in one.
func ValidateFeature(f string) error {
	if !featureRE.MatchString(f) {
		return fmt.Errorf("node feature %q is invalid: use up to 64 letters, digits, \".\", \"_\" and \"-\", starting with a letter or digit", f)
	}
	return nil
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
