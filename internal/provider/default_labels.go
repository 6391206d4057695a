package provider

import (
	"context"

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
	if _, ok := req.ConfigValue.Elements()[catalog.CreateMarkerLabel]; ok {
		reservedKey(&resp.Diagnostics)
	}
}

// reservedKey is the error for the provider's own key in default_labels. Configure adds it too,
// for default_labels that were unknown when the configuration was validated.
func reservedKey(diags *diag.Diagnostics) {
	diags.AddAttributeError(path.Root("default_labels"), "Invalid default_labels", "default_labels: "+catalog.ReservedLabelKey)
}
