package filestore

import (
	"context"
	"maps"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// desired is the instance a plan asks for, in the API's terms.
type desired struct {
	project, location, name string
	inst                    *filestorepb.Instance
}

func (d *desired) parent() string   { return "projects/" + d.project + "/locations/" + d.location }
func (d *desired) fullName() string { return tfutil.InstanceName(d.project, d.location, d.name) }

// names is the instance ID (for messages) and the full name.
func (d *desired) names() (id, name string) { return d.name, d.fullName() }

func toDesired(ctx context.Context, m *model) (*desired, diag.Diagnostics) {
	var diags diag.Diagnostics
	var share shareModel
	var net networkModel
	diags.Append(m.Share.As(ctx, &share, tfutil.ObjectOpts)...)
	diags.Append(m.Network.As(ctx, &net, tfutil.ObjectOpts)...)
	labels, d := tfutil.LabelMap(ctx, m.EffectiveLabels)
	diags.Append(d...)
	if diags.HasError() {
		return nil, diags
	}
	want := &desired{project: m.Project.ValueString(), location: m.Location.ValueString(), name: m.Name.ValueString()}
	nc := &filestorepb.NetworkConfig{
		Network:         tfutil.NetworkPath(net.Name.ValueString(), want.project),
		Modes:           []filestorepb.NetworkConfig_AddressMode{filestorepb.NetworkConfig_MODE_IPV4},
		ConnectMode:     filestorepb.NetworkConfig_ConnectMode(filestorepb.NetworkConfig_ConnectMode_value[net.ConnectMode.ValueString()]),
		ReservedIpRange: net.ReservedIPRange.ValueString(),
	}
	want.inst = &filestorepb.Instance{
		Name:                      want.fullName(),
		Tier:                      filestorepb.Instance_Tier(filestorepb.Instance_Tier_value[m.Tier.ValueString()]),
		FileShares:                []*filestorepb.FileShareConfig{{Name: share.Name.ValueString(), CapacityGb: share.CapacityGB.ValueInt64()}},
		Networks:                  []*filestorepb.NetworkConfig{nc},
		Protocol:                  filestorepb.Instance_FileProtocol(filestorepb.Instance_FileProtocol_value[m.Protocol.ValueString()]),
		Description:               m.Description.ValueString(),
		Labels:                    labels,
		DeletionProtectionEnabled: m.DeletionProtection.ValueBool(),
	}
	if want.inst.DeletionProtectionEnabled {
		want.inst.DeletionProtectionReason = m.DeletionProtectionReason.ValueString()
	}
	return want, diags
}

// mismatch names the first attribute in which an existing instance differs from the desired one
// ("" when it is the instance this plan would create), for adopting an instance a lost answer created.
func (d *desired) mismatch(got *filestorepb.Instance) string {
	w := d.inst
	switch {
	case canonicalTier(got.GetTier()) != canonicalTier(w.GetTier()):
		return "tier"
	case len(got.GetFileShares()) != 1 || got.GetFileShares()[0].GetName() != w.FileShares[0].GetName():
		return "share.name"
	case got.GetFileShares()[0].GetCapacityGb() != w.FileShares[0].GetCapacityGb():
		return "share.capacity_gb"
	case protocolName(got.GetProtocol()) != protocolName(w.GetProtocol()):
		return "protocol"
	case len(got.GetNetworks()) != 1 || !tfutil.SameNetwork(got.GetNetworks()[0].GetNetwork(), w.Networks[0].GetNetwork(), d.project):
		return "network.name"
	case connectModeName(got.GetNetworks()[0].GetConnectMode()) != connectModeName(w.Networks[0].GetConnectMode()):
		return "network.connect_mode"
	case w.Networks[0].GetReservedIpRange() != "" && got.GetNetworks()[0].GetReservedIpRange() != w.Networks[0].GetReservedIpRange():
		return "network.reserved_ip_range"
	case got.GetDescription() != w.GetDescription():
		return "description"
	case !maps.Equal(got.GetLabels(), w.GetLabels()):
		return "labels"
	case got.GetDeletionProtectionEnabled() != w.GetDeletionProtectionEnabled():
		return "deletion_protection"
	}
	return ""
}

func canonicalTier(t filestorepb.Instance_Tier) string {
	switch t {
	case filestorepb.Instance_STANDARD:
		return "BASIC_HDD"
	case filestorepb.Instance_PREMIUM:
		return "BASIC_SSD"
	}
	return t.String()
}

func protocolName(p filestorepb.Instance_FileProtocol) string {
	if p == filestorepb.Instance_FILE_PROTOCOL_UNSPECIFIED {
		return protocolNFSv3 // the API's default
	}
	return p.String()
}

func connectModeName(m filestorepb.NetworkConfig_ConnectMode) string {
	if m == filestorepb.NetworkConfig_CONNECT_MODE_UNSPECIFIED {
		return modeDirect // the API's default
	}
	return m.String()
}

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
		net.ReservedIPRange = types.StringValue(nc.GetReservedIpRange())
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
	m.Labels, m.EffectiveLabels, d = tfutil.ReadLabels(ctx, r.Provider, inst.GetLabels(), m.Labels)
	diags.Append(d...)
	return diags
}
