package acctest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// HCL is a Terraform expression written as is in a RoundTrip body (a reference, a heredoc).
type HCL string

// RoundTrip is one resource for TestCollectionsRoundTrip: its schema comes from New, its
// configuration is Prelude (the other resources it needs, without the provider block) and Body,
// the attributes of `resource "<type>" "test"` as a tree of Go values: string, int, bool, HCL,
// map[string]any (an object) and []any (a list). Body leaves every optional collection out and sets
// every object attribute that holds one (with some other attribute), so the test can inject them.
type RoundTrip struct {
	Factories map[string]func() (tfprotov6.ProviderServer, error)
	New       func() fwresource.Resource
	Prelude   string
	Body      map[string]any
	// Distinct names the collections whose empty value is not their default but means something
	// of its own (service_account.scopes = [] is a VM without scopes, unset the plan-derived
	// scopes), with why; they are not injected.
	Distinct map[string]string
	// Unprotect are attributes merged into Body only to destroy the resource (deletion_protection
	// = false) where an import cannot read them back, so the import steps run without them.
	Unprotect map[string]any
}

// TestCollectionsRoundTrip proves, for one resource, that an optional collection set to `[]`/`{}`
// and one left unset are the same to Terraform (tfutil/collections.go): it walks the resource's
// schema for every optional list and map attribute (top-level, in single-nested objects and in the
// elements of nested lists), writes two configurations — "unset" (Body) and "empty" (Body with
// each of them set empty) — and checks that each, once applied, plans nothing for the other, after
// a refresh, and after an import (an import block with either configuration plans a no-op import).
// It fails when Body cannot carry a collection the schema has, so a new attribute is covered.
func (e *Env) TestCollectionsRoundTrip(t *testing.T, rt RoundTrip) {
	t.Helper()
	ctx := context.Background()
	r := rt.New()
	var md fwresource.MetadataResponse
	r.Metadata(ctx, fwresource.MetadataRequest{ProviderTypeName: "hypercompute"}, &md)
	var sr fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sr)
	addr := md.TypeName + ".test"

	empty := cloneValue(rt.Body).(map[string]any)
	var injected []string
	if err := injectEmpty(sr.Schema.Attributes, empty, "", rt.Distinct, &injected); err != nil {
		t.Fatal(err)
	}
	var all []string
	optionalCollections(sr.Schema.Attributes, "", &all)
	all = slices.DeleteFunc(all, func(p string) bool { _, ok := rt.Distinct[p]; return ok })
	slices.Sort(injected)
	injected = slices.Compact(injected)
	if !slices.Equal(all, injected) {
		t.Fatalf("%s: the schema's optional collections are %v, the body carries %v: set the object attributes that hold the others", md.TypeName, all, injected)
	}
	t.Logf("%s: optional collections %v", md.TypeName, all)

	unsetCfg := e.Config(rt.Prelude + renderResource(md.TypeName, rt.Body))
	emptyCfg := e.Config(rt.Prelude + renderResource(md.TypeName, empty))
	without := e.Config(rt.Prelude)
	unprotected := func(body map[string]any) string {
		b := cloneValue(body).(map[string]any)
		maps.Copy(b, rt.Unprotect)
		return e.Config(rt.Prelude + renderResource(md.TypeName, b))
	}
	noChange := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	importID := func(s *terraform.State) (string, error) {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return "", fmt.Errorf("%s is not in the state", addr)
		}
		return rs.Primary.Attributes["id"], nil
	}
	importStep := func(cfg string) resource.TestStep {
		return resource.TestStep{
			Config: cfg, ResourceName: addr, ImportState: true, ImportStateKind: resource.ImportBlockWithID,
			ImportStateIdFunc: importID,
		}
	}
	// Each apply step also plans after the apply and after a refresh, and fails when either
	// shows a change.
	steps := []resource.TestStep{
		{Config: unsetCfg},
		{Config: emptyCfg, PlanOnly: true},
		{RefreshState: true},
		{Config: unsetCfg, PlanOnly: true},
		importStep(unsetCfg),
		importStep(emptyCfg),
	}
	if rt.Unprotect != nil {
		steps = append(steps, resource.TestStep{Config: unprotected(rt.Body)})
	}
	steps = append(steps,
		resource.TestStep{Config: without},
		resource.TestStep{Config: emptyCfg},
		resource.TestStep{Config: unsetCfg, ConfigPlanChecks: noChange},
		resource.TestStep{RefreshState: true},
		resource.TestStep{Config: emptyCfg, PlanOnly: true},
		importStep(emptyCfg),
		importStep(unsetCfg),
	)
	if rt.Unprotect != nil {
		steps = append(steps, resource.TestStep{Config: unprotected(empty)})
	}
	// Each apply step also plans after the apply and after a refresh, and fails when either
	// shows a change.
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: rt.Factories, Steps: steps})
}

// optionalCollections lists the paths of attrs' optional list, set and map attributes, at any depth.
func optionalCollections(attrs map[string]schema.Attribute, prefix string, out *[]string) {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		if isOptionalCollection(a) {
			*out = append(*out, prefix+name)
		}
		if sub := nestedAttributes(a); sub != nil {
			optionalCollections(sub, prefix+name+".", out)
		}
	}
	slices.Sort(*out)
}

// injectEmpty sets every optional collection body can hold to an empty value, recording its path.
func injectEmpty(attrs map[string]schema.Attribute, body map[string]any, prefix string, distinct map[string]string, injected *[]string) error {
	for name, a := range attrs {
		v, set := body[name]
		if _, ok := distinct[prefix+name]; ok {
			continue
		}
		if isOptionalCollection(a) {
			if set {
				return fmt.Errorf("the body sets %s%s; leave optional collections out (the test sets them)", prefix, name)
			}
			body[name] = emptyOf(a)
			*injected = append(*injected, prefix+name)
			// The elements of an empty nested list need nothing; collections inside them are
			// injected only where the body has elements.
			continue
		}
		sub := nestedAttributes(a)
		if sub == nil || !set {
			continue
		}
		switch v := v.(type) {
		case map[string]any:
			if err := injectEmpty(sub, v, prefix+name+".", distinct, injected); err != nil {
				return err
			}
		case []any:
			for _, el := range v {
				if m, ok := el.(map[string]any); ok {
					if err := injectEmpty(sub, m, prefix+name+".", distinct, injected); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func isOptionalCollection(a schema.Attribute) bool {
	switch a.(type) {
	case schema.ListAttribute, schema.SetAttribute, schema.MapAttribute,
		schema.ListNestedAttribute, schema.SetNestedAttribute, schema.MapNestedAttribute:
		return a.IsOptional()
	}
	return false
}

func emptyOf(a schema.Attribute) any {
	switch a.(type) {
	case schema.MapAttribute, schema.MapNestedAttribute:
		return map[string]any{}
	}
	return []any{}
}

func nestedAttributes(a schema.Attribute) map[string]schema.Attribute {
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

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

func renderResource(typeName string, body map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nresource %q \"test\" {\n", typeName)
	for _, k := range slices.Sorted(maps.Keys(body)) {
		fmt.Fprintf(&b, "  %s = %s\n", k, renderValue(body[k]))
	}
	b.WriteString("}\n")
	return b.String()
}

// renderValue writes v as an HCL expression; an empty map and an empty object are both `{}`.
func renderValue(v any) string {
	switch v := v.(type) {
	case HCL:
		return string(v)
	case string:
		return fmt.Sprintf("%q", v)
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, fmt.Sprintf("%q = %s", k, renderValue(v[k])))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = renderValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
