package filestore

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

type model struct {
	ID                       types.String   `tfsdk:"id"`
	Name                     types.String   `tfsdk:"name"`
	Project                  types.String   `tfsdk:"project"`
	Location                 types.String   `tfsdk:"location"`
	Tier                     types.String   `tfsdk:"tier"`
	Share                    types.Object   `tfsdk:"share"`
	Protocol                 types.String   `tfsdk:"protocol"`
	Network                  types.Object   `tfsdk:"network"`
	Description              types.String   `tfsdk:"description"`
	Labels                   types.Map      `tfsdk:"labels"`
	EffectiveLabels          types.Map      `tfsdk:"effective_labels"`
	DeletionProtection       types.Bool     `tfsdk:"deletion_protection"`
	DeletionProtectionReason types.String   `tfsdk:"deletion_protection_reason"`
	IPAddress                types.String   `tfsdk:"ip_address"`
	MountSource              types.String   `tfsdk:"mount_source"`
	MountOptions             types.String   `tfsdk:"mount_options"`
	State                    types.String   `tfsdk:"state"`
	Timeouts                 timeouts.Value `tfsdk:"timeouts"`
}

type shareModel struct {
	Name       types.String `tfsdk:"name"`
	CapacityGB types.Int64  `tfsdk:"capacity_gb"`
}

type networkModel struct {
	Name            types.String `tfsdk:"name"`
	ConnectMode     types.String `tfsdk:"connect_mode"`
	ReservedIPRange types.String `tfsdk:"reserved_ip_range"`
}

var (
	shareAttrTypes   = map[string]attr.Type{"name": types.StringType, "capacity_gb": types.Int64Type}
	networkAttrTypes = map[string]attr.Type{"name": types.StringType, "connect_mode": types.StringType, "reserved_ip_range": types.StringType}
)

// storageFields is what the storage lifecycle (tfutil.StorageResource) reads from the model.
func (m *model) storageFields() tfutil.StorageFields {
	return tfutil.StorageFields{ID: m.ID.ValueString(), Protected: m.DeletionProtection.ValueBool(), Timeouts: m.Timeouts}
}
