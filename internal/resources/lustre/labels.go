package lustre

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// effectiveLabels is what the instance should carry: the provider's default_labels under the
// resource's own labels. Unknown while labels are.
func effectiveLabels(ctx context.Context, p *providerdata.Data, labels types.Map) (types.Map, diag.Diagnostics) {
	if labels.IsUnknown() {
		return types.MapUnknown(types.StringType), nil
	}
	own := map[string]string{}
	var diags diag.Diagnostics
	if !labels.IsNull() {
		diags.Append(labels.ElementsAs(ctx, &own, false)...)
	}
	merged := own
	if p != nil {
		merged = p.MergeLabels(own)
	}
	m, d := types.MapValueFrom(ctx, types.StringType, merged)
	diags.Append(d...)
	return m, diags
}

// readLabels splits the labels the API holds into labels (what the configuration manages) and
// effective_labels (all of them). A label is the configuration's when prior state had it, or when
// it is not simply a provider default; so defaults never show up as drift in labels, while a label
// someone added by hand does.
func readLabels(ctx context.Context, p *providerdata.Data, api map[string]string, prior types.Map) (labels, effective types.Map, diags diag.Diagnostics) {
	priorOwn := map[string]string{}
	if !prior.IsNull() && !prior.IsUnknown() {
		diags.Append(prior.ElementsAs(ctx, &priorOwn, false)...)
	}
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
	var d diag.Diagnostics
	effective, d = types.MapValueFrom(ctx, types.StringType, all)
	diags.Append(d...)
	if len(own) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.MapNull(types.StringType), effective, diags
	}
	labels, d = types.MapValueFrom(ctx, types.StringType, own)
	diags.Append(d...)
	return labels, effective, diags
}
