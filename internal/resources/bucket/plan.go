package bucket

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// replaceHint ends every refusal to change what Cloud Storage fixes at creation.
const replaceHint = "Cloud Storage cannot change it on an existing bucket, and replacing the bucket would destroy its objects, " +
	"so the provider never does. To move the data, create a new hypercompute_bucket beside this one, copy the objects " +
	"(gcloud storage cp -r), then remove this one (after setting deletion_protection = false)."

// ModifyPlan fills in what is knowable before apply (project and location from the provider, the purpose's
// defaults, derived names) and refuses, with no API call, a destroy under deletion protection, a change Cloud
// Storage cannot make, and settings that do not go together.
func (r *bucketResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan, state, config model
	hasState, ok := tfutil.ReadPlan(ctx, req, resp, &plan, &state, func(state *model) {
		if state.DeletionProtection.ValueBool() {
			tfutil.RefuseProtectedDestroy(&resp.Diagnostics, what, state.ID.ValueString(), "nothing in it is still needed")
		}
	})
	if !ok {
		return
	}
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	diags := &resp.Diagnostics
	tfutil.DefaultFromProvider(&plan.Project, state.Project, hasState, r.Provider, "project", diags)
	r.planLocation(&plan, &state, hasState, diags)
	applyPurpose(&plan, &config, &state, hasState)
	checkRules(diags, &plan, &config)
	if hasState {
		tfutil.CheckImmutable(diags, what, state.ID.ValueString(), replaceHint,
			tfutil.Change{Attr: "name", From: state.Name, To: plan.Name},
			tfutil.Change{Attr: "project", From: state.Project, To: plan.Project},
			tfutil.Change{Attr: "location", From: state.Location, To: plan.Location, Same: strings.EqualFold},
		)
		if known(state.HierarchicalNamespace) && known(plan.HierarchicalNamespace) && state.HierarchicalNamespace.ValueBool() != plan.HierarchicalNamespace.ValueBool() {
			diags.AddAttributeError(path.Root("hierarchical_namespace"), "Cannot change hierarchical_namespace",
				fmt.Sprintf("hierarchical_namespace: cannot change from %t to %t on %s %s. %s", state.HierarchicalNamespace.ValueBool(),
					plan.HierarchicalNamespace.ValueBool(), what, state.ID.ValueString(), replaceHint))
		}
	}
	if diags.HasError() {
		return
	}
	if !plan.Name.IsUnknown() {
		name := plan.Name.ValueString()
		plan.ID, plan.URL, plan.SelfLink = types.StringValue(name), types.StringValue("gs://"+name), types.StringValue(selfLink(name))
	}
	if lt, ok := catalog.BucketLocationType(plan.Location.ValueString()); ok && !plan.Location.IsUnknown() {
		plan.LocationType = types.StringValue(lt)
	}
	var d diag.Diagnostics
	plan.EffectiveLabels, d = tfutil.EffectiveLabels(ctx, r.Provider, plan.Labels)
	diags.Append(d...)
	diags.Append(resp.Plan.Set(ctx, &plan)...)
}

// planLocation defaults the location to the provider's region and keeps the state's spelling when the
// configuration names the same location in another case (the API answers upper case).
func (r *bucketResource) planLocation(plan, state *model, hasState bool, diags *diag.Diagnostics) {
	switch {
	case plan.Location.IsUnknown() && !hasState:
		if r.Provider == nil {
			return
		}
		if r.Provider.Region == "" {
			diags.AddAttributeError(path.Root("location"), "Missing location",
				"location: set location on the bucket (a region such as us-central1, or US, EU, ASIA), or the provider's region")
			return
		}
		plan.Location = types.StringValue(r.Provider.Region)
	case plan.Location.IsUnknown() || plan.Location.IsNull():
		plan.Location = state.Location
	case hasState && strings.EqualFold(plan.Location.ValueString(), state.Location.ValueString()):
		plan.Location = state.Location
	}
}

// applyPurpose gives every attribute the configuration leaves out its purpose's default.
func applyPurpose(plan, config, state *model, hasState bool) {
	purposeKnown := !plan.Purpose.IsUnknown()
	def := purposeDefaults(plan.Purpose.ValueString())
	setBool := func(v *types.Bool, cfg types.Bool, d bool) {
		if !cfg.IsNull() {
			return
		}
		if purposeKnown {
			*v = types.BoolValue(d)
		} else {
			*v = types.BoolUnknown()
		}
	}
	setBool(&plan.HierarchicalNamespace, config.HierarchicalNamespace, def.hns)
	setBool(&plan.Autoclass, config.Autoclass, def.autoclass)
	setBool(&plan.UniformBucketLevelAccess, config.UniformBucketLevelAccess, def.uniform)
	if config.SoftDeleteRetentionSeconds.IsNull() {
		if purposeKnown {
			plan.SoftDeleteRetentionSeconds = types.Int64Value(int64(def.softDelete / time.Second))
		} else {
			plan.SoftDeleteRetentionSeconds = types.Int64Unknown()
		}
	}
	if config.AutoclassTerminalStorageClass.IsNull() {
		switch {
		case plan.Autoclass.IsUnknown():
			plan.AutoclassTerminalStorageClass = types.StringUnknown()
		case !plan.Autoclass.ValueBool():
			plan.AutoclassTerminalStorageClass = types.StringNull()
		case hasState && state.Autoclass.ValueBool() && !state.AutoclassTerminalStorageClass.IsNull():
			plan.AutoclassTerminalStorageClass = state.AutoclassTerminalStorageClass
		default:
			plan.AutoclassTerminalStorageClass = types.StringValue("NEARLINE")
		}
	}
}

// checkRules checks the settings that go together, from the catalog, naming the attribute the
// configuration set (so the message points at the line to change).
func checkRules(diags *diag.Diagnostics, plan, config *model) {
	if known(plan.SoftDeleteRetentionSeconds) {
		if err := catalog.ValidateSoftDeleteRetention(time.Duration(plan.SoftDeleteRetentionSeconds.ValueInt64()) * time.Second); err != nil {
			tfutil.AddInvalid(diags, path.Root("soft_delete_retention_seconds"), err.Error())
		}
	}
	if known(plan.Autoclass) && !plan.Autoclass.ValueBool() && !config.AutoclassTerminalStorageClass.IsNull() {
		tfutil.AddInvalid(diags, path.Root("autoclass_terminal_storage_class"), "it only applies with autoclass = true; remove it or turn autoclass on")
	}
	if known(plan.Versioning) && known(plan.HierarchicalNamespace) {
		if err := catalog.ValidateBucketVersioning(plan.Versioning.ValueBool(), plan.HierarchicalNamespace.ValueBool()); err != nil {
			tfutil.AddInvalid(diags, path.Root("versioning"), err.Error()+
				" (purpose = \"checkpoints\" turns one on): set versioning = false, or hierarchical_namespace = false")
		}
	}
	if !known(plan.HierarchicalNamespace) || !known(plan.UniformBucketLevelAccess) || !known(plan.Autoclass) || plan.StorageClass.IsUnknown() {
		return
	}
	hns, uniform, auto := plan.HierarchicalNamespace.ValueBool(), plan.UniformBucketLevelAccess.ValueBool(), plan.Autoclass.ValueBool()
	if catalog.ValidateBucketFeatures(plan.StorageClass.ValueString(), auto, hns, uniform) == nil {
		return
	}
	if hns && !uniform {
		p := path.Root("hierarchical_namespace")
		if !config.UniformBucketLevelAccess.IsNull() {
			p = path.Root("uniform_bucket_level_access")
		}
		tfutil.AddInvalid(diags, p, "a hierarchical namespace requires uniform bucket-level access: set uniform_bucket_level_access = true, or hierarchical_namespace = false")
		return
	}
	p := path.Root("storage_class")
	if config.StorageClass.IsNull() {
		p = path.Root("autoclass")
	}
	tfutil.AddInvalid(diags, p, fmt.Sprintf("Autoclass requires storage_class = \"STANDARD\" (it moves objects between classes itself), not %q; "+
		"remove storage_class or set autoclass = false", plan.StorageClass.ValueString()))
}

func known[T interface {
	IsNull() bool
	IsUnknown() bool
}](v T) bool {
	return !v.IsNull() && !v.IsUnknown()
}
