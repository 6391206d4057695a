package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// observed is what exists of a partition: its key on the controller, its VMs (listed by label,
// page by page) and its instance template. A refresh of any size costs four read calls for the
// first 500 nodes and one more per further 500: controller, template, VM pages.
type observed struct {
	part    *cc.Partition // nil: no key on the controller (or no controller)
	project string
	zone    string
	inv     inventory
	tmpl    *computepb.InstanceTemplate // nil: the template named in the key does not exist
	// outdated: the template gives nodes another payload than the cluster does now (roll.go).
	outdated bool
	// failed are the dynamic nodes whose resume failed, as the controller reports them.
	failed []cc.NodeFailure
}

func (o *observed) gone() bool { return o.part == nil && len(o.inv) == 0 }

// observe reads the partition. zoneHint is the zone the state knows, used when the key is gone.
func observe(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name, zoneHint string) (*observed, error) {
	o := &observed{project: ref.Project, zone: zoneHint}
	if o.zone == "" {
		o.zone = ref.Zone
	}
	ci, err := readCluster(ctx, cl, ref)
	switch {
	case errors.Is(err, tfutil.ErrNoController):
	case err != nil:
		return nil, err
	default:
		if p, ok := ci.parts[name]; ok {
			o.part = &p
			if p.Zone != "" {
				o.zone = p.Zone
			}
			if p.Project != "" {
				o.project = p.Project
			}
		} else if bad, ok := ci.broken[name]; ok {
			return nil, fmt.Errorf("the partition's key on %s does not decode: %w", ref.Controller(), bad)
		}
	}
	if o.inv, err = listNodes(ctx, cl, o.project, o.zone, cc.NodeNamePrefix(ref.Name, name)); err != nil {
		return nil, err
	}
	if o.part != nil && o.part.MaxDynamicNodes > 0 {
		if o.failed, err = readFailures(ctx, cl, ref, name); err != nil {
			return nil, err
		}
	}
	if o.part != nil && o.part.InstanceTemplate != "" {
		t, err := findTemplate(ctx, cl, o.project, lastSegment(o.part.InstanceTemplate))
		switch {
		case err == nil:
			o.tmpl = t
			o.outdated = ci != nil && templateOutdated(ci.cfg, *o.part, t)
		case !tfutil.IsNotFound(err):
			return nil, fmt.Errorf("reading instance template %s: %w", o.part.InstanceTemplate, err)
		}
	}
	return o, nil
}

// flatten writes what was observed into m, which holds the prior state (or the import's id,
// cluster and name). Values the cloud does not hold (force_scale_down, allow_partial,
// wait_for_nodes, timeouts)
// stay as they were.
func flatten(ctx context.Context, p *providerdata.Data, ref cc.ClusterID, o *observed, m *model) diag.Diagnostics {
	var diags diag.Diagnostics
	name := m.Name.ValueString()
	prefix := cc.NodeNamePrefix(ref.Name, name)
	m.ID = types.StringValue(partitionID(ref, name))
	m.Cluster = types.StringValue(ref.String())
	m.Zone = types.StringValue(o.zone)
	m.NodeNamePrefix = types.StringValue(prefix)
	if m.ForceScaleDown.IsNull() || m.ForceScaleDown.IsUnknown() {
		m.ForceScaleDown = types.BoolValue(false)
	}
	if m.AllowPartial.IsNull() || m.AllowPartial.IsUnknown() {
		m.AllowPartial = types.BoolValue(false)
	}
	if m.WaitForNodes.IsNull() || m.WaitForNodes.IsUnknown() {
		m.WaitForNodes = types.BoolValue(true)
	}
	if m.RollingUpdate.IsNull() || m.RollingUpdate.IsUnknown() {
		m.RollingUpdate = defaultRollingUpdate()
	}
	if m.DrainTimeout.IsNull() || m.DrainTimeout.IsUnknown() {
		m.DrainTimeout = types.StringValue(defaultDrainTimeout)
	}
	if m.DrainTimeoutAction.IsNull() || m.DrainTimeoutAction.IsUnknown() {
		m.DrainTimeoutAction = types.StringValue(drainActionFail)
	}

	staticTarget := int(m.StaticNodeCount.ValueInt64())
	if o.part != nil {
		staticTarget = o.part.StaticNodes
		m.MachineType = types.StringValue(o.part.MachineType)
		m.MaxDynamicNodeCount = types.Int64Value(int64(o.part.MaxDynamicNodes))
		m.Slurm = flattenSlurm(ctx, o.part, m.Slurm, &diags)
		m.Storage = flattenStorage(o.part)
		m.StartupScript = types.StringNull()
		if o.part.StartupScript != "" {
			m.StartupScript = types.StringValue(o.part.StartupScript)
		}
	}
	// Static nodes that lost their VM show as missing, so the plan puts them back — except in a
	// calendar partition, whose nodes the controller creates and deletes with its reservation.
	m.StaticNodeCount = types.Int64Value(int64(o.inv.countBelow(staticTarget)))
	if o.part != nil && o.part.Calendar != nil {
		m.StaticNodeCount = types.Int64Value(int64(staticTarget))
	}
	if m.MaxDynamicNodeCount.IsNull() || m.MaxDynamicNodeCount.IsUnknown() {
		m.MaxDynamicNodeCount = types.Int64Value(0)
	}
	if o.part != nil {
		// VMs outside the counts (a drain that ran past drain_timeout) count until deleted, so
		// the plan shows the new count still to reach: Slurm and the cloud agree after the apply.
		static, dynamic := o.inv.outside(o.part.StaticNodes, o.part.MaxDynamicNodes)
		m.StaticNodeCount = types.Int64Value(m.StaticNodeCount.ValueInt64() + int64(static))
		m.MaxDynamicNodeCount = types.Int64Value(m.MaxDynamicNodeCount.ValueInt64() + int64(dynamic))
	}
	part := cc.Partition{Name: name, StaticNodes: staticTarget, MaxDynamicNodes: int(m.MaxDynamicNodeCount.ValueInt64())}
	m.StaticNodeNames = types.StringValue(part.StaticNodeNames(ref.Name))
	m.DynamicNodeNames = types.StringValue(part.DynamicNodeNames(ref.Name))

	s := o.inv.summary()
	m.NodesTotal, m.NodesRunning, m.NodeNames = types.Int64Value(int64(s.total)), types.Int64Value(int64(s.running)), types.StringValue(s.names)
	var d diag.Diagnostics
	m.NodesFailed, d = nodesFailedValue(o.failed)
	diags.Append(d...)

	// An empty template marks drift the next plan repairs: the key or the template is gone.
	m.InstanceTemplate = types.StringValue("")
	// So does a template the cluster's node configuration has moved past: the apply rolls the nodes.
	if o.tmpl != nil && o.part != nil && !o.outdated {
		m.InstanceTemplate = types.StringValue(o.part.InstanceTemplate)
		diags.Append(flattenTemplate(ctx, p, o.tmpl.GetProperties(), m)...)
	}
	if o.part != nil && o.part.Calendar != nil {
		diags.Append(flattenCalendar(ctx, *o.part.Calendar, m)...)
	}
	if m.PlacementPolicy.IsNull() || m.PlacementPolicy.IsUnknown() {
		m.PlacementPolicy = types.StringValue("")
	}
	return diags
}

// flattenSlurm reads the Slurm options of the key; an absent slurm block stays absent while the
// options are the defaults.
func flattenSlurm(ctx context.Context, p *cc.Partition, prior types.Object, diags *diag.Diagnostics) types.Object {
	allDefault := !p.Default && !p.Exclusive && p.MaxTime == "" && p.ResumeTimeout == 0 && p.SuspendTime == 0 && p.ResumeRetryAfter == nil && len(p.Features) == 0 && len(p.Extra) == 0 &&
		p.SlurmPartition == "" && p.Weight == 0
	if allDefault && prior.IsNull() {
		return prior
	}
	s := slurmModel{
		Default: types.BoolValue(p.Default), Exclusive: types.BoolValue(p.Exclusive),
		MaxTime: types.StringNull(), ResumeTimeout: types.Int64Null(), SuspendTime: types.Int64Null(), RetryAfter: types.Int64Null(),
		// Empty, never null: `[]`/`{}` and unset both plan empty (tfutil/collections.go).
		Features: tfutil.EmptyList(types.StringType), Extra: tfutil.EmptyMap(types.StringType),
		Partition: types.StringNull(), Weight: types.Int64Null(),
	}
	if p.SlurmPartition != "" {
		s.Partition = types.StringValue(p.SlurmPartition)
	} else if !prior.IsNull() && !prior.IsUnknown() {
		// slurm.partition = <its own name> is the default spelled out; the key does not record it.
		var was slurmModel
		if d := prior.As(ctx, &was, tfutil.ObjectOpts); !d.HasError() && was.Partition.ValueString() == p.Name {
			s.Partition = was.Partition
		}
	}
	if p.Weight != 0 {
		s.Weight = types.Int64Value(int64(p.Weight))
	}
	if p.MaxTime != "" {
		s.MaxTime = types.StringValue(p.MaxTime)
	}
	if p.ResumeTimeout != 0 {
		s.ResumeTimeout = types.Int64Value(int64(p.ResumeTimeout))
	}
	if p.SuspendTime != 0 {
		s.SuspendTime = types.Int64Value(int64(p.SuspendTime))
	}
	if p.ResumeRetryAfter != nil {
		s.RetryAfter = types.Int64Value(int64(*p.ResumeRetryAfter))
	}
	if len(p.Features) > 0 {
		v, d := types.ListValueFrom(ctx, types.StringType, p.Features)
		diags.Append(d...)
		s.Features = v
	}
	if len(p.Extra) > 0 {
		v, d := types.MapValueFrom(ctx, types.StringType, p.Extra)
		diags.Append(d...)
		s.Extra = v
	}
	obj, d := types.ObjectValueFrom(ctx, slurmAttrTypes, s)
	diags.Append(d...)
	return obj
}

// flattenTemplate reads provisioning, placement, disks, image and labels back from the instance
// template, which holds exactly what the configuration asked for.
func flattenTemplate(ctx context.Context, p *providerdata.Data, props *computepb.InstanceProperties, m *model) diag.Diagnostics {
	var diags diag.Diagnostics
	var prior provisioningModel
	if !m.Provisioning.IsNull() && !m.Provisioning.IsUnknown() {
		diags.Append(m.Provisioning.As(ctx, &prior, tfutil.ObjectOpts)...)
	}
	sc := props.GetScheduling()
	prov := provisioningModel{Model: types.StringValue(modelStandard), Reservation: types.StringNull(), FutureReservation: types.StringNull(),
		MaxRunDuration: types.StringNull(), TerminationAction: types.StringNull()}
	ra := props.GetReservationAffinity()
	switch {
	case ra.GetConsumeReservationType() == affinitySpecific && len(ra.GetValues()) > 0:
		prov.Model, prov.Reservation = types.StringValue(modelReservation), types.StringValue(ra.GetValues()[0])
	case sc.GetProvisioningModel() == computeSpot:
		prov.Model, prov.TerminationAction = types.StringValue(modelSpot), types.StringValue(sc.GetInstanceTerminationAction())
	case sc.GetProvisioningModel() == computeFlexStart:
		prov.Model = types.StringValue(modelFlexStart)
		got := time.Duration(sc.GetMaxRunDuration().GetSeconds()) * time.Second
		prov.MaxRunDuration = types.StringValue(formatRunDuration(got))
		// Keep the configuration's spelling of the same duration ("168h" for "7d").
		if was, err := parseRunDuration(prior.MaxRunDuration.ValueString()); err == nil && was == got {
			prov.MaxRunDuration = prior.MaxRunDuration
		}
	}
	obj, d := types.ObjectValueFrom(ctx, provisioningAttrTypes, prov)
	diags.Append(d...)
	m.Provisioning = obj

	m.PlacementPolicy = types.StringValue("")
	compact := false
	for _, rp := range props.GetResourcePolicies() {
		compact = true
		m.PlacementPolicy = types.StringValue(rp)
	}
	if compact {
		m.Placement, d = types.ObjectValue(placementAttrTypes, map[string]attr.Value{"compact": types.BoolValue(true)})
		diags.Append(d...)
	} else if !m.Placement.IsNull() {
		// placement = { compact = false } stays as written.
		var pl placementModel
		diags.Append(m.Placement.As(ctx, &pl, tfutil.ObjectOpts)...)
		if pl.Compact.ValueBool() {
			m.Placement, d = types.ObjectValue(placementAttrTypes, map[string]attr.Value{"compact": types.BoolValue(false)})
			diags.Append(d...)
		}
	}

	scratch := 0
	for i, disk := range props.GetDisks() {
		if i == 0 {
			ip := disk.GetInitializeParams()
			m.Image = types.StringValue(ip.GetSourceImage())
			m.BootDisk, d = types.ObjectValue(bootDiskAttrTypes, map[string]attr.Value{
				"size_gb": types.Int64Value(ip.GetDiskSizeGb()), "type": types.StringValue(lastSegment(ip.GetDiskType())),
			})
			diags.Append(d...)
			continue
		}
		if disk.GetType() == "SCRATCH" {
			scratch++
		}
	}
	if mt := m.MachineType.ValueString(); scratch == 0 && mt != "" {
		if machine, ok := machineOf(mt); ok {
			scratch = bundledLocalSSDs(machine)
		}
	}
	m.LocalSSDCount = types.Int64Value(int64(scratch))

	labels := maps.Clone(props.GetLabels())
	delete(labels, labelCluster)
	delete(labels, labelPartition)
	m.Labels, m.EffectiveLabels, d = tfutil.ReadLabels(ctx, p, labels, m.Labels)
	diags.Append(d...)
	return diags
}
