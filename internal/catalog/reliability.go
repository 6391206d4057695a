package catalog

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Reliability is the interruption record used for one machine profile: how
// often a training job on that hardware is interrupted, per GPU. A job on n
// GPUs is interrupted every GPUMTBIHours/n hours on average (failures of
// independent parts add up, so the job's rate is the sum of its GPUs' rates).
type Reliability struct {
	Profile string
	// GPUMTBIHours is the mean time between unexpected job interruptions
	// per GPU, in GPU-hours.
	GPUMTBIHours float64
	// Source names the published record the figure comes from.
	Source string
}

// llama3GPUMTBIHours: Llama 3 training saw 419 unexpected interruptions in
// 54 days on 16,384 H100s (hardware-and-field.md, "Reliability figures to
// beat"): 16,384 × 54 × 24 / 419 ≈ 50,677 GPU-hours per interruption, i.e.
// one every ~3.1 h for the whole job.
const llama3GPUMTBIHours = 16384 * 54 * 24 / 419.0

// MetaRSCGPUMTBIHours: Meta's mean time to failure of ≈ 7.9 h for 1,024-GPU
// jobs (hardware-and-field.md) gives 1,024 × 7.9 ≈ 8,090 GPU-hours. It is six
// times worse than the Llama 3 record; no profile uses it by default, the
// planner and benchmark use it as the pessimistic case.
const MetaRSCGPUMTBIHours = 1024 * 7.9

const (
	sourceLlama3      = "Llama 3: 419 unexpected interruptions in 54 days on 16,384 H100s (hardware-and-field.md)"
	sourceLlama3Proxy = "no published record for this GPU; the H100 record of Llama 3 (419 interruptions in 54 days on 16,384 GPUs, hardware-and-field.md) is used"
)

// reliabilityTable holds a figure for every GPU profile with multi-node
// training in the field. G2 (L4) has no published large-job record, so it has
// no entry: a plan for it must state its MTBF.
var reliabilityTable = []Reliability{
	// H100: the Llama 3 run was on H100s.
	{Profile: "a3-high", GPUMTBIHours: llama3GPUMTBIHours, Source: sourceLlama3},
	{Profile: "a3-mega", GPUMTBIHours: llama3GPUMTBIHours, Source: sourceLlama3},
	// H200, B200, GB200: same per-GPU figure, stated as a proxy.
	{Profile: "a3-ultra", GPUMTBIHours: llama3GPUMTBIHours, Source: sourceLlama3Proxy},
	{Profile: "a4", GPUMTBIHours: llama3GPUMTBIHours, Source: sourceLlama3Proxy},
	{Profile: "a4x", GPUMTBIHours: llama3GPUMTBIHours, Source: sourceLlama3Proxy},
}

// ReliabilityFor returns the interruption record of a machine profile
// (MachineType.Profile, e.g. "a3-mega").
func ReliabilityFor(profile string) (Reliability, bool) {
	for _, r := range reliabilityTable {
		if r.Profile == profile {
			return r, true
		}
	}
	return Reliability{}, false
}

// ReliabilityProfiles lists the profiles that have a reliability figure.
func ReliabilityProfiles() []string {
	out := make([]string, 0, len(reliabilityTable))
	for _, r := range reliabilityTable {
		out = append(out, r.Profile)
	}
	sort.Strings(out)
	return out
}

// ProfileGPUsPerNode is the GPU count of a profile's VMs. A profile whose
// machine types differ in GPU count (g2) has no single answer and errors.
func ProfileGPUsPerNode(profile string) (int, error) {
	n := 0
	for _, m := range machineList {
		if m.Profile != profile || !m.HasGPU() {
			continue
		}
		if n != 0 && n != m.GPUCount() {
			return 0, fmt.Errorf("profile %q has machine types with %d and %d GPUs; name the machine type", profile, n, m.GPUCount())
		}
		n = m.GPUCount()
	}
	if n == 0 {
		return 0, fmt.Errorf("profile %q has no GPU machine type in the catalog", profile)
	}
	return n, nil
}

// NodeMTBI is the mean time between interruptions of one VM of a GPU
// profile: the per-GPU figure divided by the VM's GPUs.
func NodeMTBI(profile string) (time.Duration, error) {
	r, ok := ReliabilityFor(profile)
	if !ok {
		return 0, fmt.Errorf("no published reliability figure for profile %q (known: %s); state the MTBF yourself", profile, strings.Join(ReliabilityProfiles(), ", "))
	}
	g, err := ProfileGPUsPerNode(profile)
	if err != nil {
		return 0, err
	}
	return time.Duration(r.GPUMTBIHours / float64(g) * float64(time.Hour)), nil
}

// Recovery regimes: what happens between a node failing and the job running
// again, with and without automatic health checks and repair.
const (
	RecoveryManual    = "manual"
	RecoveryAutomatic = "automatic"
)

// Recovery holds the times of one recovery regime. The job is down for
// Detect + (Swap when a spare is free, else the wait for a Repair) + Restart.
type Recovery struct {
	Name string
	// Detect: from the failure to the job stopped and the bad node known.
	Detect time.Duration
	// Swap: putting a healthy spare in the failed node's place.
	Swap time.Duration
	// Repair: the failed node back in service (the wait when no spare is free).
	Repair time.Duration
	// Restart: relaunching the job and loading the last checkpoint.
	Restart time.Duration
	Source  string
}

var recoveryTable = []Recovery{
	{
		Name: RecoveryManual,
		// Detect + Repair + Restart = 30 min, the field's manual recovery
		// (HyperPod: "15-30+ min", hardware-and-field.md; issue 14's R = 30
		// min). The split is an assumption: a person notices the stalled job
		// (10 min), gets the host replaced (15 min), requeues (5 min). A
		// spare does not shorten it: the person's swap takes as long.
		Detect: 10 * time.Minute, Swap: 15 * time.Minute, Repair: 15 * time.Minute, Restart: 5 * time.Minute,
		Source: "HyperPod manual recovery 15-30+ min (hardware-and-field.md); split between detect, repair and restart assumed",
	},
	{
		Name: RecoveryAutomatic,
		// Detect + Restart = 2 min with a spare: HyperPod's automatic
		// recovery "under 2 min" (hardware-and-field.md). Health checks run
		// every 60 s (CycleCloud's NHC cadence, hardware-and-field.md), so
		// detection takes at most a minute; the requeued job lands on an idle,
		// already-checked spare (no extra swap time). Repair (20 min) is an
		// assumption: reportHostAsFaulty moves the VM to a new host, which
		// boots and passes its checks; no published figure.
		Detect: time.Minute, Swap: 0, Repair: 20 * time.Minute, Restart: time.Minute,
		Source: "HyperPod automatic recovery under 2 min, NHC checks every 60 s (hardware-and-field.md); repair time assumed",
	},
}

// RecoveryFor returns a recovery regime by name (RecoveryManual, RecoveryAutomatic).
func RecoveryFor(name string) (Recovery, bool) {
	for _, r := range recoveryTable {
		if r.Name == name {
			return r, true
		}
	}
	return Recovery{}, false
}

// RecoveryNames lists the recovery regimes.
func RecoveryNames() []string {
	out := make([]string, 0, len(recoveryTable))
	for _, r := range recoveryTable {
		out = append(out, r.Name)
	}
	return out
}
