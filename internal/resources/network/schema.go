package network

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Derived resource names append at most len("-gpu-7-subnet") = 13 characters, and Compute names
// stop at 63, so the network's own name is capped lower than the API's limit.
const maxNameLength = 48

// IAPRange is the source range of Identity-Aware Proxy TCP forwarding (SSH through IAP).
const IAPRange = "35.235.240.0/20"

func (r *networkResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := tfutil.Stable()
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceIfSet := []planmodifier.String{stringplanmodifier.RequiresReplace(), stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A VPC for a training cluster: one custom-mode network with a primary subnet, a minimal " +
			"firewall (traffic between the cluster's VMs, and SSH only from Identity-Aware Proxy when enabled), Cloud Router " +
			"and Cloud NAT so VMs without public IPs reach package mirrors, private service access for Filestore and " +
			"Managed Lustre, and optionally the GPU network set one NIC stack needs (TCPX, TCPXO or RDMA).",
		Attributes: map[string]schema.Attribute{
			"id": tfutil.IDAttribute("`projects/{project}/global/networks/{name}`."),
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Network name; also the prefix of every derived resource (`<name>-subnet`, `<name>-router`, ...). 1-48 characters, RFC 1035.",
				Validators:          []validator.String{nameValidator()},
				PlanModifiers:       replace,
			},
			"project": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Project ID. Defaults to the provider's `project`.",
				PlanModifiers:       replaceIfSet,
			},
			"region": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Region of the subnet, router and NAT. Defaults to the provider's `region`.",
				Validators:          []validator.String{regionValidator()},
				PlanModifiers:       replaceIfSet,
			},
			"description": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Description of the VPC, at most %d characters. A create appends `%s`: "+
					"a later create finishes a network that carries it and whose create stopped half-way, and refuses any other "+
					"existing network of the same name (import it instead).", maxDescriptionLength, createdMarker),
				Validators:    []validator.String{stringvalidator.LengthAtMost(maxDescriptionLength)},
				PlanModifiers: replace,
			},
			"mtu": schema.Int64Attribute{
				Optional: true, Computed: true,
				Default:             int64default.StaticInt64(8896),
				MarkdownDescription: "MTU of the VPC, 1300-8896. Default 8896, which Managed Lustre and GPU-to-GPU traffic want.",
				Validators:          []validator.Int64{int64validator.Between(1300, 8896)},
			},
			"subnet": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "The primary subnet every cluster VM's first NIC uses.",
				Attributes: map[string]schema.Attribute{
					"cidr": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Primary IPv4 range, a private CIDR between /8 and /29, e.g. `10.0.0.0/20`. A wider range that contains the current one is applied in place; any other change recreates the subnet (refused by the API while VMs use it).",
						Validators:          []validator.String{cidrValidator(8, 29)},
					},
					"private_google_access": schema.BoolAttribute{
						Optional: true, Computed: true,
						Default:             booldefault.StaticBool(true),
						MarkdownDescription: "Lets VMs without external IPs reach Google APIs (Cloud Storage, Artifact Registry). Default true.",
					},
					"name":            schema.StringAttribute{Computed: true, PlanModifiers: stable, MarkdownDescription: "`<name>-subnet`."},
					"self_link":       schema.StringAttribute{Computed: true, PlanModifiers: stable, MarkdownDescription: "Subnet self link."},
					"id":              schema.StringAttribute{Computed: true, PlanModifiers: stable, MarkdownDescription: "`projects/{project}/regions/{region}/subnetworks/{name}`."},
					"gateway_address": schema.StringAttribute{Computed: true, PlanModifiers: stable, MarkdownDescription: "Gateway address of the subnet."},
				},
			},
			"enable_iap_ssh": schema.BoolAttribute{
				Optional: true, Computed: true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "Allow SSH (tcp/22) from Identity-Aware Proxy's range `" + IAPRange + "` only. Default true. No other ingress from outside the VPC is ever opened.",
			},
			"enable_nat": schema.BoolAttribute{
				Optional: true, Computed: true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "Create a Cloud Router and Cloud NAT so VMs without public IPs reach the internet (package mirrors, container registries). Default true.",
			},
			"private_service_access": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Private service access (VPC peering with Google's service producer network), needed by Filestore in PSA mode and by Managed Lustre. Enabled with a /20 range by default.",
				Attributes: map[string]schema.Attribute{
					"enabled": schema.BoolAttribute{
						Optional: true, Computed: true,
						Default:             booldefault.StaticBool(true),
						MarkdownDescription: "Reserve a range and connect it to `servicenetworking.googleapis.com`. Default true.",
					},
					"prefix_length": schema.Int64Attribute{
						Optional: true, Computed: true,
						Default:             int64default.StaticInt64(20),
						MarkdownDescription: "Prefix length of the reserved range, 8-24. Default 20 (Managed Lustre asks for at least a /20 per instance set).",
						Validators:          []validator.Int64{int64validator.Between(8, 24)},
					},
					"address": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "First address of the range. Chosen by Google when unset.",
						Validators:          []validator.String{ipv4Validator()},
					},
					"range_name": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the reserved global address (`<name>-psa`), as storage resources reference it."},
					"peering":    schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the VPC peering Service Networking created."},
				},
			},
			"gpu_networks": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "The extra VPCs one GPU NIC stack needs, wired for node partitions: `tcpx` (A3 High: 4 VPCs), " +
					"`tcpxo` (A3 Mega: 8 VPCs), `rdma` (A3 Ultra, A4, A4X: one VPC on the zone's `vpc-roce` network profile with N subnets, MTU 8896).",
				Attributes: map[string]schema.Attribute{
					"stack": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "NIC stack: `tcpx`, `tcpxo` or `rdma`.",
						Validators:          []validator.String{stringvalidator.OneOf(gpuStacks...)},
					},
					"zone": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Zone of the RDMA network profile (`<zone>-vpc-roce`). Defaults to the provider's `zone`. Only for `rdma`.",
						Validators:          []validator.String{zoneValidator()},
					},
					"subnet_count": schema.Int64Attribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Number of subnets in the RDMA VPC, 1-8 (one per GPU NIC: 8 for A3 Ultra and A4, 4 for A4X). Default 8. For `tcpx` and `tcpxo` the count is fixed by the stack (one subnet per VPC).",
						Validators:          []validator.Int64{int64validator.Between(1, 8)},
					},
					"cidr": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Range the GPU subnets are carved from. It is split into one equal slot per GPU subnet (tcpx 4, tcpxo 8, rdma 16: the host gVNIC subnet and up to 8 RDMA subnets, rounded up to a power of two) and each subnet starts at its slot's first address, so it can grow in place up to the slot's size. Default `192.168.0.0/16` (slots of /18 for tcpx, /19 for tcpxo, /20 for rdma). Must not overlap the primary subnet; changing it recreates the GPU subnets (refused by the API while VMs use them).",
						Validators:          []validator.String{cidrValidator(8, 21)},
					},
					"subnet_prefix_length": schema.Int64Attribute{
						Optional: true, Computed: true,
						MarkdownDescription: fmt.Sprintf("Prefix length of every GPU subnet, %d-%d. Default %d. "+
							"Every node of a GPU partition takes one address in each GPU subnet, and Compute keeps %d addresses of each range, so a /p subnet holds 2^(32-p) - %d nodes: "+
							"a /24 252, a /22 1,020, a /21 2,044, a /20 4,092. At most the slot size `cidr` gives each subnet. "+
							"A shorter prefix (a larger subnet) is applied in place (`expandIpCidrRange`, the subnets keep their ids while VMs use them); a longer one is refused at plan, since Compute cannot shrink a subnet.",
							catalog.MinSubnetPrefixLength, catalog.MaxSubnetPrefixLength, defaultGPUSubnetPrefix, catalog.SubnetReservedAddresses, catalog.SubnetReservedAddresses),
						Validators: []validator.Int64{int64validator.Between(catalog.MinSubnetPrefixLength, catalog.MaxSubnetPrefixLength)},
					},
					"mtu": schema.Int64Attribute{
						Computed:            true,
						MarkdownDescription: "MTU of the GPU VPCs, fixed by the stack (8244 for TCPX/TCPXO, 8896 for RDMA).",
					},
					"attachments": schema.ListNestedAttribute{
						Computed:            true,
						MarkdownDescription: "One entry per GPU NIC, in NIC order, ready for node partitions.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"network":    schema.StringAttribute{Computed: true, MarkdownDescription: "Network self link."},
							"subnetwork": schema.StringAttribute{Computed: true, MarkdownDescription: "Subnetwork self link."},
							"nic_type":   schema.StringAttribute{Computed: true, MarkdownDescription: "`GVNIC` or `MRDMA`."},
						}},
					},
				},
			},
			"self_link":   schema.StringAttribute{Computed: true, PlanModifiers: stable, MarkdownDescription: "Network self link."},
			"network_id":  schema.StringAttribute{Computed: true, PlanModifiers: stable, MarkdownDescription: "Numeric ID the API assigned to the network."},
			"router_name": schema.StringAttribute{Computed: true, MarkdownDescription: "Cloud Router name (`<name>-router`), empty when NAT is disabled."},
			"firewall_rules": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Names of the firewall rules this network owns.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}
