package healthpolicy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// model is the resource's Terraform state. Optional values the user leaves out stay null (optional
// lists empty, tfutil/collections.go): the agent applies the defaults (clusterconfig.HealthPolicy.WithDefaults), so a plan never differs
// from the configuration.
type model struct {
	ID                    types.String   `tfsdk:"id"`
	Cluster               types.String   `tfsdk:"cluster"`
	Name                  types.String   `tfsdk:"name"`
	Partitions            types.List     `tfsdk:"partitions"`
	IntervalSeconds       types.Int64    `tfsdk:"interval_seconds"`
	RequeueJobs           types.Bool     `tfsdk:"requeue_jobs"`
	Escalation            types.List     `tfsdk:"escalation"`
	EscalationWindowHours types.Float64  `tfsdk:"escalation_window_hours"`
	SpareNodeCount        types.Int64    `tfsdk:"spare_node_count"`
	Limits                *limitsModel   `tfsdk:"limits"`
	Checks                []checkModel   `tfsdk:"checks"`
	Generation            types.String   `tfsdk:"generation"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
}

type limitsModel struct {
	MaxConcurrentRepairs  types.Int64 `tfsdk:"max_concurrent_repairs"`
	MaxUnavailablePercent types.Int64 `tfsdk:"max_unavailable_percent"`
	CooldownSeconds       types.Int64 `tfsdk:"cooldown_seconds"`
	RepairTimeoutSeconds  types.Int64 `tfsdk:"repair_timeout_seconds"`
}

type checkModel struct {
	Name                types.String  `tfsdk:"name"`
	Schedules           types.List    `tfsdk:"schedules"`
	Action              types.String  `tfsdk:"action"`
	ExpectedGPUs        types.Int64   `tfsdk:"expected_gpus"`
	XIDs                types.List    `tfsdk:"xids"`
	MaxUncorrectedECC   types.Int64   `tfsdk:"max_uncorrected_ecc"`
	DCGMLevel           types.Int64   `tfsdk:"dcgm_level"`
	MaxNVLinkErrors     types.Int64   `tfsdk:"max_nvlink_errors"`
	Paths               types.List    `tfsdk:"paths"`
	MinFreeGB           types.Float64 `tfsdk:"min_free_gb"`
	TimeoutSeconds      types.Int64   `tfsdk:"timeout_seconds"`
	MinBusBandwidthGBps types.Float64 `tfsdk:"min_bus_bandwidth_gbps"`
	StragglerFactor     types.Float64 `tfsdk:"straggler_factor"`
}

// strings_ reads a list; an empty one reads as nil like a null one, so the policy's JSON (and its
// generation) is the same for `[]` and unset: Schedules has no omitempty.
func strings_(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() || len(l.Elements()) == 0 {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

func ints(ctx context.Context, l types.List, diags *diag.Diagnostics) []int {
	if l.IsNull() || l.IsUnknown() || len(l.Elements()) == 0 {
		return nil
	}
	var v []int64
	diags.Append(l.ElementsAs(ctx, &v, false)...)
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// known reports whether every value a policy is made of is known: a plan that creates the
// partitions it names knows their names only at apply.
func (m *model) known() bool {
	if m.Name.IsUnknown() || !listKnown(m.Partitions) || !listKnown(m.Escalation) {
		return false
	}
	for _, c := range m.Checks {
		if c.Name.IsUnknown() || !listKnown(c.Schedules) || !listKnown(c.Paths) || !listKnown(c.XIDs) {
			return false
		}
	}
	return true
}

func listKnown(l types.List) bool {
	if l.IsUnknown() {
		return false
	}
	for _, e := range l.Elements() {
		if e.IsUnknown() {
			return false
		}
	}
	return true
}

// expand is the policy the model declares, with the generation of its content.
func (m *model) expand(ctx context.Context) (cc.HealthPolicy, diag.Diagnostics) {
	var diags diag.Diagnostics
	p := cc.HealthPolicy{
		Name:                  m.Name.ValueString(),
		Partitions:            strings_(ctx, m.Partitions, &diags),
		IntervalSeconds:       int(m.IntervalSeconds.ValueInt64()),
		Escalation:            strings_(ctx, m.Escalation, &diags),
		EscalationWindowHours: m.EscalationWindowHours.ValueFloat64(),
		RequeueJobs:           m.RequeueJobs.IsNull() || m.RequeueJobs.ValueBool(),
		SpareNodes:            int(m.SpareNodeCount.ValueInt64()),
	}
	if l := m.Limits; l != nil {
		p.Limits = cc.HealthLimits{
			MaxConcurrentRepairs:  int(l.MaxConcurrentRepairs.ValueInt64()),
			MaxUnavailablePercent: int(l.MaxUnavailablePercent.ValueInt64()),
			CooldownSeconds:       int(l.CooldownSeconds.ValueInt64()),
			RepairTimeoutSeconds:  int(l.RepairTimeoutSeconds.ValueInt64()),
		}
	}
	for _, c := range m.Checks {
		p.Checks = append(p.Checks, cc.HealthCheckSpec{
			Name:                c.Name.ValueString(),
			Schedules:           strings_(ctx, c.Schedules, &diags),
			Action:              c.Action.ValueString(),
			ExpectedGPUs:        int(c.ExpectedGPUs.ValueInt64()),
			XIDs:                ints(ctx, c.XIDs, &diags),
			MaxUncorrectedECC:   int(c.MaxUncorrectedECC.ValueInt64()),
			DCGMLevel:           int(c.DCGMLevel.ValueInt64()),
			MaxNVLinkErrors:     int(c.MaxNVLinkErrors.ValueInt64()),
			Paths:               strings_(ctx, c.Paths, &diags),
			MinFreeGB:           c.MinFreeGB.ValueFloat64(),
			TimeoutSeconds:      int(c.TimeoutSeconds.ValueInt64()),
			MinBusBandwidthGBps: c.MinBusBandwidthGBps.ValueFloat64(),
			StragglerFactor:     c.StragglerFactor.ValueFloat64(),
		})
	}
	p.Generation = generation(p)
	return p, diags
}

// generation is a hash of the policy's content: the controller reports it once applied.
func generation(p cc.HealthPolicy) string {
	p.Generation = ""
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// flatten sets the model from a policy read back from the controller (import, drift).
func (m *model) flatten(ref cc.ClusterID, p cc.HealthPolicy) {
	m.ID = types.StringValue(policyID(ref, p.Name))
	m.Cluster = types.StringValue(ref.String())
	m.Name = types.StringValue(p.Name)
	m.Partitions = strList(p.Partitions)
	m.IntervalSeconds = optInt(p.IntervalSeconds)
	m.RequeueJobs = types.BoolValue(p.RequeueJobs)
	m.Escalation = strList(p.Escalation)
	m.EscalationWindowHours = optFloat(p.EscalationWindowHours)
	m.SpareNodeCount = optInt(p.SpareNodes)
	if (p.Limits != cc.HealthLimits{}) {
		m.Limits = &limitsModel{
			MaxConcurrentRepairs:  optInt(p.Limits.MaxConcurrentRepairs),
			MaxUnavailablePercent: optInt(p.Limits.MaxUnavailablePercent),
			CooldownSeconds:       optInt(p.Limits.CooldownSeconds),
			RepairTimeoutSeconds:  optInt(p.Limits.RepairTimeoutSeconds),
		}
	} else {
		m.Limits = nil
	}
	m.Checks = nil
	for _, c := range p.Checks {
		xids := tfutil.EmptyList(types.Int64Type)
		if len(c.XIDs) > 0 {
			v := make([]attr.Value, len(c.XIDs))
			for i, x := range c.XIDs {
				v[i] = types.Int64Value(int64(x))
			}
			xids = types.ListValueMust(types.Int64Type, v)
		}
		m.Checks = append(m.Checks, checkModel{
			Name:                types.StringValue(c.Name),
			Schedules:           strList(c.Schedules),
			Action:              optStr(c.Action),
			ExpectedGPUs:        optInt(c.ExpectedGPUs),
			XIDs:                xids,
			MaxUncorrectedECC:   optInt(c.MaxUncorrectedECC),
			DCGMLevel:           optInt(c.DCGMLevel),
			MaxNVLinkErrors:     optInt(c.MaxNVLinkErrors),
			Paths:               strList(c.Paths),
			MinFreeGB:           optFloat(c.MinFreeGB),
			TimeoutSeconds:      optInt(c.TimeoutSeconds),
			MinBusBandwidthGBps: optFloat(c.MinBusBandwidthGBps),
			StragglerFactor:     optFloat(c.StragglerFactor),
		})
	}
	m.Generation = types.StringValue(p.Generation)
}

// strList is an optional list as read back: empty, never null, so `[]` and an unset list both
// match it (tfutil/collections.go).
func strList(v []string) types.List {
	out := make([]attr.Value, len(v))
	for i, s := range v {
		out[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, out)
}

func optInt(v int) types.Int64 {
	if v == 0 {
		return types.Int64Null()
	}
	return types.Int64Value(int64(v))
}

func optFloat(v float64) types.Float64 {
	if v == 0 {
		return types.Float64Null()
	}
	return types.Float64Value(v)
}

func optStr(v string) types.String {
	if v == "" {
		return types.StringNull()
	}
	return types.StringValue(v)
}
