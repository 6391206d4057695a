package lustre

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// defaultThroughput is the tier the field uses for training data and checkpoints (Cluster Toolkit's
// managed-lustre module): the most throughput per TiB, so the smallest valid instance is fastest.
const defaultThroughput = 1000

func (r *lustreResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := tfutil.Stable()
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Managed Lustre instance for a training cluster's datasets and checkpoints, mounted by every node " +
			"over the cluster network's private service access.\n\n" +
			"Lustre holds data that must outlive clusters, so this resource never replaces an instance: changing `name`, " +
			"`project`, `zone`, `filesystem`, `per_unit_storage_throughput` or `network`, or shrinking `capacity_gib`, is a " +
			"plan-time error. Growing capacity and changing labels or the description are applied in place. The Managed Lustre " +
			"API has no deletion protection; the provider enforces `deletion_protection` itself (default `true`): a destroy is " +
			"refused at plan time.",
		Attributes: map[string]schema.Attribute{
			"id": tfutil.InstanceIDAttribute("zone"),
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Instance ID: 1-63 characters, lowercase letters, digits and hyphens, starting with a letter and ending with a letter or digit. Cannot be changed.",
				Validators:          []validator.String{nameValidator()},
			},
			"project": tfutil.ProjectAttribute(),
			"zone": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Zone of the instance; put it in the zone of the GPU nodes. Defaults to the provider's `zone`. Cannot be changed.",
				Validators:          []validator.String{zoneValidator()},
			},
			"filesystem": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Lustre file system name, 1-8 letters or digits (e.g. `lustrefs`); part of the mount source. Cannot be changed.",
				Validators:          []validator.String{filesystemValidator()},
			},
			"capacity_gib": schema.Int64Attribute{
				Optional: true, Computed: true,
				Default:             int64default.StaticInt64(catalog.DefaultLustreCapacityGiB),
				MarkdownDescription: fmt.Sprintf("Capacity in GiB, within the throughput tier's range and steps (%s). Default %d. Growing is applied in place; Lustre cannot shrink.", lustreTierTable(), catalog.DefaultLustreCapacityGiB),
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"per_unit_storage_throughput": schema.Int64Attribute{
				Optional: true, Computed: true,
				Default:             int64default.StaticInt64(defaultThroughput),
				MarkdownDescription: fmt.Sprintf("Throughput tier in MBps per TiB: %s. Default %d. Cannot be changed.", joinInts(catalog.LustreThroughputs()), defaultThroughput),
				Validators:          []validator.Int64{int64validator.OneOf(catalog.LustreThroughputs()...)},
			},
			"network": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The VPC, which must have private service access (as `hypercompute_network` sets up): its name " +
					"(in the instance's project), ID `projects/{project}/global/networks/{name}` or self link. Cannot be changed.",
				Validators: []validator.String{tfutil.NetworkValidator()},
			},
			"description":      tfutil.InstanceDescriptionAttribute(),
			"labels":           tfutil.LabelsAttribute("instance"),
			"effective_labels": tfutil.EffectiveLabelsAttribute("instance"),
			"deletion_protection": tfutil.DeletionProtectionAttribute("Refuse to destroy the instance (enforced by the provider: the API has no such setting). " +
				"Default `true`. Set it to `false` and apply before destroying. An imported instance starts protected."),
			"mount_point": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "The API's mount point, `<ip>@tcp:/<filesystem>`.",
			},
			"mount_source": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "What `mount -t lustre` takes as its source (the same as `mount_point`), named like `hypercompute_filestore.mount_source` so modules treat both alike.",
			},
			"ip_address": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "IPv4 address of the instance's management server, from the network's private service access range.",
			},
			// Not kept from state on update: an instance REPAIRING at plan time may be READY after.
			"state": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Instance state as Managed Lustre reports it (`ACTIVE` once usable).",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func lustreTierTable() string {
	var parts []string
	for _, t := range catalog.LustreTiers() {
		parts = append(parts, fmt.Sprintf("%d MBps/TiB: %d-%d GiB", t.Throughput, t.MinGiB, t.MaxGiB))
	}
	return strings.Join(parts, "; ")
}

func joinInts(vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprintf("`%d`", v)
	}
	return strings.Join(s, ", ")
}
