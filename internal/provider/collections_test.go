package provider_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/provider"
)

// planDerivedCollections are optional collections whose default is not empty but computed by the
// resource's ModifyPlan from other attributes, so they are Optional+Computed without a static
// Default; the round-trip acceptance test covers them with the others. A new entry needs that
// plan code, not just a line here.
var planDerivedCollections = []string{
	// The OAuth scopes: the shared list is empty unless set (a state from before per-role identities
	// keeps its own), and each role's defaults to the shared list or the role's minimal scopes.
	"hypercompute_training_cluster.service_account.scopes",
	"hypercompute_training_cluster.service_accounts.controller.scopes",
	"hypercompute_training_cluster.service_accounts.compute.scopes",
	"hypercompute_training_cluster.service_accounts.login.scopes",
}

// TestOptionalCollectionsHaveEmptyDefaults holds every registered resource to the rule that makes
// `[]`/`{}` and an unset collection the same thing after apply, refresh and import (see
// tfutil/collections.go): an optional list, set or map attribute, at any depth, is Optional+Computed
// with a static empty Default, and every object default carries its collections empty, not null
// (framework defaults do not apply inside an object that is itself a default).
func TestOptionalCollectionsHaveEmptyDefaults(t *testing.T) {
	ctx := context.Background()
	p := provider.New("test")()
	checked := 0
	for _, f := range p.Resources(ctx) {
		r := f()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "hypercompute"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		for name, a := range sr.Schema.Attributes {
			checked += checkCollections(ctx, t, md.TypeName+"."+name, path.Root(name), a)
		}
		if len(sr.Schema.Blocks) > 0 {
			t.Errorf("%s declares blocks; this check walks attributes only and needs extending", md.TypeName)
		}
	}
	// The resources hold 20 optional collections today; a walk that finds far fewer is broken.
	if checked < 15 {
		t.Errorf("found only %d optional collections; the schema walk misses some", checked)
	}
}

// checkCollections checks a and what it nests, returning how many optional collections it found.
func checkCollections(ctx context.Context, t *testing.T, name string, p path.Path, a schema.Attribute) int {
	t.Helper()
	n := 0
	if isCollection(a) && a.IsOptional() {
		n++
		dflt, hasDefault := collectionDefault(ctx, p, a)
		switch {
		case slices.Contains(planDerivedCollections, name):
			if !a.IsComputed() || hasDefault {
				t.Errorf("%s: a plan-derived collection must be Optional+Computed without a static Default", name)
			}
		case !a.IsComputed():
			t.Errorf("%s: optional collection is not Computed: `[]` and unset plan differently (make it Optional+Computed with tfutil's empty default)", name)
		case !hasDefault:
			t.Errorf("%s: optional collection has no Default: unset plans unknown and shows as `(known after apply)`", name)
		case dflt.IsNull() || dflt.IsUnknown() || collectionLen(dflt) != 0:
			t.Errorf("%s: Default is %s, want an empty, non-null collection", name, dflt)
		}
	}
	for child, ca := range nested(a) {
		n += checkCollections(ctx, t, name+"."+child, p.AtName(child), ca)
	}
	if o, ok := a.(schema.SingleNestedAttribute); ok && o.Default != nil {
		var resp defaults.ObjectResponse
		o.Default.DefaultObject(ctx, defaults.ObjectRequest{Path: p}, &resp)
		if err := nullCollections(name, resp.PlanValue); err != nil {
			t.Errorf("object default: %v", err)
		}
	}
	return n
}

func isCollection(a schema.Attribute) bool {
	switch a.(type) {
	case schema.ListAttribute, schema.SetAttribute, schema.MapAttribute,
		schema.ListNestedAttribute, schema.SetNestedAttribute, schema.MapNestedAttribute:
		return true
	}
	return false
}

// nested is what a nested attribute holds (for list, set and map nested attributes, one element's attributes).
func nested(a schema.Attribute) map[string]schema.Attribute {
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return a.Attributes
	case schema.ListNestedAttribute:
		return a.NestedObject.Attributes
	case schema.SetNestedAttribute:
		return a.NestedObject.Attributes
	case schema.MapNestedAttribute:
		return a.NestedObject.Attributes
	}
	return nil
}

// collectionDefault evaluates a collection attribute's static Default.
func collectionDefault(ctx context.Context, p path.Path, a schema.Attribute) (attr.Value, bool) {
	switch a := a.(type) {
	case schema.ListAttribute:
		return listDefault(ctx, p, a.Default)
	case schema.ListNestedAttribute:
		return listDefault(ctx, p, a.Default)
	case schema.SetAttribute:
		return setDefault(ctx, p, a.Default)
	case schema.SetNestedAttribute:
		return setDefault(ctx, p, a.Default)
	case schema.MapAttribute:
		return mapDefault(ctx, p, a.Default)
	case schema.MapNestedAttribute:
		return mapDefault(ctx, p, a.Default)
	}
	return nil, false
}

func listDefault(ctx context.Context, p path.Path, d defaults.List) (attr.Value, bool) {
	if d == nil {
		return nil, false
	}
	var r defaults.ListResponse
	d.DefaultList(ctx, defaults.ListRequest{Path: p}, &r)
	return r.PlanValue, true
}

func setDefault(ctx context.Context, p path.Path, d defaults.Set) (attr.Value, bool) {
	if d == nil {
		return nil, false
	}
	var r defaults.SetResponse
	d.DefaultSet(ctx, defaults.SetRequest{Path: p}, &r)
	return r.PlanValue, true
}

func mapDefault(ctx context.Context, p path.Path, d defaults.Map) (attr.Value, bool) {
	if d == nil {
		return nil, false
	}
	var r defaults.MapResponse
	d.DefaultMap(ctx, defaults.MapRequest{Path: p}, &r)
	return r.PlanValue, true
}

func collectionLen(v attr.Value) int {
	switch v := v.(type) {
	case types.List:
		return len(v.Elements())
	case types.Set:
		return len(v.Elements())
	case types.Map:
		return len(v.Elements())
	}
	return -1
}

// nullCollections reports a null collection anywhere inside an object default's value.
func nullCollections(name string, v attr.Value) error {
	o, ok := v.(types.Object)
	if !ok || o.IsNull() {
		return nil
	}
	for k, e := range o.Attributes() {
		switch e.(type) {
		case types.List, types.Set, types.Map:
			if e.IsNull() {
				return fmt.Errorf("%s.%s is null in its parent's default; Read returns it empty, so an unset parent would plan a change", name, k)
			}
		case types.Object:
			if err := nullCollections(name+"."+k, e); err != nil {
				return err
			}
		}
	}
	return nil
}
