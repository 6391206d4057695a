package filestore

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Wire values of the enums this resource exposes.
const (
	protocolNFSv3  = catalog.FilestoreNFSv3
	protocolNFSv41 = catalog.FilestoreNFSv41
	modePSA        = "PRIVATE_SERVICE_ACCESS"
	modeDirect     = "DIRECT_PEERING"
	defaultShare   = "home"
)

func (r *filestoreResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := tfutil.Stable()
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Filestore instance for a training cluster's shared `/home`: one NFS share on the cluster network, " +
			"reached through private service access (default) or direct peering.\n\n" +
			"Filestore holds user data that must outlive clusters, so this resource never replaces an instance: changing an " +
			"attribute Filestore cannot change in place (`name`, `project`, `location`, `tier`, `share.name`, `protocol`, " +
			"`network`) is a plan-time error, and so is shrinking a Basic-tier share. Capacity growth and label, description and " +
			"deletion-protection changes are applied in place. With `deletion_protection = true` (the default) a destroy is " +
			"refused at plan time.",
		Attributes: map[string]schema.Attribute{
			"id": tfutil.InstanceIDAttribute("location"),
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Instance ID: 1-63 characters, lowercase letters, digits and hyphens, starting with a letter. Cannot be changed.",
				Validators:          []validator.String{nameValidator()},
			},
			"project": tfutil.ProjectAttribute(),
			"location": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Zone of the instance, or its region for the `REGIONAL` and `ENTERPRISE` tiers. Defaults to the " +
					"provider's `zone` (or `region` for those tiers). Cannot be changed.",
			},
			"tier": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Service tier: `" + strings.Join(catalog.FilestoreTierNames(), "`, `") + "`. It sets the capacity " +
					"range and steps, whether the share may shrink (Basic tiers only grow), the share name length and the direct-peering " +
					"range size. Cannot be changed.",
				Validators: []validator.String{stringvalidator.OneOf(catalog.FilestoreTierNames()...)},
			},
			"share": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "The instance's one file share.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Optional: true, Computed: true,
						Default: stringdefault.StaticString(defaultShare),
						MarkdownDescription: "Share name, exported as `/<name>`: a lowercase letter, then lowercase letters, digits and " +
							"underscores; at most 16 characters on Basic tiers, 63 otherwise. Default `" + defaultShare + "`. Cannot be changed.",
					},
					"capacity_gb": schema.Int64Attribute{
						Required: true,
						MarkdownDescription: "Capacity in GiB (Filestore's GB are 1024^3 bytes). Each tier has its own minimum, maximum and " +
							"step: e.g. `BASIC_HDD` 1024-65433, `BASIC_SSD` 2560-65433, `ZONAL` 1024-9984 in steps of 256 then 10240-102400 " +
							"in steps of 2560. Growing is applied in place; Basic tiers cannot shrink.",
						Validators: []validator.Int64{int64validator.AtLeast(1)},
					},
				},
			},
			"protocol": schema.StringAttribute{
				Optional: true, Computed: true,
				Default:             stringdefault.StaticString(protocolNFSv3),
				MarkdownDescription: "NFS protocol: `NFS_V3` (default) or `NFS_V4_1` (" + nfsV41Tiers() + " tiers only). Cannot be changed.",
				Validators:          []validator.String{stringvalidator.OneOf(catalog.FilestoreProtocols()...)},
			},
			"network": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "How the instance attaches to the cluster network. Cannot be changed.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Required: true,
						MarkdownDescription: "The VPC: its name (in the instance's project), its ID `projects/{project}/global/networks/{name}` " +
							"or its self link, e.g. `hypercompute_network.cluster.name`.",
						Validators: []validator.String{tfutil.NetworkValidator()},
					},
					"connect_mode": schema.StringAttribute{
						Optional: true, Computed: true,
						Default: stringdefault.StaticString(modePSA),
						MarkdownDescription: "`PRIVATE_SERVICE_ACCESS` (default; the network needs private service access, which " +
							"`hypercompute_network` sets up) or `DIRECT_PEERING`.",
						Validators: []validator.String{stringvalidator.OneOf(modePSA, modeDirect)},
					},
					"reserved_ip_range": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "With `PRIVATE_SERVICE_ACCESS`: the name of an allocated range connected to the network " +
							"(default `<network>-psa`, the range `hypercompute_network` reserves, also exported as " +
							"`private_service_access.range_name`). With `DIRECT_PEERING`: a free private CIDR of the tier's size " +
							"(/29 for Basic tiers, /26 for Zonal, Regional and Enterprise, /24 for High Scale); chosen by Filestore when unset.",
					},
				},
			},
			"description":      tfutil.InstanceDescriptionAttribute(),
			"labels":           tfutil.LabelsAttribute("instance"),
			"effective_labels": tfutil.EffectiveLabelsAttribute("instance"),
			"deletion_protection": tfutil.DeletionProtectionAttribute("Filestore's own deletion protection (`deletionProtectionEnabled`). Default `true`: a destroy, " +
				"or anything that would delete the instance, is refused at plan time. Set it to `false` and apply before destroying."),
			"deletion_protection_reason": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Why the instance is protected, shown by Filestore when a delete is refused. Only with `deletion_protection = true`.",
				Validators:          []validator.String{stringvalidator.LengthAtMost(512)},
			},
			"ip_address": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "IPv4 address the share is served on.",
			},
			"mount_source": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "What `mount -t nfs` takes as its source: `<ip_address>:/<share.name>`.",
			},
			"mount_options": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Recommended NFS mount options for a shared `/home` on this instance: hard mounts (a client " +
					"waits out a server failover instead of failing writes), 1 MiB transfers, and the protocol version.",
			},
			// Not kept from state on update: an instance REPAIRING at plan time may be READY after.
			"state": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Instance state as Filestore reports it (`READY` once usable).",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

// mountOptions are the client options a shared /home wants: hard mounts so writes wait out a
// failover, large transfers, and a long timeout Filestore's own guidance uses.
func mountOptions(protocol string) string {
	vers := "3"
	if protocol == protocolNFSv41 {
		vers = "4.1"
	}
	return "rw,hard,timeo=600,retrans=3,rsize=1048576,wsize=1048576,resvport,_netdev,vers=" + vers
}

// nfsV41Tiers names the tiers that offer NFS_V4_1, from the catalog: "`ZONAL`, `REGIONAL` and `ENTERPRISE`".
func nfsV41Tiers() string {
	t := catalog.FilestoreNFSv41Tiers()
	return "`" + strings.Join(t[:len(t)-1], "`, `") + "` and `" + t[len(t)-1] + "`"
}
