package nodepartition

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// planNodeSet records the node set for the operation (providerdata.PlannedPartitions) and, when
// its Slurm side is known, refuses at plan what the controller's rendering would refuse: a
// partition-wide setting that differs from another node set of the same Slurm partition, or a
// name that clashes with another node set's Slurm partition. It compares with the node sets
// planned in this operation (whichever of two plans later sees the other) and, for a node set that
// joins a Slurm partition other than its own name and is created or changed, with the node sets on
// the controller (one read, paid only by such node sets). What neither shows, e.g. a lone node set
// whose change conflicts with node sets applied earlier, is refused at apply before anything is
// created (cc.Validate in prepare).
func (r *partitionResource) planNodeSet(ctx context.Context, plan *model, ref *cc.ClusterID, changing bool, diags *diag.Diagnostics) {
	if ref == nil || plan.Name.IsUnknown() || r.Provider == nil {
		return
	}
	self, known := slurmSideOf(ctx, plan, diags)
	if !known {
		r.Provider.Partitions.Plan(ref.String(), plan.Name.ValueString())
		return
	}
	planned := r.Provider.Partitions.NodeSets(ref.String())
	r.Provider.Partitions.PlanNodeSet(ref.String(), self)
	sets := map[string]cc.Partition{}
	if self.SlurmPartition != "" && changing && r.Provider.Clients != nil {
		ci, err := readCluster(ctx, r.Provider.Clients, *ref)
		switch {
		case errors.Is(err, tfutil.ErrNoController):
		case err != nil:
			diags.AddAttributeError(pathOf("slurm.partition"), "Unable to read the cluster", "slurm.partition: "+err.Error())
			return
		default:
			for n, p := range ci.parts {
				sets[n] = p
			}
		}
	}
	// What this operation plans replaces what the controller holds.
	for _, p := range planned {
		sets[p.Name] = p
	}
	sets[self.Name] = self
	all := make([]cc.Partition, 0, len(sets))
	for _, p := range sets {
		all = append(all, p)
	}
	if err := cc.NameClash(self, all); err != nil {
		diags.AddAttributeError(pathOf("slurm.partition"), "Invalid slurm.partition", "slurm.partition: "+err.Error())
		return
	}
	for _, other := range cc.NodeSetsOf(all, self.SlurmName()) {
		if other.Name == self.Name {
			continue
		}
		if msg := cc.SharedSettingConflict(self, other); msg != "" {
			diags.AddAttributeError(pathOf("slurm"), "Conflicting Slurm partition settings",
				"slurm: this node set is part of Slurm partition "+quote(self.SlurmName())+", and "+msg+
					"; the node sets of one Slurm partition share its partition-wide settings (default, exclusive, max_time, resume_timeout, suspend_time, extra): give them the same values")
			return
		}
	}
}

func quote(s string) string { return `"` + s + `"` }

// slurmSideOf reads the planned node set's Slurm partition and partition-wide settings; known is
// false while any of them is unknown.
func slurmSideOf(ctx context.Context, plan *model, diags *diag.Diagnostics) (cc.Partition, bool) {
	p := cc.Partition{Name: plan.Name.ValueString()}
	if plan.Slurm.IsUnknown() {
		return p, false
	}
	if plan.Slurm.IsNull() {
		return p, true
	}
	var s slurmModel
	diags.Append(plan.Slurm.As(ctx, &s, tfutil.ObjectOpts)...)
	for _, v := range []interface{ IsUnknown() bool }{s.Default, s.Exclusive, s.MaxTime, s.ResumeTimeout, s.SuspendTime, s.Extra, s.Partition} {
		if v.IsUnknown() {
			return p, false
		}
	}
	p.Default, p.Exclusive, p.MaxTime = s.Default.ValueBool(), s.Exclusive.ValueBool(), s.MaxTime.ValueString()
	p.ResumeTimeout, p.SuspendTime = int(s.ResumeTimeout.ValueInt64()), int(s.SuspendTime.ValueInt64())
	if sp := s.Partition.ValueString(); sp != p.Name {
		p.SlurmPartition = sp
	}
	if !s.Extra.IsNull() {
		diags.Append(s.Extra.ElementsAs(ctx, &p.Extra, false)...)
	}
	if len(p.Extra) == 0 {
		p.Extra = nil
	}
	return p, !diags.HasError()
}
