package bucket

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func (r *bucketResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := tfutil.Stable()
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Cloud Storage bucket for training data or checkpoints, with the AI/ML defaults set by `purpose`: " +
			"`checkpoints` turns on a hierarchical namespace and turns soft delete off, `datasets` turns on Autoclass, and every " +
			"purpose uses uniform bucket-level access. Each default can be overridden. Cluster nodes mount buckets with Cloud " +
			"Storage FUSE (`mount -t gcsfuse`).\n\n" +
			"A bucket holds data that outlives clusters, so this resource never replaces one: changing `name`, `project`, " +
			"`location` or `hierarchical_namespace` is a plan-time error. With `deletion_protection = true` (the default) a " +
			"destroy is refused at plan time; a bucket that still holds objects is only deleted with `force_destroy = true`, " +
			"which deletes the objects first.",
		Attributes: map[string]schema.Attribute{
			"id": tfutil.IDAttribute("The bucket name."),
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Bucket name, unique across all of Cloud Storage: 3-63 characters (up to 222 with dots) of lowercase " +
					"letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit. Cannot be changed.",
				Validators: []validator.String{nameValidator()},
			},
			"project": tfutil.ProjectAttribute(),
			"location": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Where the data lives: a region (`us-central1`; keep it in the cluster's region so nodes read " +
					"without cross-region charges), a dual-region (`NAM4`) or a multi-region (`US`). Case does not matter. Defaults " +
					"to the provider's `region`. Cannot be changed.",
				Validators: []validator.String{locationValidator()},
			},
			"purpose": schema.StringAttribute{
				Optional: true, Computed: true,
				Default: stringdefault.StaticString(purposeGeneral),
				MarkdownDescription: "What the bucket is for, which sets the defaults of the attributes below: `checkpoints` " +
					"(hierarchical namespace, soft delete off), `datasets` (Autoclass, 7-day soft delete) or `general` (default: " +
					"7-day soft delete). All use uniform bucket-level access.",
				Validators: []validator.String{stringvalidator.OneOf(purposes...)},
			},
			"storage_class": schema.StringAttribute{
				Optional: true, Computed: true,
				Default: stringdefault.StaticString("STANDARD"),
				MarkdownDescription: "Default storage class of new objects: `" + strings.Join(catalog.BucketStorageClasses(), "`, `") +
					"`. Default `STANDARD`, which Autoclass requires.",
				Validators: []validator.String{storageClassValidator()},
			},
			"autoclass": schema.BoolAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Autoclass: Cloud Storage moves each object to a colder class when it is not read and back when it " +
					"is. Default `true` for `purpose = \"datasets\"`, otherwise `false`.",
			},
			"autoclass_terminal_storage_class": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The coldest class Autoclass moves objects to: `" + strings.Join(catalog.AutoclassTerminalClasses(), "` or `") +
					"` (default `NEARLINE`). Only with `autoclass = true`.",
				Validators: []validator.String{stringvalidator.OneOf(catalog.AutoclassTerminalClasses()...)},
			},
			"hierarchical_namespace": schema.BoolAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Hierarchical namespace: real folders with atomic renames and faster listing, what checkpoint " +
					"writers want. Needs uniform bucket-level access. Default `true` for `purpose = \"checkpoints\"`, otherwise " +
					"`false`. Cannot be changed.",
			},
			"uniform_bucket_level_access": schema.BoolAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Uniform bucket-level access: access through IAM only, no object ACLs. Default `true`.",
			},
			"soft_delete_retention_seconds": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "How long deleted objects stay restorable: `0` (off) or 604800-7776000 (7 to 90 days). Default " +
					"`0` for `purpose = \"checkpoints\"`, otherwise 604800 (7 days).",
			},
			"versioning": schema.BoolAttribute{
				Optional: true, Computed: true,
				Default: booldefault.StaticBool(false),
				MarkdownDescription: "Object versioning: an object overwritten or deleted is kept as a noncurrent generation that " +
					"can be restored, which is what a bucket of Terraform state wants (every state write is a new generation). " +
					"Default `false`. Cloud Storage does not offer it with `hierarchical_namespace`.",
			},
			"labels":           tfutil.LabelsAttribute("bucket"),
			"effective_labels": tfutil.EffectiveLabelsAttribute("bucket"),
			"force_destroy": schema.BoolAttribute{
				Optional: true, Computed: true,
				Default: booldefault.StaticBool(false),
				MarkdownDescription: "Delete every object (all generations) when the bucket is destroyed. Default `false`: destroying a " +
					"bucket that holds objects fails and deletes nothing.",
			},
			"deletion_protection": schema.BoolAttribute{
				Optional: true, Computed: true,
				Default: booldefault.StaticBool(true),
				MarkdownDescription: "Default `true`: a destroy, or anything that would delete the bucket, is refused at plan time. Set " +
					"it to `false` and apply before destroying.",
			},
			"location_type": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "`region`, `dual-region` or `multi-region`.",
			},
			"url": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "`gs://<name>`.",
			},
			"self_link": schema.StringAttribute{
				Computed: true, PlanModifiers: stable,
				MarkdownDescription: "The bucket's URI in the JSON API.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}
