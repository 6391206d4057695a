package clusterconfig

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Health checks, what their failures trigger and the limits that keep repairs from becoming a storm.
// A hypercompute_health_policy writes one HealthPolicy under HealthPolicyKey(name) on the controller;
// the controller's agent resolves every policy against the partitions into a HealthPlan, publishes it
// on the shared /home for the nodes (whose HealthCheckProgram, prolog and epilog run the checks and
// drain their own node), and repairs drained nodes through the Compute API.

// Check names.
const (
	CheckGPU       = "gpu"
	CheckECC       = "ecc"
	CheckDCGM      = "dcgm"
	CheckNVLink    = "nvlink"
	CheckDisk      = "disk"
	CheckMounts    = "mounts"
	CheckNCCL      = "nccl"
	CheckStraggler = "straggler"
	CheckSlurmd    = "slurmd"
	CheckMunge     = "munge"
	// CheckRemappedRows fails on a GPU memory repair waiting for a GPU reset: rows the driver
	// remapped but has not applied yet ("Remapped Rows: Pending"), or a pending channel or TPC
	// repair. A reset applies them, so its default action is reboot.
	CheckRemappedRows = "remapped_rows"
	// CheckUnrepairableMemory fails on GPU memory the driver cannot repair ("Remapping Failure
	// Occurred", "Unrepairable Memory"). The fault stays with the physical host, so its default
	// action is replace and reboot or reimage are refused.
	CheckUnrepairableMemory = "unrepairable_memory"
)

// HealthChecks lists every check; GPUChecks are skipped on partitions without GPUs.
var (
	HealthChecks = []string{CheckGPU, CheckECC, CheckDCGM, CheckNVLink, CheckRemappedRows, CheckUnrepairableMemory, CheckDisk, CheckMounts, CheckNCCL, CheckStraggler, CheckSlurmd, CheckMunge}
	GPUChecks    = []string{CheckGPU, CheckECC, CheckDCGM, CheckNVLink, CheckRemappedRows, CheckUnrepairableMemory, CheckNCCL}
)

// DefaultCheckAction is the action of a check that names none: what the fault it finds needs in
// field practice (a pending memory repair a GPU reset, unrepairable memory another host), else
// drain for a person.
func DefaultCheckAction(check string) string {
	switch check {
	case CheckRemappedRows:
		return ActionReboot
	case CheckUnrepairableMemory:
		return ActionReplace
	}
	return ActionDrain
}

// Schedules: when a check runs.
const (
	ScheduleBoot     = "boot"
	SchedulePrologue = "prolog"
	ScheduleEpilogue = "epilog"
	SchedulePeriodic = "periodic"
	ScheduleOnDemand = "on_demand"
)

// HealthSchedules lists every schedule.
var HealthSchedules = []string{ScheduleBoot, SchedulePrologue, ScheduleEpilogue, SchedulePeriodic, ScheduleOnDemand}

// Repair actions, mildest first.
const (
	ActionDrain   = "drain"   // leave the node drained for a person
	ActionReboot  = "reboot"  // instances.reset
	ActionReimage = "reimage" // delete and recreate from the partition's instance template
	ActionReplace = "replace" // instances.reportHostAsFaulty: the VM moves to a new physical host
)

// HealthActions lists every action.
var HealthActions = []string{ActionDrain, ActionReboot, ActionReimage, ActionReplace}

// HealthDrainPrefix starts the Slurm drain reason of every failed check ("hc:<check>: <evidence>"),
// so the controller tells a health drain from a scale-down or an administrator's.
const HealthDrainPrefix = "hc:"

// HealthDrainReason is the Slurm reason a failed check drains its node with. Slurm keeps reasons
// short in sinfo, so the evidence is clipped.
func HealthDrainReason(check, evidence string) string {
	evidence = strings.Join(strings.Fields(evidence), " ")
	evidence = strings.ReplaceAll(evidence, `"`, "'")
	if len(evidence) > 200 {
		evidence = evidence[:200]
	}
	return HealthDrainPrefix + check + ": " + evidence
}

// ParseHealthDrainReason returns the check a health drain reason names.
func ParseHealthDrainReason(reason string) (check string, ok bool) {
	rest, ok := strings.CutPrefix(reason, HealthDrainPrefix)
	if !ok {
		return "", false
	}
	check, _, ok = strings.Cut(rest, ":")
	return check, ok && slices.Contains(HealthChecks, check)
}

// HealthPolicy is one hypercompute_health_policy.
type HealthPolicy struct {
	Name string `json:"name"`
	// Partitions the policy covers; empty means every partition.
	Partitions []string          `json:"partitions,omitempty"`
	Checks     []HealthCheckSpec `json:"checks"`
	// IntervalSeconds is how often periodic checks run (Slurm's HealthCheckInterval).
	IntervalSeconds int `json:"interval_seconds,omitempty"`
	// Escalation is the ladder of actions for a node that fails again within EscalationWindowHours
	// of its last repair: each new failure takes the next step (the last step repeats).
	Escalation            []string `json:"escalation,omitempty"`
	EscalationWindowHours float64  `json:"escalation_window_hours,omitempty"`
	// RequeueJobs requeues the jobs of a failed node, so they resume from their checkpoint elsewhere.
	RequeueJobs bool         `json:"requeue_jobs"`
	Limits      HealthLimits `json:"limits"`
	// SpareNodes of each partition the policy covers are kept idle in a Slurm reservation
	// (SpareReservation) that jobs do not run in; while a node of the partition is out of service
	// (drained by a check, under repair) one spare leaves the reservation, so a job's node count
	// holds; the repaired node becomes a spare.
	SpareNodes int `json:"spare_node_count,omitempty"`
	// Generation changes with every change of the policy; the agent reports it applied.
	Generation string `json:"generation,omitempty"`
}

// HealthCheckSpec is one check with its schedules, thresholds and the action its failure takes.
type HealthCheckSpec struct {
	Name      string   `json:"name"`
	Schedules []string `json:"schedules"`
	Action    string   `json:"action"`
	// gpu: expected GPUs per node (0: the machine type's count); any XID among XIDs fails.
	ExpectedGPUs int   `json:"expected_gpus,omitempty"`
	XIDs         []int `json:"xids,omitempty"`
	// ecc: uncorrected volatile ECC errors above this fail.
	MaxUncorrectedECC int `json:"max_uncorrected_ecc,omitempty"`
	// dcgm: dcgmi diag level 1-4.
	DCGMLevel int `json:"dcgm_level,omitempty"`
	// nvlink: NVLink error counters above this fail.
	MaxNVLinkErrors int `json:"max_nvlink_errors,omitempty"`
	// disk: each path must keep at least MinFreeGB free.
	Paths     []string `json:"paths,omitempty"`
	MinFreeGB float64  `json:"min_free_gb,omitempty"`
	// mounts: each path must answer within TimeoutSeconds.
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
	// nccl: pairwise all_reduce bus bandwidth below this fails (0: the machine family's catalog figure).
	MinBusBandwidthGBps float64 `json:"min_bus_bandwidth_gbps,omitempty"`
	// straggler: a node's compute time per step above StragglerFactor × the median of its recipe
	// job's nodes in the partition fails (the controller compares the ranks' timings).
	StragglerFactor float64 `json:"straggler_factor,omitempty"`
}

// HealthLimits keep repairs from taking a partition out of service.
type HealthLimits struct {
	MaxConcurrentRepairs int `json:"max_concurrent_repairs"`
	// MaxUnavailablePercent of a partition's nodes may be under repair at once (at least one node).
	MaxUnavailablePercent int `json:"max_unavailable_percent"`
	// CooldownSeconds between two repairs started by this policy.
	CooldownSeconds int `json:"cooldown_seconds,omitempty"`
	// RepairTimeoutSeconds: a repair whose node is not back by then fails (and escalates).
	RepairTimeoutSeconds int `json:"repair_timeout_seconds,omitempty"`
}

// Health policy defaults.
const (
	DefaultHealthInterval          = 60
	DefaultMaxConcurrentRepairs    = 1
	DefaultMaxUnavailablePercent   = 10
	DefaultHealthCooldown          = 0
	DefaultRepairTimeout           = 900
	DefaultMountCheckTimeout       = 10
	DefaultDCGMLevel               = 2
	DefaultStragglerFactor         = 1.3
	DefaultEscalationWindowHours   = 24
	defaultMaxHealthCheckPathCount = 16
	maxSpareNodes                  = 1000
)

// SpareReservation is the Slurm reservation that holds a partition's spare nodes.
func SpareReservation(partition string) string { return "hc-spares-" + partition }

var healthPolicyNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// HealthPolicyKey is the controller metadata key of a policy.
func HealthPolicyKey(name string) string { return HealthPolicyKeyPrefix + name }

// GuestAttrHealthPolicyPrefix + policy name: the generation of the policy the controller applied.
const GuestAttrHealthPolicyPrefix = "health-policy-"

// GuestAttrHealth is the controller's ClusterHealth report.
const GuestAttrHealth = "health"

// HealthPolicyAttr is the guest attribute the controller reports a policy's applied generation in.
func HealthPolicyAttr(name string) string { return GuestAttrHealthPolicyPrefix + name }

// WithDefaults fills the defaults.
func (p HealthPolicy) WithDefaults() HealthPolicy {
	if p.IntervalSeconds == 0 {
		p.IntervalSeconds = DefaultHealthInterval
	}
	if p.Limits.MaxConcurrentRepairs == 0 {
		p.Limits.MaxConcurrentRepairs = DefaultMaxConcurrentRepairs
	}
	if p.Limits.MaxUnavailablePercent == 0 {
		p.Limits.MaxUnavailablePercent = DefaultMaxUnavailablePercent
	}
	if p.Limits.RepairTimeoutSeconds == 0 {
		p.Limits.RepairTimeoutSeconds = DefaultRepairTimeout
	}
	if p.EscalationWindowHours == 0 {
		p.EscalationWindowHours = DefaultEscalationWindowHours
	}
	checks := make([]HealthCheckSpec, len(p.Checks))
	for i, c := range p.Checks {
		if c.Action == "" {
			c.Action = DefaultCheckAction(c.Name)
		}
		if len(c.Schedules) == 0 {
			c.Schedules = []string{SchedulePeriodic}
		}
		switch c.Name {
		case CheckMounts:
			if c.TimeoutSeconds == 0 {
				c.TimeoutSeconds = DefaultMountCheckTimeout
			}
			if len(c.Paths) == 0 {
				c.Paths = []string{"/home"}
			}
		case CheckDCGM:
			if c.DCGMLevel == 0 {
				c.DCGMLevel = DefaultDCGMLevel
			}
		case CheckStraggler:
			if c.StragglerFactor == 0 {
				c.StragglerFactor = DefaultStragglerFactor
			}
		case CheckDisk:
			if len(c.Paths) == 0 {
				c.Paths = []string{"/"}
			}
		}
		checks[i] = c
	}
	p.Checks = checks
	return p
}

// ValidateHealthPolicy checks a policy; messages start with the attribute they are about.
func ValidateHealthPolicy(p HealthPolicy) error {
	if !healthPolicyNameRE.MatchString(p.Name) {
		return fmt.Errorf("name %q is invalid: use 1-63 lowercase letters, digits and hyphens, starting with a letter", p.Name)
	}
	if len(p.Checks) == 0 {
		return fmt.Errorf("checks: a health policy needs at least one check")
	}
	seen := map[string]bool{}
	for i, c := range p.Checks {
		at := fmt.Sprintf("checks[%d]", i)
		if !slices.Contains(HealthChecks, c.Name) {
			return fmt.Errorf("%s.name %q is not a check; use one of %s", at, c.Name, strings.Join(HealthChecks, ", "))
		}
		if seen[c.Name] {
			return fmt.Errorf("%s.name: check %q is listed twice", at, c.Name)
		}
		seen[c.Name] = true
		for _, s := range c.Schedules {
			if !slices.Contains(HealthSchedules, s) {
				return fmt.Errorf("%s.schedules: %q is not a schedule; use %s", at, s, strings.Join(HealthSchedules, ", "))
			}
		}
		if c.Action != "" && !slices.Contains(HealthActions, c.Action) {
			return fmt.Errorf("%s.action %q is not an action; use %s", at, c.Action, strings.Join(HealthActions, ", "))
		}
		if c.Name == CheckUnrepairableMemory && (c.Action == ActionReboot || c.Action == ActionReimage) {
			return fmt.Errorf("%s.action %q cannot repair %s: the faulty GPU memory stays with the physical host through a reset or a new boot disk; use %q (instances.reportHostAsFaulty moves the VM to another host) or %q", at, c.Action, c.Name, ActionReplace, ActionDrain)
		}
		if c.DCGMLevel != 0 && (c.DCGMLevel < 1 || c.DCGMLevel > 4) {
			return fmt.Errorf("%s.dcgm_level %d is out of range; dcgmi diag runs levels 1 to 4", at, c.DCGMLevel)
		}
		if c.ExpectedGPUs < 0 || c.MaxUncorrectedECC < 0 || c.MaxNVLinkErrors < 0 || c.MinFreeGB < 0 || c.TimeoutSeconds < 0 || c.MinBusBandwidthGBps < 0 {
			return fmt.Errorf("%s: thresholds must not be negative", at)
		}
		if c.StragglerFactor != 0 && c.StragglerFactor <= 1 {
			return fmt.Errorf("%s.straggler_factor %g must be above 1 (a node slower than the median by that factor fails)", at, c.StragglerFactor)
		}
		if len(c.Paths) > defaultMaxHealthCheckPathCount {
			return fmt.Errorf("%s.paths: at most %d paths", at, defaultMaxHealthCheckPathCount)
		}
		for _, pth := range c.Paths {
			if !path.IsAbs(pth) || strings.ContainsAny(pth, " \t\n\"'") {
				return fmt.Errorf("%s.paths: %q must be an absolute path without spaces or quotes", at, pth)
			}
		}
	}
	for i, a := range p.Escalation {
		if !slices.Contains(HealthActions, a) {
			return fmt.Errorf("escalation[%d] %q is not an action; use %s", i, a, strings.Join(HealthActions, ", "))
		}
	}
	if p.IntervalSeconds < 0 || p.IntervalSeconds > maxSlurmUint16 {
		return fmt.Errorf("interval_seconds %d is out of range; use 1 to %d", p.IntervalSeconds, maxSlurmUint16)
	}
	if p.SpareNodes < 0 || p.SpareNodes > maxSpareNodes {
		return fmt.Errorf("spare_node_count %d is out of range; use 0 to %d", p.SpareNodes, maxSpareNodes)
	}
	l := p.Limits
	if l.MaxConcurrentRepairs < 0 {
		return fmt.Errorf("limits.max_concurrent_repairs must not be negative")
	}
	if l.MaxUnavailablePercent < 0 || l.MaxUnavailablePercent > 100 {
		return fmt.Errorf("limits.max_unavailable_percent %d must be 0 to 100", l.MaxUnavailablePercent)
	}
	if l.CooldownSeconds < 0 || l.RepairTimeoutSeconds < 0 || p.EscalationWindowHours < 0 {
		return fmt.Errorf("limits: durations must not be negative")
	}
	return nil
}

// EncodeHealthPolicy validates and encodes a policy for its metadata key.
func EncodeHealthPolicy(p HealthPolicy) ([]byte, error) {
	if err := ValidateHealthPolicy(p); err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// DecodeHealthPolicy decodes and validates a policy.
func DecodeHealthPolicy(b []byte) (HealthPolicy, error) {
	var p HealthPolicy
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("health policy: %w", err)
	}
	return p, ValidateHealthPolicy(p)
}
