package bucket

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// toAPI is the bucket the plan asks for, in the JSON API's form.
func toAPI(ctx context.Context, m *model) (*storage.Bucket, diag.Diagnostics) {
	labels, diags := tfutil.LabelMap(ctx, m.EffectiveLabels)
	if len(labels) == 0 {
		labels = nil
	}
	uniform := m.UniformBucketLevelAccess.ValueBool()
	b := &storage.Bucket{
		Name:         m.Name.ValueString(),
		Location:     m.Location.ValueString(),
		StorageClass: m.StorageClass.ValueString(),
		Labels:       labels,
		IamConfiguration: &storage.BucketIamConfiguration{
			UniformBucketLevelAccess: &storage.BucketIamConfigurationUniformBucketLevelAccess{Enabled: uniform, ForceSendFields: []string{"Enabled"}},
		},
		Autoclass: &storage.BucketAutoclass{Enabled: m.Autoclass.ValueBool(), ForceSendFields: []string{"Enabled"}},
		SoftDeletePolicy: &storage.BucketSoftDeletePolicy{
			RetentionDurationSeconds: m.SoftDeleteRetentionSeconds.ValueInt64(), ForceSendFields: []string{"RetentionDurationSeconds"},
		},
	}
	if b.Autoclass.Enabled {
		b.Autoclass.TerminalStorageClass = m.AutoclassTerminalStorageClass.ValueString()
	}
	if m.HierarchicalNamespace.ValueBool() {
		b.HierarchicalNamespace = &storage.BucketHierarchicalNamespace{Enabled: true}
	}
	return b, diags
}
