package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// defaultLabelsValidator refuses, when the provider's configuration is validated (before any API
// call), a default_labels key the provider keeps to itself: every labelled resource would carry
// it, and on Filestore and Managed Lustre it marks a create that has not finished.
type defaultLabelsValidator struct{}

func (defaultLabelsValidator) Description(context.Context) string {
	return "the label " + catalog.CreateMarkerLabel + " is reserved for the provider"
}
func (v defaultLabelsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (defaultLabelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	keys := make(map[string]string, len(req.ConfigValue.Elements()))
	for k := range req.ConfigValue.Elements() {
		keys[k] = ""
	}
	checkDefaultLabels(&resp.Diagnostics, keys)
}

// checkDefaultLabels adds the error for a reserved key in default_labels. Configure calls it too,
// for default_labels that were unknown when the configuration was validated.
func checkDefaultLabels(diags *diag.Diagnostics, labels map[string]string) {
	if _, ok := labels[catalog.CreateMarkerLabel]; !ok {
		return
	}
	diags.AddAttributeError(path.Root("default_labels"), "Invalid default_labels",
		fmt.Sprintf("default_labels: label key %q is reserved: the provider sets it on a Filestore or Managed Lustre instance "+
			"while its create has not finished, to tell its own half-made instance from someone else's; choose another key",
			catalog.CreateMarkerLabel))
}
