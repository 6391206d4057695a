package nodepartition

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// extraValidator checks slurm.extra against the PartitionName settings the product allows, with
// the same rules the controller's agent applies, so a bad key never reaches slurmctld.
type extraValidator struct{}

func (extraValidator) Description(context.Context) string {
	return "PartitionName settings the product allows"
}
func (v extraValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (extraValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	extra := map[string]string{}
	for k, v := range req.ConfigValue.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return
		}
		extra[k] = s.ValueString()
	}
	if err := cc.ValidateExtraPartitionSettings(extra); err != nil {
		tfutil.AddInvalid(&resp.Diagnostics, req.Path, err.Error())
	}
}
