package tfutil

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A state an earlier version wrote holds optional collections null; Read makes them empty inside
// set parents and leaves null parents, required values and plain optional ones alone.
func TestReadNonNullCollections(t *testing.T) {
	ctx := context.Background()
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"labels": LabelsAttribute("thing"),
		"plain":  schema.ListAttribute{Optional: true, ElementType: types.StringType},
		"set": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
			"extra": OptionalMap(schema.MapAttribute{ElementType: types.StringType}),
		}},
		"unset": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
			"extra": OptionalMap(schema.MapAttribute{ElementType: types.StringType}),
		}},
		"items": OptionalListNested(schema.ListNestedAttribute{NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"paths": OptionalList(schema.ListAttribute{ElementType: types.StringType}),
		}}}),
	}}
	extraT := map[string]attr.Type{"extra": types.MapType{ElemType: types.StringType}}
	itemT := types.ObjectType{AttrTypes: map[string]attr.Type{"paths": types.ListType{ElemType: types.StringType}}}
	st := tfsdk.State{Schema: s}
	type m struct {
		Labels types.Map    `tfsdk:"labels"`
		Plain  types.List   `tfsdk:"plain"`
		Set    types.Object `tfsdk:"set"`
		Unset  types.Object `tfsdk:"unset"`
		Items  types.List   `tfsdk:"items"`
	}
	in := m{
		Labels: types.MapNull(types.StringType), Plain: types.ListNull(types.StringType),
		Set:   types.ObjectValueMust(extraT, map[string]attr.Value{"extra": types.MapNull(types.StringType)}),
		Unset: types.ObjectNull(extraT),
		Items: types.ListValueMust(itemT, []attr.Value{types.ObjectValueMust(itemT.AttrTypes, map[string]attr.Value{"paths": types.ListNull(types.StringType)})}),
	}
	if d := st.Set(ctx, &in); d.HasError() {
		t.Fatal(d)
	}
	if d := ReadNonNullCollections(ctx, &st); d.HasError() {
		t.Fatal(d)
	}
	var out m
	if d := st.Get(ctx, &out); d.HasError() {
		t.Fatal(d)
	}
	if out.Labels.IsNull() || len(out.Labels.Elements()) != 0 {
		t.Errorf("labels = %v, want {}", out.Labels)
	}
	if !out.Plain.IsNull() {
		t.Errorf("a plain Optional list (no empty default) = %v, want it left null", out.Plain)
	}
	if e := out.Set.Attributes()["extra"]; e.IsNull() {
		t.Errorf("set.extra = %v, want {}", e)
	}
	if !out.Unset.IsNull() {
		t.Errorf("an absent parent = %v, want it left null", out.Unset)
	}
	if p := out.Items.Elements()[0].(types.Object).Attributes()["paths"]; p.IsNull() {
		t.Errorf("items[0].paths = %v, want []", p)
	}
}
