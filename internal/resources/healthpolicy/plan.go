package healthpolicy

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// ModifyPlan changes nothing in the plan: it records a create, so that a second policy of the
// configuration with the same name on the same cluster fails at plan (tfutil.PlanCreate) instead
// of both writing one key.
func (r *policyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	tfutil.PlanCreate(ctx, req, r.Provider, ownedKey, &resp.Diagnostics)
}
