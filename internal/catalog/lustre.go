package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// LustreTier holds the capacity rules of one Managed Lustre throughput tier.
type LustreTier struct {
	Throughput int64 // perUnitStorageThroughput, MBps per TiB
	MinGiB     int64
	MaxGiB     int64
	// Steps are the valid capacity ranges, in order (see lustreSteps).
	Steps []CapacityStep
}

// lustreSteps turns the docs' "small step up to X, then large step" into
// ranges. Up to X the valid sizes are multiples of small; above X they are
// multiples of large (the first one being the smallest multiple of large
// above X). Reading "then large" as X + k×large would make the documented
// maxima unreachable (e.g. 10,008,000 − 1,530,000 is not a multiple of
// 72,000), while every documented maximum is a multiple of large, so the
// multiples reading is the one consistent with the table in gcp-apis.md.
func lustreSteps(min, small, switchAt, large, max int64) []CapacityStep {
	steps := []CapacityStep{{Min: min, Max: switchAt, Step: small}}
	if large > 0 && max > switchAt {
		first := (switchAt/large + 1) * large
		steps = append(steps, CapacityStep{Min: first, Max: max, Step: large})
	}
	return steps
}

var lustreTiers = []LustreTier{
	{Throughput: 125, MinGiB: 72000, MaxGiB: 12240000, Steps: lustreSteps(72000, 72000, 12240000, 0, 12240000)},
	{Throughput: 250, MinGiB: 36000, MaxGiB: 40032000, Steps: lustreSteps(36000, 36000, 6120000, 288000, 40032000)},
	{Throughput: 500, MinGiB: 18000, MaxGiB: 20016000, Steps: lustreSteps(18000, 18000, 3060000, 144000, 20016000)},
	{Throughput: 1000, MinGiB: 9000, MaxGiB: 10008000, Steps: lustreSteps(9000, 9000, 1530000, 72000, 10008000)},
}

// DefaultLustreCapacityGiB is the field's default Lustre size (cluster
// toolkit's managed-lustre module). It is valid for the 250, 500 and 1000
// MBps/TiB tiers (a multiple of their first step, at or above their
// minimum); the 125 tier starts at 72000 GiB, so a configuration choosing
// 125 must set the capacity itself.
const DefaultLustreCapacityGiB = 36000

func (t LustreTier) clone() LustreTier {
	t.Steps = append([]CapacityStep(nil), t.Steps...)
	return t
}

// LustreTiers returns the throughput tiers in ascending throughput.
func LustreTiers() []LustreTier {
	out := make([]LustreTier, len(lustreTiers))
	for i, t := range lustreTiers {
		out[i] = t.clone()
	}
	return out
}

// LustreThroughputs returns the valid perUnitStorageThroughput values.
func LustreThroughputs() []int64 {
	out := make([]int64, len(lustreTiers))
	for i, t := range lustreTiers {
		out[i] = t.Throughput
	}
	return out
}

// LustreTierFor looks a tier up by throughput (MBps per TiB).
func LustreTierFor(throughput int64) (LustreTier, bool) {
	for _, t := range lustreTiers {
		if t.Throughput == throughput {
			return t.clone(), true
		}
	}
	return LustreTier{}, false
}

// ValidateLustreThroughput checks a per_unit_storage_throughput value.
func ValidateLustreThroughput(throughput int64) error {
	if _, ok := LustreTierFor(throughput); ok {
		return nil
	}
	vals := make([]string, 0, len(lustreTiers))
	for _, t := range lustreTiers {
		vals = append(vals, fmt.Sprint(t.Throughput))
	}
	return fmt.Errorf("per_unit_storage_throughput %d is not offered; use one of %s (MBps per TiB)", throughput, strings.Join(vals, ", "))
}

// ValidateLustreCapacity checks capacity_gib against a throughput tier.
func ValidateLustreCapacity(throughput, gib int64) error {
	t, ok := LustreTierFor(throughput)
	if !ok {
		return ValidateLustreThroughput(throughput)
	}
	r := capacityRule{field: "capacity_gib", unit: "GiB", what: fmt.Sprintf("throughput %d MBps/TiB", throughput), steps: t.Steps}
	return r.check(gib)
}

// ValidateLustreResize checks an in-place capacity change: Lustre capacity
// cannot shrink, and the new size must be valid for the tier.
func ValidateLustreResize(throughput, from, to int64) error {
	if err := ValidateLustreCapacity(throughput, to); err != nil {
		return err
	}
	if to < from {
		return fmt.Errorf("capacity_gib cannot shrink from %d to %d: Managed Lustre capacity can only grow", from, to)
	}
	return nil
}

var lustreFilesystemRE = regexp.MustCompile(`^[A-Za-z0-9]{1,8}$`)

// ValidateLustreFilesystem checks the filesystem name: 1-8 letters or digits.
func ValidateLustreFilesystem(name string) error {
	if lustreFilesystemRE.MatchString(name) {
		return nil
	}
	if name == "" {
		return fmt.Errorf("filesystem name must not be empty (1-8 letters or digits, e.g. \"lustrefs\")")
	}
	if len(name) > 8 {
		return fmt.Errorf("filesystem name %q is %d characters long; at most 8 letters or digits are allowed", name, len(name))
	}
	return fmt.Errorf("filesystem name %q is invalid: use only letters and digits (at most 8)", name)
}

// ValidateLustreInstanceID checks an instance ID: lowercase letters, digits
// and hyphens, starting with a letter, ending with a letter or digit, 1-63.
func ValidateLustreInstanceID(id string) error {
	if resourceNameRE.MatchString(id) {
		return nil
	}
	return fmt.Errorf("Lustre instance ID %q is invalid: %s", id, resourceNameRule(id))
}
