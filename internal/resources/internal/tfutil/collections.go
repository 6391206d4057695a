package tfutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Optional collections: every optional list, set or map attribute of every resource, top-level or
// nested, is Optional+Computed with an empty Default (OptionalList, OptionalMap, ...), and Read
// returns it empty, never null. Why this and nothing else works:
//
//   - With Optional alone, Terraform requires the plan to equal the configuration, so `x = []` plans
//     [] and an unset x plans null. Whichever of the two Read returns, the other configuration shows a
//     change forever (issue 19: the modules pass `{}` and `[]`, and every plan showed `+ {}`).
//   - Remembering the configuration's form from the prior state cannot work for import, which has
//     no prior state, nor for a refresh of a state another version wrote.
//   - Optional+Computed with an empty Default plans [] for both `[]` and unset (the framework fills
//     the default where the configuration is null), and a Read that returns [] matches both after
//     apply, refresh and import. Removing a collection from the configuration plans it empty, as
//     with a plain Optional attribute.
//
// It is sound because no resource tells an empty collection from an absent one: the payload's JSON
// omits empty collections, so hashes and generations do not move, and Google's APIs hold no
// difference either. Two limits the framework sets: a Default applies only inside a parent object
// the configuration sets, so a parent object with a Default of its own (objectdefault) must carry
// its collections empty; and ReadNonNullCollections below is the Read side's guarantee. The
// provider's TestOptionalCollectionsHaveEmptyDefaults holds every resource's schema to this.

// OptionalList makes a an optional collection: Optional, Computed, an empty default.
func OptionalList(a schema.ListAttribute) schema.ListAttribute {
	a.Optional, a.Computed, a.Required = true, true, false
	a.Default = listdefault.StaticValue(types.ListValueMust(a.ElementType, []attr.Value{}))
	return a
}

// OptionalMap makes a an optional collection: Optional, Computed, an empty default.
func OptionalMap(a schema.MapAttribute) schema.MapAttribute {
	a.Optional, a.Computed, a.Required = true, true, false
	a.Default = mapdefault.StaticValue(types.MapValueMust(a.ElementType, map[string]attr.Value{}))
	return a
}

// OptionalListNested makes a an optional collection: Optional, Computed, an empty default.
func OptionalListNested(a schema.ListNestedAttribute) schema.ListNestedAttribute {
	a.Optional, a.Computed, a.Required = true, true, false
	a.Default = listdefault.StaticValue(types.ListValueMust(a.NestedObject.Type(), []attr.Value{}))
	return a
}

// EmptyList is what Read gives an optional list of elem the API holds nothing for (a nil slice
// would convert to a null list).
func EmptyList(elem attr.Type) types.List { return types.ListValueMust(elem, []attr.Value{}) }

// EmptyMap is EmptyList for maps.
func EmptyMap(elem attr.Type) types.Map { return types.MapValueMust(elem, map[string]attr.Value{}) }

// ReadNonNullCollections is the last step of every Read: each optional collection that st holds
// null (inside a parent that is not null) becomes its empty default. It covers what the flatten
// code cannot see: a Read that keeps the prior state's spec (health policies, recipe jobs, whose
// controller key is the same generation), and states written by versions that stored null. So
// the plan of an unchanged configuration stays empty, and no spec change — which replaces a recipe
// job — appears from a provider upgrade.
func ReadNonNullCollections(ctx context.Context, st *tfsdk.State) diag.Diagnostics {
	var diags diag.Diagnostics
	if st.Raw.IsNull() || !st.Raw.IsKnown() {
		return diags
	}
	raw, err := tftypes.Transform(st.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsNull() || len(p.Steps()) == 0 {
			return v, nil
		}
		// Elements of a list or map of primitives are no attributes: the lookup fails, and they stay.
		a, err := st.Schema.AttributeAtTerraformPath(ctx, p)
		if err != nil {
			return v, nil //nolint:nilerr // not an attribute; nothing to fill
		}
		empty, ok := emptyDefault(ctx, a)
		if !ok {
			return v, nil
		}
		return empty.ToTerraformValue(ctx)
	})
	if err != nil {
		diags.AddError("Unable to complete the state", "filling empty collections: "+err.Error())
		return diags
	}
	st.Raw = raw
	return diags
}

// emptyDefault is the Default of an Optional+Computed list or map attribute (the kinds the
// resources have) when it is empty.
func emptyDefault(ctx context.Context, a any) (attr.Value, bool) {
	var v attr.Value
	switch a := a.(type) {
	case schema.ListAttribute:
		v = listDefault(ctx, a.Optional && a.Computed, a.Default)
	case schema.ListNestedAttribute:
		v = listDefault(ctx, a.Optional && a.Computed, a.Default)
	case schema.MapAttribute:
		if a.Optional && a.Computed && a.Default != nil {
			var r defaults.MapResponse
			a.Default.DefaultMap(ctx, defaults.MapRequest{Path: path.Empty()}, &r)
			if !r.PlanValue.IsNull() && len(r.PlanValue.Elements()) == 0 {
				v = r.PlanValue
			}
		}
	}
	return v, v != nil
}

func listDefault(ctx context.Context, optionalComputed bool, d defaults.List) attr.Value {
	if !optionalComputed || d == nil {
		return nil
	}
	var r defaults.ListResponse
	d.DefaultList(ctx, defaults.ListRequest{Path: path.Empty()}, &r)
	if r.PlanValue.IsNull() || len(r.PlanValue.Elements()) != 0 {
		return nil
	}
	return r.PlanValue
}
