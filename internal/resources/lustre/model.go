package lustre

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

type model struct {
	ID                       types.String   `tfsdk:"id"`
	Name                     types.String   `tfsdk:"name"`
	Project                  types.String   `tfsdk:"project"`
	Zone                     types.String   `tfsdk:"zone"`
	Filesystem               types.String   `tfsdk:"filesystem"`
	CapacityGiB              types.Int64    `tfsdk:"capacity_gib"`
	PerUnitStorageThroughput types.Int64    `tfsdk:"per_unit_storage_throughput"`
	Network                  types.String   `tfsdk:"network"`
	Description              types.String   `tfsdk:"description"`
	Labels                   types.Map      `tfsdk:"labels"`
	EffectiveLabels          types.Map      `tfsdk:"effective_labels"`
	DeletionProtection       types.Bool     `tfsdk:"deletion_protection"`
	MountPoint               types.String   `tfsdk:"mount_point"`
	MountSource              types.String   `tfsdk:"mount_source"`
	IPAddress                types.String   `tfsdk:"ip_address"`
	State                    types.String   `tfsdk:"state"`
	Timeouts                 timeouts.Value `tfsdk:"timeouts"`
}

// storageFields is what the storage lifecycle (tfutil.StorageResource) reads from the model.
// (The Managed Lustre API has no deletion protection; the provider is all that refuses.)
func (m *model) storageFields() tfutil.StorageFields {
	return tfutil.StorageFields{ID: m.ID.ValueString(), Protected: m.DeletionProtection.ValueBool(), Timeouts: m.Timeouts}
}
