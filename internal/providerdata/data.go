// Package providerdata holds what the configured provider hands to every resource.
// It lives apart from package provider so resource packages can use it without an import cycle.
package providerdata

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Data is the provider's configured state: API clients and the defaults resources fall back to.
type Data struct {
	Clients       *gcp.Clients
	Project       string
	Region        string
	Zone          string
	DefaultLabels map[string]string
	Version       string
	// Emulated is true when every API is served by the local emulator.
	Emulated bool
	// Quota sums the quota needs of the resources planned in this operation (quota_plan.go).
	Quota PlannedQuota
	// Partitions are the partitions planned in this operation, per cluster (partition_plan.go).
	Partitions PlannedPartitions
	// Networks holds the subnet ranges and cluster networks planned in this operation (network_plan.go).
	Networks PlannedNetworks
	// Creates are the creates planned in this operation, by what they would own (planned_creates.go).
	Creates PlannedCreates
}

// MergeLabels returns the provider's default labels overlaid with a resource's own labels
// (the resource wins), the way the google provider applies default_labels.
func (d *Data) MergeLabels(own map[string]string) map[string]string {
	out := make(map[string]string, len(d.DefaultLabels)+len(own))
	maps.Copy(out, d.DefaultLabels)
	maps.Copy(out, own)
	return out
}

// FromConfigure converts the framework's opaque ProviderData into *Data, reporting a
// diagnostic on a type mismatch (a programming error, not a user error).
func FromConfigure(v any, diags *diag.Diagnostics) *Data {
	if v == nil {
		return nil // provider not configured yet (validation-only RPCs)
	}
	d, ok := v.(*Data)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *providerdata.Data, got %T; please report this issue to the provider developers", v))
		return nil
	}
	return d
}
