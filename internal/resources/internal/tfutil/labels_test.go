package tfutil

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

func TestReadLabels(t *testing.T) {
	ctx := context.Background()
	p := &providerdata.Data{DefaultLabels: map[string]string{"team": "ml", "env": "dev"}}
	api := map[string]string{"team": "ml", "env": "prod", "added": "by-hand"}
	labels, effective, diags := ReadLabels(ctx, p, api, types.MapNull(types.StringType))
	if diags.HasError() {
		t.Fatal(diags)
	}
	got := map[string]string{}
	labels.ElementsAs(ctx, &got, false)
	// team is a plain provider default; env overrides the default and added was set by hand.
	if len(got) != 2 || got["env"] != "prod" || got["added"] != "by-hand" {
		t.Errorf("labels = %v", got)
	}
	if len(effective.Elements()) != 3 {
		t.Errorf("effective_labels = %v", effective)
	}
	prior, _ := types.MapValueFrom(ctx, types.StringType, map[string]string{"team": "ml"})
	labels, _, _ = ReadLabels(ctx, p, map[string]string{"team": "ml", "env": "dev"}, prior)
	got = map[string]string{}
	labels.ElementsAs(ctx, &got, false)
	if len(got) != 1 || got["team"] != "ml" {
		t.Errorf("a label the configuration sets to the default's value must stay in labels; got %v", got)
	}
	labels, _, _ = ReadLabels(ctx, p, map[string]string{"team": "ml", "env": "dev"}, types.MapNull(types.StringType))
	// Never null: `labels = {}` and unset labels both plan {} (an Optional+Computed empty default).
	if labels.IsNull() || len(labels.Elements()) != 0 {
		t.Errorf("only defaults: labels = %v, want empty, not null", labels)
	}
}

func TestLabelsValidator(t *testing.T) {
	ctx := context.Background()
	check := func(m types.Map) string {
		resp := &validator.MapResponse{}
		LabelsValidator().ValidateMap(ctx, validator.MapRequest{Path: path.Root("labels"), ConfigValue: m}, resp)
		if !resp.Diagnostics.HasError() {
			return ""
		}
		return resp.Diagnostics[0].Detail()
	}
	good, _ := types.MapValueFrom(ctx, types.StringType, map[string]string{"team": "ml", "env": ""})
	if msg := check(good); msg != "" {
		t.Errorf("valid labels: %s", msg)
	}
	bad, _ := types.MapValueFrom(ctx, types.StringType, map[string]string{"Team": "ml"})
	if msg := check(bad); msg != `labels: label key "Team" is invalid: it contains uppercase letters; keys must be 1-63 characters, start with a lowercase letter and contain only lowercase letters, digits, '_' and '-'` {
		t.Errorf("bad key: %s", msg)
	}
	// A value known only at apply is left to the API; the key is still checked.
	unknownValue := types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringUnknown()})
	if msg := check(unknownValue); msg != "" {
		t.Errorf("unknown value: %s", msg)
	}
	unknownBadKey := types.MapValueMust(types.StringType, map[string]attr.Value{"Team": types.StringUnknown()})
	if msg := check(unknownBadKey); msg == "" {
		t.Error("a bad key with an unknown value was accepted")
	}
	if msg := check(types.MapNull(types.StringType)) + check(types.MapUnknown(types.StringType)); msg != "" {
		t.Errorf("null/unknown map: %s", msg)
	}
}

func TestEffectiveLabels(t *testing.T) {
	ctx := context.Background()
	p := &providerdata.Data{DefaultLabels: map[string]string{"team": "ml", "env": "dev"}}
	own, _ := types.MapValueFrom(ctx, types.StringType, map[string]string{"env": "prod"})
	got, diags := EffectiveLabels(ctx, p, own)
	m := map[string]string{}
	got.ElementsAs(ctx, &m, false)
	if diags.HasError() || len(m) != 2 || m["team"] != "ml" || m["env"] != "prod" {
		t.Errorf("effective = %v, %v", m, diags)
	}
	if got, _ := EffectiveLabels(ctx, p, types.MapUnknown(types.StringType)); !got.IsUnknown() {
		t.Errorf("unknown labels give %v", got)
	}
	if got, _ := EffectiveLabels(ctx, nil, types.MapNull(types.StringType)); got.IsNull() || len(got.Elements()) != 0 {
		t.Errorf("no provider, no labels: %v", got)
	}
	// The resource's own labels are fine; the provider's defaults break the rules.
	badDefaults := &providerdata.Data{DefaultLabels: map[string]string{"Cost Center": "x"}}
	_, diags = EffectiveLabels(ctx, badDefaults, own)
	if !diags.HasError() || diags[0].Detail() != `labels: together with the provider's default_labels: label key "Cost Center" is invalid: it contains uppercase letters; keys must be 1-63 characters, start with a lowercase letter and contain only lowercase letters, digits, '_' and '-'` {
		t.Errorf("bad default label: %v", diags)
	}
	many := &providerdata.Data{DefaultLabels: map[string]string{}}
	for i := range 64 {
		many.DefaultLabels[fmt.Sprintf("d%d", i)] = "v"
	}
	if _, diags = EffectiveLabels(ctx, many, own); !diags.HasError() {
		t.Error("65 labels with the defaults were accepted")
	}
}
