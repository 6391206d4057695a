package catalog

import (
	"fmt"
	"strconv"
	"strings"
)

// CapacityStep is one range of valid capacities: Min, Min+Step, Min+2×Step …
// up to Max, all inclusive. Every range in this catalog is aligned so that
// its values are also whole multiples of Step.
type CapacityStep struct {
	Min, Max, Step int64
}

// Contains reports whether v is one of the range's values.
func (s CapacityStep) Contains(v int64) bool {
	return v >= s.Min && v <= s.Max && (v-s.Min)%s.Step == 0
}

func (s CapacityStep) describe(unit string) string {
	if s.Step == 1 {
		return fmt.Sprintf("%s-%s %s", num(s.Min), num(s.Max), unit)
	}
	return fmt.Sprintf("%s-%s %s in steps of %s %s", num(s.Min), num(s.Max), unit, num(s.Step), unit)
}

// capacityRule is the shared checker behind Filestore and Lustre sizes.
type capacityRule struct {
	field string // attribute name users see, e.g. capacity_gb
	unit  string // GB or GiB
	what  string // "tier ZONAL", "throughput 500 MBps/TiB"
	steps []CapacityStep
}

func (r capacityRule) check(v int64) error {
	lo, hi := r.steps[0].Min, r.steps[len(r.steps)-1].Max
	switch {
	case v < lo:
		return fmt.Errorf("%s %s is below the minimum %s for %s (allowed: %s)", r.field, num(v), num(lo), r.what, r.rule())
	case v > hi:
		return fmt.Errorf("%s %s is above the maximum %s for %s (allowed: %s)", r.field, num(v), num(hi), r.what, r.rule())
	}
	for _, s := range r.steps {
		if s.Contains(v) {
			return nil
		}
	}
	below, above := r.nearest(v)
	return fmt.Errorf("%s %s is not a valid size for %s (allowed: %s); the nearest valid sizes are %s and %s",
		r.field, num(v), r.what, r.rule(), num(below), num(above))
}

func (r capacityRule) rule() string {
	parts := make([]string, len(r.steps))
	for i, s := range r.steps {
		parts[i] = s.describe(r.unit)
	}
	return strings.Join(parts, ", then ")
}

// nearest returns the closest valid sizes below and above v; v lies within
// [first Min, last Max] and is itself invalid.
func (r capacityRule) nearest(v int64) (below, above int64) {
	below, above = r.steps[0].Min, r.steps[len(r.steps)-1].Max
	for _, s := range r.steps {
		if v > s.Max {
			below = max(below, s.Max)
			continue
		}
		if v < s.Min {
			above = min(above, s.Min)
			continue
		}
		k := (v - s.Min) / s.Step
		below = max(below, s.Min+k*s.Step)
		above = min(above, s.Min+(k+1)*s.Step)
	}
	return below, above
}

// num writes a size as users type it in HCL (no thousands separators), so
// values can be copied from an error into a configuration.
func num(n int64) string { return strconv.FormatInt(n, 10) }
