package network

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type model struct {
	ID                   types.String   `tfsdk:"id"`
	Name                 types.String   `tfsdk:"name"`
	Project              types.String   `tfsdk:"project"`
	Region               types.String   `tfsdk:"region"`
	Description          types.String   `tfsdk:"description"`
	MTU                  types.Int64    `tfsdk:"mtu"`
	Subnet               types.Object   `tfsdk:"subnet"`
	EnableIAPSSH         types.Bool     `tfsdk:"enable_iap_ssh"`
	EnableNAT            types.Bool     `tfsdk:"enable_nat"`
	PrivateServiceAccess types.Object   `tfsdk:"private_service_access"`
	GPUNetworks          types.Object   `tfsdk:"gpu_networks"`
	SelfLink             types.String   `tfsdk:"self_link"`
	NetworkID            types.String   `tfsdk:"network_id"`
	RouterName           types.String   `tfsdk:"router_name"`
	FirewallRules        types.List     `tfsdk:"firewall_rules"`
	Timeouts             timeouts.Value `tfsdk:"timeouts"`
}

type subnetModel struct {
	CIDR                types.String `tfsdk:"cidr"`
	PrivateGoogleAccess types.Bool   `tfsdk:"private_google_access"`
	Name                types.String `tfsdk:"name"`
	SelfLink            types.String `tfsdk:"self_link"`
	ID                  types.String `tfsdk:"id"`
	GatewayAddress      types.String `tfsdk:"gateway_address"`
}

type psaModel struct {
	Enabled      types.Bool   `tfsdk:"enabled"`
	PrefixLength types.Int64  `tfsdk:"prefix_length"`
	Address      types.String `tfsdk:"address"`
	RangeName    types.String `tfsdk:"range_name"`
	Peering      types.String `tfsdk:"peering"`
}

type gpuNetworksModel struct {
	Stack              types.String `tfsdk:"stack"`
	Zone               types.String `tfsdk:"zone"`
	SubnetCount        types.Int64  `tfsdk:"subnet_count"`
	CIDR               types.String `tfsdk:"cidr"`
	SubnetPrefixLength types.Int64  `tfsdk:"subnet_prefix_length"`
	MTU                types.Int64  `tfsdk:"mtu"`
	Attachments        types.List   `tfsdk:"attachments"`
}

type attachmentModel struct {
	Network    types.String `tfsdk:"network"`
	Subnetwork types.String `tfsdk:"subnetwork"`
	NICType    types.String `tfsdk:"nic_type"`
}

var (
	subnetAttrTypes = map[string]attr.Type{
		"cidr": types.StringType, "private_google_access": types.BoolType, "name": types.StringType,
		"self_link": types.StringType, "id": types.StringType, "gateway_address": types.StringType,
	}
	psaAttrTypes = map[string]attr.Type{
		"enabled": types.BoolType, "prefix_length": types.Int64Type, "address": types.StringType,
		"range_name": types.StringType, "peering": types.StringType,
	}
	attachmentAttrTypes = map[string]attr.Type{
		"network": types.StringType, "subnetwork": types.StringType, "nic_type": types.StringType,
	}
	attachmentType     = types.ObjectType{AttrTypes: attachmentAttrTypes}
	gpuNetworksAttrTyp = map[string]attr.Type{
		"stack": types.StringType, "zone": types.StringType, "subnet_count": types.Int64Type,
		"cidr": types.StringType, "subnet_prefix_length": types.Int64Type, "mtu": types.Int64Type, "attachments": types.ListType{ElemType: attachmentType},
	}
)
