package tfutil

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Labels follow the google provider's model: `labels` is what the configuration manages, and
// `effective_labels` is everything on the resource, the provider's default_labels under the
// resource's own. Both attributes, and the helpers below, are the same for every labelled resource.

// LabelsAttribute is the `labels` attribute of a resource that calls itself what ("instance"). Its
// keys and values are checked against Google Cloud's label rules at plan time, so a bad label never
// costs an API call; the creation marker's key is the provider's own (label_ownership.go).
// Like every optional collection it is Optional+Computed with an empty default (collections.go),
// so `labels = {}` and no labels both round-trip, also through import.
func LabelsAttribute(what string) schema.MapAttribute {
	return OptionalMap(schema.MapAttribute{
		ElementType: types.StringType,
		MarkdownDescription: "Labels of the " + what + ". The provider's `default_labels` are added; a label set here wins. " +
			"The label `" + CreateMarkerLabel + "` is the provider's own (it marks a create that has not finished) and cannot be set.",
		Validators: []validator.Map{LabelsValidator(), reservedKeyValidator{}},
	})
}

// EffectiveLabelsAttribute is the computed `effective_labels` attribute that goes with LabelsAttribute.
func EffectiveLabelsAttribute(what string) schema.MapAttribute {
	return schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "All labels on the " + what + ": the provider's `default_labels` merged with `labels`.",
	}
}

// LabelsValidator checks a labels map with catalog.ValidateLabels.
func LabelsValidator() validator.Map { return labelsValidator{} }

type labelsValidator struct{}

func (labelsValidator) Description(context.Context) string {
	return "Google Cloud labels: at most 64; keys 1-63 and values 0-63 lowercase letters, digits, '_' and '-', keys starting with a letter"
}
func (v labelsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

// ValidateMap checks the keys (always known) and the known values; an unknown value is checked by
// the API once known.
func (labelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	labels := make(map[string]string, len(req.ConfigValue.Elements()))
	for k, v := range req.ConfigValue.Elements() {
		labels[k] = ""
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			labels[k] = s.ValueString()
		}
	}
	if err := catalog.ValidateLabels(labels); err != nil {
		AddInvalid(&resp.Diagnostics, req.Path, err.Error())
	}
}

// LabelMap reads a labels map; null and unknown read as no labels.
func LabelMap(ctx context.Context, m types.Map) (map[string]string, diag.Diagnostics) {
	out := map[string]string{}
	if m.IsNull() || m.IsUnknown() {
		return out, nil
	}
	diags := m.ElementsAs(ctx, &out, false)
	return out, diags
}

// EffectiveLabels is what the resource should carry: the provider's default_labels under the
// resource's own labels. Unknown while labels are. The merged set is checked too, because the
// defaults can break the rules the resource's own labels keep (too many together, or a bad
// default): the error then names labels, the attribute that plan shows.
func EffectiveLabels(ctx context.Context, p *providerdata.Data, labels types.Map) (types.Map, diag.Diagnostics) {
	if labels.IsUnknown() {
		return types.MapUnknown(types.StringType), nil
	}
	merged, diags := LabelMap(ctx, labels)
	if p != nil && len(p.DefaultLabels) > 0 {
		merged = p.MergeLabels(merged)
		if err := catalog.ValidateLabels(merged); err != nil {
			diags.AddAttributeError(path.Root("labels"), "Invalid labels",
				"labels: together with the provider's default_labels: "+err.Error())
		}
	}
	m, d := types.MapValueFrom(ctx, types.StringType, merged)
	diags.Append(d...)
	return m, diags
}

// ReadLabels splits the labels the API holds into labels (what the configuration manages) and
// effective_labels (all of them). A label is the configuration's when prior state had it, or when
// it is not simply a provider default; so defaults never show up as drift in labels, while a label
// someone added by hand does. labels is never null: `labels = {}` and no labels plan the same.
func ReadLabels(ctx context.Context, p *providerdata.Data, api map[string]string, prior types.Map) (labels, effective types.Map, diags diag.Diagnostics) {
	priorOwn, d := LabelMap(ctx, prior)
	diags.Append(d...)
	var defaults map[string]string
	if p != nil {
		defaults = p.DefaultLabels
	}
	own := map[string]string{}
	for k, v := range api {
		_, mine := priorOwn[k]
		if dv, isDefault := defaults[k]; mine || !isDefault || dv != v {
			own[k] = v
		}
	}
	all := maps.Clone(api)
	if all == nil {
		all = map[string]string{}
	}
	effective, d = types.MapValueFrom(ctx, types.StringType, all)
	diags.Append(d...)
	labels, d = types.MapValueFrom(ctx, types.StringType, own)
	diags.Append(d...)
	return labels, effective, diags
}
