package bucket

import (
	"context"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// desired is the bucket a plan asks for, in the JSON API's form, and the project it belongs to.
type desired struct {
	project string
	bucket  *storage.Bucket
}

func toDesired(ctx context.Context, m *model) (*desired, diag.Diagnostics) {
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
		Versioning: &storage.BucketVersioning{Enabled: m.Versioning.ValueBool(), ForceSendFields: []string{"Enabled"}},
	}
	if b.Autoclass.Enabled {
		b.Autoclass.TerminalStorageClass = m.AutoclassTerminalStorageClass.ValueString()
	}
	if m.HierarchicalNamespace.ValueBool() {
		b.HierarchicalNamespace = &storage.BucketHierarchicalNamespace{Enabled: true}
	}
	return &desired{project: m.Project.ValueString(), bucket: b}, diags
}

// mismatch names the first setting fixed at creation in which an existing bucket differs from the desired one
// ("" when none), for adopting a bucket whose insert answered 409.
func (d *desired) mismatch(got *storage.Bucket) string {
	want := d.bucket
	switch {
	case !strings.EqualFold(got.Location, want.Location):
		return "location"
	case (got.HierarchicalNamespace != nil && got.HierarchicalNamespace.Enabled) != (want.HierarchicalNamespace != nil && want.HierarchicalNamespace.Enabled):
		return "hierarchical_namespace"
	}
	return ""
}

// patch is the buckets.patch body that turns cur into the desired bucket, and the attributes it changes.
func (d *desired) patch(cur *storage.Bucket) (*storage.Bucket, []string) {
	want := d.bucket
	p := &storage.Bucket{}
	var fields []string
	if cur.StorageClass != want.StorageClass {
		p.StorageClass = want.StorageClass
		fields = append(fields, "storage_class")
	}
	curAuto, curTerminal := cur.Autoclass != nil && cur.Autoclass.Enabled, ""
	if curAuto {
		curTerminal = cur.Autoclass.TerminalStorageClass
	}
	if curAuto != want.Autoclass.Enabled || (want.Autoclass.Enabled && curTerminal != want.Autoclass.TerminalStorageClass) {
		p.Autoclass = want.Autoclass
		fields = append(fields, "autoclass")
	}
	curUniform := cur.IamConfiguration != nil && cur.IamConfiguration.UniformBucketLevelAccess != nil && cur.IamConfiguration.UniformBucketLevelAccess.Enabled
	if curUniform != want.IamConfiguration.UniformBucketLevelAccess.Enabled {
		p.IamConfiguration = want.IamConfiguration
		fields = append(fields, "uniform_bucket_level_access")
	}
	var curSoft int64
	if cur.SoftDeletePolicy != nil {
		curSoft = cur.SoftDeletePolicy.RetentionDurationSeconds
	}
	if curSoft != want.SoftDeletePolicy.RetentionDurationSeconds {
		p.SoftDeletePolicy = want.SoftDeletePolicy
		fields = append(fields, "soft_delete_retention_seconds")
	}
	if curVersioning := cur.Versioning != nil && cur.Versioning.Enabled; curVersioning != want.Versioning.Enabled {
		p.Versioning = want.Versioning
		fields = append(fields, "versioning")
	}
	if !maps.Equal(cur.Labels, want.Labels) {
		// Patch merges labels: the wanted ones are sent, the others sent as null to remove them.
		p.Labels = maps.Clone(want.Labels)
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for k := range cur.Labels {
			if _, ok := want.Labels[k]; !ok {
				p.NullFields = append(p.NullFields, "Labels."+k)
			}
		}
		p.ForceSendFields = append(p.ForceSendFields, "Labels")
		fields = append(fields, "labels")
	}
	return p, fields
}
