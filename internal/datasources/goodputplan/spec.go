package goodputplan

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/goodput"
)

// spec is a checked configuration, ready for the planner.
type spec struct {
	params    goodput.Params
	source    string // where node_mtbf_hours came from
	target    string // checkpoint storage target, "" when the cost was given
	maxSpares int
	regime    string
}

// checker collects attribute errors; every message starts with the
// attribute's name, because Terraform does not always print the path.
type checker struct {
	diags   diag.Diagnostics
	unknown bool // some input is not known yet (plan time): skip what depends on it
}

func (c *checker) fail(attr, format string, args ...any) {
	c.diags.AddAttributeError(path.Root(attr), "Invalid goodput plan input", attr+": "+fmt.Sprintf(format, args...))
}

// given reports whether v is set and known; an unknown v marks the check
// incomplete.
func (c *checker) given(v attr.Value) bool {
	if v.IsUnknown() {
		c.unknown = true
		return false
	}
	return !v.IsNull()
}

func minutes(f float64) time.Duration { return time.Duration(f * float64(time.Minute)) }
func hours(f float64) time.Duration   { return time.Duration(f * float64(time.Hour)) }
func secondsOf(f float64) time.Duration {
	return time.Duration(f * float64(time.Second))
}

// check validates the configuration and, when every input is known,
// returns the planner's parameters. It needs no API: validation at plan
// time and the read share it.
func check(m model) (spec, diag.Diagnostics, bool) {
	var c checker
	var s spec
	p := &s.params

	var mt catalog.MachineType
	haveMT := false
	if c.given(m.MachineType) {
		var ok bool
		if mt, ok = catalog.Machine(m.MachineType.ValueString()); ok {
			haveMT = true
		} else {
			c.fail("machine_type", "%q is not a machine type this provider knows", m.MachineType.ValueString())
		}
	}
	if c.given(m.Nodes) {
		if p.Nodes = int(m.Nodes.ValueInt64()); p.Nodes < 1 {
			c.fail("nodes", "a job needs at least 1 node, got %d", p.Nodes)
		}
	}
	if c.given(m.Spares) {
		if p.Spares = int(m.Spares.ValueInt64()); p.Spares < 0 {
			c.fail("spares", "must not be negative, got %d", p.Spares)
		}
	}
	s.maxSpares = -1
	if c.given(m.MaxSpares) {
		if s.maxSpares = int(m.MaxSpares.ValueInt64()); s.maxSpares < 0 {
			c.fail("max_spares", "must not be negative, got %d", s.maxSpares)
		}
	}
	jobKnown := false
	if c.given(m.JobLengthHours) {
		h := m.JobLengthHours.ValueFloat64()
		if !(h > 0) || math.IsInf(h, 0) {
			c.fail("job_length_hours", "must be a positive number of hours, got %v", h)
		} else {
			p.JobLength, jobKnown = hours(h), true
		}
	}

	// Failure rate: given, or the profile's published figure.
	if c.given(m.NodeMTBFHours) {
		h := m.NodeMTBFHours.ValueFloat64()
		if !(h > 0) || math.IsInf(h, 0) {
			c.fail("node_mtbf_hours", "must be a positive number of hours (a failure rate is neither negative nor zero), got %v", h)
		}
		p.NodeMTBI, s.source = hours(h), "given"
	} else if haveMT && !m.NodeMTBFHours.IsUnknown() {
		mtbi, err := catalog.NodeMTBI(mt.Profile)
		if err != nil {
			c.fail("node_mtbf_hours", "required for machine type %s: %v", mt.Name, err)
		} else {
			r, _ := catalog.ReliabilityFor(mt.Profile)
			p.NodeMTBI, s.source = mtbi, r.Source
		}
	}

	// Recovery: a regime's times, each overridable.
	s.regime = catalog.RecoveryAutomatic
	if c.given(m.Recovery) {
		s.regime = m.Recovery.ValueString()
	}
	reg, ok := catalog.RecoveryFor(s.regime)
	if !ok {
		c.fail("recovery", "%q is not a recovery regime; use one of %s", s.regime, strings.Join(catalog.RecoveryNames(), ", "))
	}
	p.Detect, p.Swap, p.Repair, p.Restart = reg.Detect, reg.Swap, reg.Repair, reg.Restart
	for _, o := range []struct {
		attr string
		v    attr.Value
		f    float64
		into *time.Duration
	}{
		{"detect_minutes", m.DetectMinutes, m.DetectMinutes.ValueFloat64(), &p.Detect},
		{"swap_minutes", m.SwapMinutes, m.SwapMinutes.ValueFloat64(), &p.Swap},
		{"repair_minutes", m.RepairMinutes, m.RepairMinutes.ValueFloat64(), &p.Repair},
		{"restart_minutes", m.RestartMinutes, m.RestartMinutes.ValueFloat64(), &p.Restart},
	} {
		if c.given(o.v) {
			if !(o.f >= 0) || math.IsInf(o.f, 0) {
				c.fail(o.attr, "must be zero or more minutes, got %v", o.f)
			}
			*o.into = minutes(o.f)
		}
	}

	checkCheckpoint(&c, m, &s, mt, haveMT)

	if c.given(m.CheckpointIntervalMinute) {
		f := m.CheckpointIntervalMinute.ValueFloat64()
		if !(f > 0) || math.IsInf(f, 0) {
			c.fail("checkpoint_interval_minutes", "must be a positive number of minutes, got %v", f)
		}
		p.Interval = minutes(f)
	}

	// A checkpoint that costs nothing has no optimal interval.
	if !c.diags.HasError() && !c.unknown && p.CheckpointPause == 0 && p.Interval == 0 {
		c.fail("checkpoint_interval_minutes", "required when a checkpoint pauses training for no time (checkpoint_cost_seconds = 0): Young/Daly has no optimum then")
	}
	// A checkpoint as long as the job leaves no time to train.
	if jobKnown && !c.diags.HasError() && !c.unknown {
		if ck := p.CheckpointPause + p.CheckpointPersist; ck >= p.JobLength {
			at := "checkpoint_cost_seconds"
			if s.target != "" {
				at = "checkpoint_storage"
			}
			c.fail(at, "a checkpoint takes %v, as long as the whole job (job_length_hours = %v)", ck, p.JobLength)
		}
	}
	if c.diags.HasError() || c.unknown {
		return s, c.diags, false
	}
	if err := p.Validate(); err != nil {
		c.diags.AddError("Invalid goodput plan input", err.Error())
		return s, c.diags, false
	}
	if s.maxSpares < 0 {
		s.maxSpares = goodput.DefaultMaxSpares(p.Nodes)
	}
	return s, c.diags, true
}

// checkCheckpoint reads the checkpoint cost: given, or derived from a
// storage target and size.
func checkCheckpoint(c *checker, m model, s *spec, mt catalog.MachineType, haveMT bool) {
	p := &s.params
	costSet, storageSet := !m.CheckpointCostSeconds.IsNull(), !m.CheckpointStorage.IsNull()
	switch {
	case costSet && storageSet:
		c.fail("checkpoint_storage", "conflicts with checkpoint_cost_seconds: give the cost or the storage it follows from, not both")
		return
	case !costSet && !storageSet:
		c.fail("checkpoint_cost_seconds", "one of checkpoint_cost_seconds or checkpoint_storage (with checkpoint_size_gib) is required")
		return
	}
	onlyWith := func(attr string, v attr.Value, with string) {
		if !v.IsNull() {
			c.fail(attr, "can only be set together with %s", with)
		}
	}
	if costSet {
		onlyWith("checkpoint_size_gib", m.CheckpointSizeGiB, "checkpoint_storage")
		onlyWith("lustre_throughput", m.LustreThroughput, "checkpoint_storage = \"lustre\"")
		onlyWith("lustre_capacity_gib", m.LustreCapacityGiB, "checkpoint_storage = \"lustre\"")
		onlyWith("async_checkpoints", m.AsyncCheckpoints, "checkpoint_storage (with checkpoint_cost_seconds, give async_persist_seconds)")
		if c.given(m.CheckpointCostSeconds) {
			f := m.CheckpointCostSeconds.ValueFloat64()
			if !(f >= 0) || math.IsInf(f, 0) {
				c.fail("checkpoint_cost_seconds", "must be zero or more seconds, got %v", f)
			}
			p.CheckpointPause = secondsOf(f)
		}
		if c.given(m.AsyncPersistSeconds) {
			f := m.AsyncPersistSeconds.ValueFloat64()
			if !(f >= 0) || math.IsInf(f, 0) {
				c.fail("async_persist_seconds", "must be zero or more seconds, got %v", f)
			}
			p.CheckpointPersist = secondsOf(f)
		}
		return
	}
	onlyWith("async_persist_seconds", m.AsyncPersistSeconds, "checkpoint_cost_seconds")
	if !c.given(m.CheckpointStorage) {
		return
	}
	s.target = m.CheckpointStorage.ValueString()
	if !slices.Contains(catalog.CheckpointTargets(), s.target) {
		c.fail("checkpoint_storage", "%q is not one of %s", s.target, strings.Join(catalog.CheckpointTargets(), ", "))
		return
	}
	ck := goodput.Checkpoint{Target: s.target, Async: m.AsyncCheckpoints.ValueBool()}
	if m.AsyncCheckpoints.IsUnknown() {
		c.unknown = true
	}
	if m.CheckpointSizeGiB.IsNull() {
		c.fail("checkpoint_size_gib", "required with checkpoint_storage: the size of the whole job's checkpoint in GiB")
	} else if c.given(m.CheckpointSizeGiB) {
		if ck.SizeGiB = m.CheckpointSizeGiB.ValueFloat64(); !(ck.SizeGiB > 0) || math.IsInf(ck.SizeGiB, 0) {
			c.fail("checkpoint_size_gib", "must be a positive number of GiB, got %v", ck.SizeGiB)
		}
	}
	if s.target == catalog.CheckpointLustre {
		if m.LustreThroughput.IsNull() {
			c.fail("lustre_throughput", "required with checkpoint_storage = \"lustre\" (MB/s per TiB: %s)", joinInts(catalog.LustreThroughputs()))
		} else if c.given(m.LustreThroughput) {
			ck.LustreThroughput = m.LustreThroughput.ValueInt64()
			if err := catalog.ValidateLustreThroughput(ck.LustreThroughput); err != nil {
				c.fail("lustre_throughput", "%v", err)
			}
		}
		if m.LustreCapacityGiB.IsNull() {
			c.fail("lustre_capacity_gib", "required with checkpoint_storage = \"lustre\"")
		} else if c.given(m.LustreCapacityGiB) {
			ck.LustreCapacityGiB = m.LustreCapacityGiB.ValueInt64()
			if ck.LustreThroughput != 0 && catalog.ValidateLustreThroughput(ck.LustreThroughput) == nil {
				if err := catalog.ValidateLustreCapacity(ck.LustreThroughput, ck.LustreCapacityGiB); err != nil {
					c.fail("lustre_capacity_gib", "%v", err)
				}
			}
		}
	} else {
		onlyWith("lustre_throughput", m.LustreThroughput, "checkpoint_storage = \"lustre\"")
		onlyWith("lustre_capacity_gib", m.LustreCapacityGiB, "checkpoint_storage = \"lustre\"")
	}
	if c.diags.HasError() || c.unknown || !haveMT || p.Nodes < 1 {
		return
	}
	cost, err := goodput.CheckpointCostFor(mt.Name, p.Nodes, ck)
	if err != nil {
		c.fail("checkpoint_storage", "%v", err)
		return
	}
	p.CheckpointPause, p.CheckpointPersist = cost.Pause, cost.Persist
}

func joinInts(vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}
