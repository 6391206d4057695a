package filestore

import (
	"context"
	"maps"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/diag"

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
	case !maps.Equal(tfutil.WithoutCreateMarker(got.GetLabels()), w.GetLabels()):
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
