package tfutil

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// The plan-time rules every resource holding data shares: it never replaces itself (the data would
// go with it), so a change the API cannot make in place is refused with advice, and a destroy is
// refused while deletion_protection is on. Refusing at plan costs no API call and leaves nothing
// half done.

// ReadPlan reads a ModifyPlan request into plan and, for an existing resource, state. A destroy has
// no plan: destroy (nil when the resource allows every destroy) sees the state and may refuse, and
// ok is false. ok is false too when reading failed; ModifyPlan then returns.
func ReadPlan[M any](ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	plan, state *M, destroy func(state *M)) (hasState, ok bool) {
	hasState = !req.State.Raw.IsNull()
	if hasState {
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	if req.Plan.Raw.IsNull() {
		if hasState && destroy != nil && !resp.Diagnostics.HasError() {
			destroy(state)
		}
		return hasState, false
	}
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	return hasState, !resp.Diagnostics.HasError()
}

// DefaultFromProvider fills project, region or zone (attr) when the configuration leaves it unset:
// prior state keeps its value, else the provider's applies. With neither, the error says where to
// set it, but only once the provider is configured (p != nil): validation-only RPCs run without it.
func DefaultFromProvider(v *types.String, prior types.String, hasState bool, p *providerdata.Data, attr string, diags *diag.Diagnostics) {
	if !v.IsUnknown() && !v.IsNull() {
		return
	}
	var def, env string
	switch attr {
	case "project":
		env = "GOOGLE_PROJECT"
		if p != nil {
			def = p.Project
		}
	case "region":
		env = "GOOGLE_REGION"
		if p != nil {
			def = p.Region
		}
	case "zone":
		env = "GOOGLE_ZONE"
		if p != nil {
			def = p.Zone
		}
	default:
		panic("tfutil.DefaultFromProvider: the provider has no default for " + attr)
	}
	switch {
	case hasState && !prior.IsNull():
		*v = prior
	case def != "":
		*v = types.StringValue(def)
	case p != nil:
		diags.AddAttributeError(path.Root(attr), "Missing "+attr,
			fmt.Sprintf("%s: set %s on the resource or the provider, or export %s", attr, attr, env))
	}
}

// Change is one attribute of an existing resource that the API cannot change in place.
type Change struct {
	Attr     string // dotted path, e.g. "share.name"
	From, To types.String
	// Same compares values that may be written in different forms (network references); nil
	// means equal strings.
	Same func(a, b string) bool
}

// CheckImmutable refuses every change in changes, naming the resource (what, e.g. "Filestore
// instance", and its id) and ending with hint. Null or unknown values on either side are not
// changes: unknown ones are checked again at apply.
func CheckImmutable(diags *diag.Diagnostics, what, id, hint string, changes ...Change) {
	for _, c := range changes {
		if c.From.IsNull() || c.From.IsUnknown() || c.To.IsNull() || c.To.IsUnknown() {
			continue
		}
		from, to := c.From.ValueString(), c.To.ValueString()
		if (c.Same == nil && from == to) || (c.Same != nil && c.Same(from, to)) {
			continue
		}
		diags.AddAttributeError(AttrPath(c.Attr), "Cannot change "+c.Attr,
			fmt.Sprintf("%s: cannot change from %q to %q on %s %s. %s", c.Attr, from, to, what, id, hint))
	}
}

// ReplaceHint ends every refusal to change an attribute of a product's instance in place, and says
// how to move the data instead. tfType is the resource type ("hypercompute_filestore").
func ReplaceHint(product, tfType string) string {
	return product + " cannot change it in place, and replacing the instance would destroy the data on it, " +
		"so the provider never does. To move the data, create a new " + tfType + " beside this one, copy the data, " +
		"then remove this one (after setting deletion_protection = false)."
}

// RefuseProtectedDestroy is ModifyPlan's answer to a destroy of a protected resource. check is
// what to make sure of before turning protection off ("nothing on the share is still needed").
func RefuseProtectedDestroy(diags *diag.Diagnostics, what, id, check string) {
	diags.AddAttributeError(path.Root("deletion_protection"), "Deletion protection is on",
		fmt.Sprintf("deletion_protection: %s %s is protected and would be destroyed. Set deletion_protection = false "+
			"on it and apply, then destroy it; check first that %s.", what, id, check))
}

// RefuseProtectedDelete is Delete's answer for a protected resource. The plan refuses a destroy
// already; a replacement Terraform plans on its own (-replace, taint) ends here, before anything is
// deleted.
func RefuseProtectedDelete(diags *diag.Diagnostics, what, id string) {
	diags.AddAttributeError(path.Root("deletion_protection"), "Deletion protection is on",
		fmt.Sprintf("deletion_protection: %s %s is protected; set deletion_protection = false and apply before deleting or replacing it.", what, id))
}

// KeepNull is the value of an Optional string the API always answers, as "" when unset: null stays
// null while the API holds "", so an attribute the configuration never set does not show as a
// change from null to "".
func KeepNull(prior types.String, api string) types.String {
	if api == "" && prior.IsNull() {
		return prior
	}
	return types.StringValue(api)
}
