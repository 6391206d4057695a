package bucket

import (
	"context"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func selfLink(name string) string {
	return "https://www.googleapis.com/storage/v1/b/" + url.PathEscape(name)
}

// flatten writes what the API holds into m; m's own spelling of the location is kept when it names the same
// place, and attributes that only live in Terraform (purpose, force_destroy, deletion_protection) stay.
func (r *bucketResource) flatten(ctx context.Context, b *storage.Bucket, m *model) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID, m.Name = types.StringValue(b.Name), types.StringValue(b.Name)
	if m.Project.IsNull() || m.Project.IsUnknown() {
		if r.Provider != nil {
			m.Project = types.StringValue(r.Provider.Project)
		}
	}
	if m.Location.IsNull() || m.Location.IsUnknown() || !strings.EqualFold(m.Location.ValueString(), b.Location) {
		// Regions are written in lower case everywhere else (the provider's region, zones); the API answers
		// every location in upper case.
		loc := b.Location
		if b.LocationType == "region" {
			loc = strings.ToLower(loc)
		}
		m.Location = types.StringValue(loc)
	}
	m.LocationType = types.StringValue(b.LocationType)
	m.StorageClass = types.StringValue(b.StorageClass)
	hns := b.HierarchicalNamespace != nil && b.HierarchicalNamespace.Enabled
	auto := b.Autoclass != nil && b.Autoclass.Enabled
	m.HierarchicalNamespace, m.Autoclass = types.BoolValue(hns), types.BoolValue(auto)
	m.AutoclassTerminalStorageClass = types.StringNull()
	if auto {
		m.AutoclassTerminalStorageClass = types.StringValue(b.Autoclass.TerminalStorageClass)
	}
	m.UniformBucketLevelAccess = types.BoolValue(b.IamConfiguration != nil && b.IamConfiguration.UniformBucketLevelAccess != nil &&
		b.IamConfiguration.UniformBucketLevelAccess.Enabled)
	var soft int64
	if b.SoftDeletePolicy != nil {
		soft = b.SoftDeletePolicy.RetentionDurationSeconds
	}
	m.SoftDeleteRetentionSeconds = types.Int64Value(soft)
	m.Versioning = types.BoolValue(b.Versioning != nil && b.Versioning.Enabled)
	if m.Purpose.IsNull() || m.Purpose.IsUnknown() {
		m.Purpose = types.StringValue(inferPurpose(hns, auto))
	}
	if m.ForceDestroy.IsNull() || m.ForceDestroy.IsUnknown() {
		m.ForceDestroy = types.BoolValue(false)
	}
	if m.DeletionProtection.IsNull() || m.DeletionProtection.IsUnknown() {
		m.DeletionProtection = types.BoolValue(true)
	}
	m.URL, m.SelfLink = types.StringValue("gs://"+b.Name), types.StringValue(selfLink(b.Name))
	labels, effective, d := tfutil.ReadMarkedLabels(ctx, r.Provider, b.Labels, m.Labels)
	diags.Append(d...)
	m.Labels, m.EffectiveLabels = labels, effective
	return diags
}
