package bucket

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type model struct {
	ID                            types.String   `tfsdk:"id"`
	Name                          types.String   `tfsdk:"name"`
	Project                       types.String   `tfsdk:"project"`
	Location                      types.String   `tfsdk:"location"`
	Purpose                       types.String   `tfsdk:"purpose"`
	StorageClass                  types.String   `tfsdk:"storage_class"`
	Autoclass                     types.Bool     `tfsdk:"autoclass"`
	AutoclassTerminalStorageClass types.String   `tfsdk:"autoclass_terminal_storage_class"`
	HierarchicalNamespace         types.Bool     `tfsdk:"hierarchical_namespace"`
	UniformBucketLevelAccess      types.Bool     `tfsdk:"uniform_bucket_level_access"`
	SoftDeleteRetentionSeconds    types.Int64    `tfsdk:"soft_delete_retention_seconds"`
	Versioning                    types.Bool     `tfsdk:"versioning"`
	Labels                        types.Map      `tfsdk:"labels"`
	EffectiveLabels               types.Map      `tfsdk:"effective_labels"`
	ForceDestroy                  types.Bool     `tfsdk:"force_destroy"`
	DeletionProtection            types.Bool     `tfsdk:"deletion_protection"`
	LocationType                  types.String   `tfsdk:"location_type"`
	URL                           types.String   `tfsdk:"url"`
	SelfLink                      types.String   `tfsdk:"self_link"`
	Timeouts                      timeouts.Value `tfsdk:"timeouts"`
}
