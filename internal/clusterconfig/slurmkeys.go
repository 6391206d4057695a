package clusterconfig

import (
	"fmt"
	"sort"
	"strings"
)

// keyRule says how a user-supplied slurm.conf key is treated.
type keyRule int

const (
	// keyAllowed: written verbatim.
	keyAllowed keyRule = iota + 1
	// keyOverride: the product writes a default the user may replace.
	keyOverride
	// keyMerge: a comma-separated list; the user's items are added to the
	// product's (an item naming the same option replaces the product's).
	keyMerge
	// keyOwned: set by the product; refused with the reason.
	keyOwned
	// keyRetired: Slurm 22.05 accepts it but a later release removed it, so
	// a cluster using it would break on upgrade.
	keyRetired
	// keyNewer: only releases after 22.05 know it; 22.05 refuses to start.
	keyNewer
)

type keySpec struct {
	rule   keyRule
	reason string
}

// The global keys Slurm 22.05.8 parses and documents (slurm.conf(5) of
// Debian 12's slurm-client, each confirmed by feeding it to slurmctld's
// parser), minus those listed as owned, merged, overridden, retired or newer.
var allowedGlobalKeys = []string{
	"AccountingStorageBackupHost", "AccountingStorageEnforce", "AccountingStorageExternalHost",
	"AccountingStorageHost", "AccountingStorageParameters", "AccountingStoragePass",
	"AccountingStoragePort", "AccountingStorageTRES", "AccountingStorageType",
	"AccountingStorageUser", "AccountingStoreFlags", "AcctGatherEnergyType",
	"AcctGatherFilesystemType", "AcctGatherInterconnectType", "AcctGatherNodeFreq",
	"AcctGatherProfileType", "AllowSpecResourcesUsage", "BatchStartTimeout", "BcastExclude",
	"BcastParameters", "BurstBufferType", "CliFilterPlugins", "CommunicationParameters",
	"CompleteWait", "CoreSpecPlugin", "CpuFreqDef", "CpuFreqGovernors", "DebugFlags",
	"DefCpuPerGPU", "DefMemPerCPU", "DefMemPerGPU", "DefMemPerNode", "DependencyParameters",
	"DisableRootJobs", "EioTimeout", "EnforcePartLimits", "EpilogMsgTime", "EpilogSlurmctld",
	"ExtSensorsFreq", "ExtSensorsType", "FairShareDampeningFactor", "FederationParameters",
	"FirstJobId", "GetEnvTimeout", "GpuFreqDef", "GroupUpdateForce", "GroupUpdateTime",
	"InactiveLimit", "InteractiveStepOptions", "JobAcctGatherFrequency", "JobAcctGatherParams",
	"JobAcctGatherType", "JobCompHost", "JobCompLoc", "JobCompParams", "JobCompPass",
	"JobCompPort", "JobCompType", "JobCompUser", "JobContainerType", "JobFileAppend",
	"JobRequeue", "JobSubmitPlugins", "KillOnBadExit", "KillWait", "LaunchType", "Licenses",
	"LogTimeFormat", "MCSParameters", "MCSPlugin", "MailDomain", "MaxArraySize",
	"MaxDBDMsgs", "MaxJobCount", "MaxJobId", "MaxMemPerCPU", "MaxMemPerNode", "MaxNodeCount",
	"MaxStepCount", "MaxTasksPerNode", "MinJobAge", "MpiParams", "NodeFeaturesPlugins",
	"OverTimeLimit", "PlugStackConfig", "PowerParameters", "PowerPlugin", "PrEpParameters",
	"PrEpPlugins", "PreemptExemptTime", "PreemptMode", "PreemptType", "PriorityCalcPeriod",
	"PriorityDecayHalfLife", "PriorityFavorSmall", "PriorityFlags", "PriorityMaxAge",
	"PriorityParameters", "PrioritySiteFactorParameters", "PrioritySiteFactorPlugin",
	"PriorityType", "PriorityUsageResetPeriod", "PriorityWeightAge", "PriorityWeightAssoc",
	"PriorityWeightFairshare", "PriorityWeightJobSize", "PriorityWeightPartition",
	"PriorityWeightQOS", "PriorityWeightTRES", "PrologEpilogTimeout", "PrologSlurmctld",
	"PropagatePrioProcess", "PropagateResourceLimits", "PropagateResourceLimitsExcept",
	"RebootProgram", "ReconfigFlags", "RequeueExit", "RequeueExitHold", "ResvEpilog",
	"ResvOverRun", "ResvProlog", "SchedulerTimeSlice", "SchedulerType", "ScronParameters",
	"SlurmSchedLogFile", "SlurmSchedLogLevel", "SlurmctldDebug", "SlurmctldPlugstack",
	"SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg", "SlurmctldSyslogDebug",
	"SlurmctldTimeout", "SlurmdDebug", "SlurmdParameters", "SlurmdSyslogDebug", "SlurmdTimeout",
	"SrunEpilog", "SrunPortRange", "SrunProlog", "SwitchParameters", "SwitchType", "TCPTimeout",
	"TaskEpilog", "TaskPluginParam", "TaskProlog", "TmpFS", "TopologyParam", "TopologyPlugin",
	"TrackWCKey", "UnkillableStepProgram", "UnkillableStepTimeout", "UsePAM", "VSizeFactor",
	"WaitTime", "X11Parameters",
}

const (
	reasonIdentity   = "it is set from the cluster's name and controller"
	reasonAuth       = "authentication is managed by hypercompute (munge, plus JWT for slurmrestd, with keys generated inside the cluster)"
	reasonLayout     = "it is part of the node layout the agent sets up"
	reasonPorts      = "set the cluster's Slurm port settings instead"
	reasonPower      = "power saving runs the agent's programs and keeps static nodes powered up"
	reasonPowerTimes = "set suspend_time / resume_timeout on the cluster or the partition instead"
	reasonGres       = "it is derived from the partitions' machine types"
	reasonNodes      = "nodes and partitions are declared by hypercompute_node_partition resources"
	reasonScripts    = "set the cluster's prolog / epilog scripts instead"
	reasonHealth     = "health checks are configured by hypercompute_health_policy"
	reasonPlugins    = "the cluster relies on cgroup process tracking and select/cons_tres (GPU GRES scheduling)"
)

var globalKeySpecs = func() map[string]keySpec {
	m := map[string]keySpec{}
	for _, k := range allowedGlobalKeys {
		m[k] = keySpec{rule: keyAllowed}
	}
	owned := func(reason string, keys ...string) {
		for _, k := range keys {
			m[k] = keySpec{rule: keyOwned, reason: reason}
		}
	}
	owned(reasonIdentity, "ClusterName", "SlurmctldHost", "ControlMachine", "ControlAddr",
		"BackupController", "BackupAddr", "SlurmctldAddr")
	owned(reasonAuth, "AuthType", "AuthAltTypes", "AuthAltParameters", "AuthInfo", "CredType")
	owned(reasonLayout, "SlurmUser", "SlurmdUser", "StateSaveLocation", "SlurmdSpoolDir",
		"SlurmctldPidFile", "SlurmdPidFile", "SlurmctldLogFile", "SlurmdLogFile", "PluginDir")
	owned(reasonPorts, "SlurmctldPort", "SlurmdPort")
	owned(reasonPower, "ResumeProgram", "SuspendProgram", "ResumeFailProgram",
		"SuspendExcNodes", "SuspendExcParts")
	owned(reasonPowerTimes, "SuspendTime", "ResumeTimeout")
	owned(reasonGres, "GresTypes")
	owned(reasonNodes, "NodeName", "NodeSet", "PartitionName", "DownNodes", "FrontendName")
	owned(reasonScripts, "Prolog", "Epilog")
	owned(reasonHealth, "HealthCheckProgram", "HealthCheckInterval", "HealthCheckNodeState")
	owned(reasonPlugins, "ProctrackType", "TaskPlugin", "SelectType")
	for _, k := range []string{"SelectTypeParameters", "ReturnToService", "MpiDefault",
		"MessageTimeout", "MailProg", "TreeWidth", "ResumeRate", "SuspendRate", "SuspendTimeout"} {
		m[k] = keySpec{rule: keyOverride}
	}
	for _, k := range mergedGlobalKeys {
		m[k] = keySpec{rule: keyMerge}
	}
	m["RoutePlugin"] = keySpec{rule: keyRetired, reason: "Slurm 23.11 replaced it with TopologyParam=RouteTree"}
	m["SuspendExcStates"] = keySpec{rule: keyNewer, reason: "Slurm 23.02 added it"}
	m["HashPlugin"] = keySpec{rule: keyNewer, reason: "Slurm 23.11 added it"}
	return m
}()

// mergedGlobalKeys are comma lists the product fills and users extend.
var mergedGlobalKeys = []string{"SchedulerParameters", "SlurmctldParameters", "PrivateData", "PrologFlags", "LaunchParameters"}

// retiredListItems are items of merged keys Slurm removed after 22.05.
var retiredListItems = map[string]map[string]string{
	"SlurmctldParameters": {"cloud_reg_addrs": "Slurm 23.11 removed it (registration addresses became the default)"},
}

// The partition keys Slurm 22.05.8 parses and documents, minus the owned.
var allowedPartitionKeys = []string{
	"AllocNodes", "AllowAccounts", "AllowGroups", "AllowQos", "Alternate", "CpuBind",
	"DefCpuPerGPU", "DefMemPerCPU", "DefMemPerGPU", "DefMemPerNode", "DefaultTime",
	"DenyAccounts", "DenyQos", "DisableRootJobs", "ExclusiveUser", "GraceTime", "Hidden", "LLN",
	"MaxCPUsPerNode", "MaxMemPerCPU", "MaxMemPerNode", "MaxNodes", "MinNodes", "OverTimeLimit",
	"PreemptMode", "PriorityJobFactor", "PriorityTier", "QOS", "ReqResv", "RootOnly",
	"SelectTypeParameters", "SuspendTimeout", "TRESBillingWeights",
}

var partitionKeySpecs = func() map[string]keySpec {
	m := map[string]keySpec{}
	for _, k := range allowedPartitionKeys {
		m[k] = keySpec{rule: keyAllowed}
	}
	owned := func(reason string, keys ...string) {
		for _, k := range keys {
			m[k] = keySpec{rule: keyOwned, reason: reason}
		}
	}
	owned("it is the partition's name", "PartitionName")
	owned("the partition's nodes come from its node set", "Nodes")
	owned("set the partition's default flag instead", "Default")
	owned("set the partition's max_time instead", "MaxTime")
	owned("set the partition's exclusive flag instead", "OverSubscribe", "Shared")
	owned("set the partition's resume_timeout instead", "ResumeTimeout")
	owned("set the partition's suspend_time instead", "SuspendTime")
	owned("partitions are always created UP", "State")
	m["PowerDownOnIdle"] = keySpec{rule: keyNewer, reason: "Slurm 23.02 added it"}
	m["ExclusiveTopo"] = keySpec{rule: keyNewer, reason: "Slurm 24.05 added it"}
	return m
}()

var (
	globalKeyIndex    = lowerIndex(globalKeySpecs)
	partitionKeyIndex = lowerIndex(partitionKeySpecs)
)

func lowerIndex(m map[string]keySpec) map[string]string {
	idx := make(map[string]string, len(m))
	for k := range m {
		idx[strings.ToLower(k)] = k
	}
	return idx
}

// ValidateExtraSlurmSettings checks user-supplied slurm.conf settings: every
// key must be a slurm.conf key that Slurm 22.05 and later accept and that the
// product does not own; values must fit on one slurm.conf line. The error
// names the offending key. The provider calls it at plan time; rendering
// calls it again.
func ValidateExtraSlurmSettings(extra map[string]string) error {
	_, err := canonicalSettings(extra, globalKeySpecs, globalKeyIndex, "slurm.conf setting")
	return err
}

// ValidateExtraPartitionSettings checks user-supplied PartitionName settings
// the same way.
func ValidateExtraPartitionSettings(extra map[string]string) error {
	_, err := canonicalSettings(extra, partitionKeySpecs, partitionKeyIndex, "partition setting")
	return err
}

// canonicalSettings validates settings and returns them keyed by Slurm's
// spelling (keys are case-insensitive in slurm.conf).
func canonicalSettings(extra map[string]string, specs map[string]keySpec, index map[string]string, what string) (map[string]string, error) {
	out := make(map[string]string, len(extra))
	given := map[string]string{}
	for _, key := range sortedKeys(extra) {
		value := extra[key]
		canon, ok := index[strings.ToLower(strings.TrimSpace(key))]
		if !ok {
			msg := fmt.Sprintf("%s %q is not a key Slurm 22.05 knows", what, key)
			if s := suggestKey(key, specs); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		spec := specs[canon]
		switch spec.rule {
		case keyOwned:
			return nil, fmt.Errorf("%s %q cannot be set: %s", what, key, spec.reason)
		case keyRetired:
			return nil, fmt.Errorf("%s %q is not allowed: Slurm 22.05 accepts it but %s, so the cluster would break on a Slurm upgrade", what, key, spec.reason)
		case keyNewer:
			return nil, fmt.Errorf("%s %q is not allowed: %s and Slurm 22.05 refuses to start with it", what, key, spec.reason)
		}
		if prev, dup := given[canon]; dup {
			return nil, fmt.Errorf("%s %q is given twice (as %q and %q; slurm.conf keys are case-insensitive)", what, canon, prev, key)
		}
		given[canon] = key
		if err := validateSettingValue(what, key, value); err != nil {
			return nil, err
		}
		if items, ok := retiredListItems[canon]; ok {
			for _, item := range splitList(value) {
				name, _, _ := strings.Cut(item, "=")
				if why, bad := items[strings.ToLower(name)]; bad {
					return nil, fmt.Errorf("%s %q: option %q is not allowed: Slurm 22.05 accepts it but %s", what, key, name, why)
				}
			}
		}
		out[canon] = value
	}
	return out, nil
}

func validateSettingValue(what, key, value string) error {
	switch {
	case strings.TrimSpace(value) == "":
		return fmt.Errorf("%s %q has an empty value; remove the key to keep Slurm's default", what, key)
	case strings.ContainsAny(value, "\n\r"):
		return fmt.Errorf("%s %q: the value must be a single line", what, key)
	case strings.Contains(value, "#"):
		return fmt.Errorf("%s %q: the value must not contain \"#\" (slurm.conf starts a comment there)", what, key)
	case strings.Contains(value, `"`):
		return fmt.Errorf("%s %q: the value must not contain double quotes", what, key)
	}
	return nil
}

// formatValue quotes values that contain whitespace, which slurm.conf would
// otherwise split into separate keys.
func formatValue(v string) string {
	if strings.ContainsAny(v, " \t") {
		return `"` + v + `"`
	}
	return v
}

// suggestKey finds a known key within a small edit distance of key.
func suggestKey(key string, specs map[string]keySpec) string {
	best, bestD := "", 3
	lk := strings.ToLower(key)
	for _, k := range sortedKeys(specs) {
		if specs[k].rule == keyRetired || specs[k].rule == keyNewer {
			continue
		}
		if d := editDistance(lk, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// splitList splits a comma list, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mergeList appends extra items to base; an extra item whose option name
// (before "=", case-insensitive) matches a base item replaces it in place,
// and duplicates are dropped.
func mergeList(base []string, extra ...string) []string {
	out := append([]string(nil), base...)
	pos := map[string]int{}
	for i, item := range out {
		pos[optionName(item)] = i
	}
	for _, item := range extra {
		n := optionName(item)
		if i, ok := pos[n]; ok {
			out[i] = item
			continue
		}
		pos[n] = len(out)
		out = append(out, item)
	}
	return out
}

func optionName(item string) string {
	n, _, _ := strings.Cut(item, "=")
	return strings.ToLower(strings.TrimSpace(n))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// AllowedSlurmSettings lists the slurm.conf keys ValidateExtraSlurmSettings
// accepts, sorted: for documentation and error messages.
func AllowedSlurmSettings() []string { return userKeys(globalKeySpecs) }

// AllowedPartitionSettings lists the PartitionName keys
// ValidateExtraPartitionSettings accepts, sorted.
func AllowedPartitionSettings() []string { return userKeys(partitionKeySpecs) }

func userKeys(specs map[string]keySpec) []string {
	var out []string
	for _, k := range sortedKeys(specs) {
		switch specs[k].rule {
		case keyAllowed, keyOverride, keyMerge:
			out = append(out, k)
		}
	}
	return out
}
