package filestore

import (
	"context"
	"strings"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// flatten writes what the API holds into m. m carries the prior values (configuration forms to keep,
// timeouts); the instance's identity comes from its name.
func (r *filestoreResource) flatten(ctx context.Context, inst *filestorepb.Instance, m *model) diag.Diagnostics {
	var diags diag.Diagnostics
	if project, location, name, ok := tfutil.SplitInstanceName(inst.GetName()); ok {
		m.Project, m.Location, m.Name = types.StringValue(project), types.StringValue(location), types.StringValue(name)
	}
	m.ID = types.StringValue(inst.GetName())
	m.Tier = types.StringValue(canonicalTier(inst.GetTier()))
	m.Protocol = types.StringValue(protocolName(inst.GetProtocol()))
	m.MountOptions = types.StringValue(mountOptions(m.Protocol.ValueString()))
	m.State = types.StringValue(inst.GetState().String())

	share := shareModel{Name: types.StringValue(""), CapacityGB: types.Int64Value(0)}
	if fs := inst.GetFileShares(); len(fs) > 0 {
		share = shareModel{Name: types.StringValue(fs[0].GetName()), CapacityGB: types.Int64Value(fs[0].GetCapacityGb())}
	}
	var d diag.Diagnostics
	m.Share, d = types.ObjectValueFrom(ctx, shareAttrTypes, share)
	diags.Append(d...)

	var prior networkModel
	if !m.Network.IsNull() && !m.Network.IsUnknown() {
		diags.Append(m.Network.As(ctx, &prior, tfutil.ObjectOpts)...)
	}
	net := networkModel{Name: types.StringValue(""), ConnectMode: types.StringValue(modeDirect), ReservedIPRange: types.StringValue("")}
	ip := ""
	if ns := inst.GetNetworks(); len(ns) > 0 {
		nc := ns[0]
		net.Name = types.StringValue(tfutil.NetworkRef(nc.GetNetwork(), m.Project.ValueString()))
		if !prior.Name.IsNull() && !prior.Name.IsUnknown() && tfutil.SameNetwork(prior.Name.ValueString(), nc.GetNetwork(), m.Project.ValueString()) {
			net.Name = prior.Name
		}
		net.ConnectMode = types.StringValue(connectModeName(nc.GetConnectMode()))
		net.ReservedIPRange = types.StringValue(reservedRange(nc, prior.ReservedIPRange))
		if len(nc.GetIpAddresses()) > 0 {
			ip = nc.GetIpAddresses()[0]
		}
	}
	m.Network, d = types.ObjectValueFrom(ctx, networkAttrTypes, net)
	diags.Append(d...)
	m.IPAddress = types.StringValue(ip)
	m.MountSource = types.StringValue("")
	if ip != "" {
		m.MountSource = types.StringValue(ip + ":/" + share.Name.ValueString())
	}

	m.Description = tfutil.KeepNull(m.Description, inst.GetDescription())
	m.DeletionProtection = types.BoolValue(inst.GetDeletionProtectionEnabled())
	m.DeletionProtectionReason = tfutil.KeepNull(m.DeletionProtectionReason, inst.GetDeletionProtectionReason())
	m.Labels, m.EffectiveLabels, d = tfutil.ReadMarkedLabels(ctx, r.Provider, inst.GetLabels(), m.Labels)
	diags.Append(d...)
	return diags
}

// reservedRange is what state records for the instance's reserved range: what the API holds, except
// that in PSA mode a CIDR block Filestore reports for the instance stands for the range it was
// allocated from, so a range name the state already records (the configuration's, or the
// "<network>-psa" default) is kept. An imported instance records the CIDR, which a configuration
// leaving reserved_ip_range unset then keeps without a change.
func reservedRange(nc *filestorepb.NetworkConfig, prior types.String) string {
	got := nc.GetReservedIpRange()
	if nc.GetConnectMode() == filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS && strings.Contains(got, "/") &&
		!prior.IsNull() && !prior.IsUnknown() && prior.ValueString() != "" && !strings.Contains(prior.ValueString(), "/") {
		return prior.ValueString()
	}
	return got
}
