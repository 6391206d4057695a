package recipejob

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// What a job takes from the recipe catalog (internal/recipes): the rows, their defaults and the
// catalog's own check of a resolved job.

// checkRecipe finds the first of model, size and mode that no row of the catalog has, and says
// which attribute it is with the catalog's own message (it lists the valid choices).
func checkRecipe(rec recipeModel) (attr string, err error) {
	model, size, mode := rec.Model.ValueString(), rec.Size.ValueString(), rec.Mode.ValueString()
	var ofModel, ofSize, ofMode bool
	for _, r := range recipes.List() {
		if r.Model != model {
			continue
		}
		ofModel = true
		if r.Size != size {
			continue
		}
		ofSize = true
		if r.Mode == mode {
			ofMode = true
		}
	}
	if ofMode {
		return "", nil
	}
	_, err = recipes.Lookup(model, size, mode, "")
	switch {
	case !ofModel:
		return "model", err
	case !ofSize:
		return "size", err
	}
	return "mode", err
}

// precisionAnywhere says whether any machine family can run the recipe in precision (the
// catalog's own check of a job, on each of the recipe's rows): what is refused here is refused
// whatever the partition, before any API call; the partition's own family is checked at plan.
func precisionAnywhere(rec recipeModel, precision string) error {
	// A row whose family trains in the precision but whose launcher cannot switch to it says more
	// than a family that does not have it.
	var familyErr, launcherErr error
	for _, r := range recipes.List() {
		if r.Model != rec.Model.ValueString() || r.Size != rec.Size.ValueString() || r.Mode != rec.Mode.ValueString() {
			continue
		}
		if catalog.ValidateTrainingPrecision(r.Profile, precision) != nil {
			if familyErr == nil {
				familyErr = recipes.CheckPrecision(r, precision)
			}
			continue
		}
		err := recipes.CheckPrecision(r, precision)
		if err == nil {
			return nil
		}
		if launcherErr == nil {
			launcherErr = err
		}
	}
	if launcherErr != nil {
		return launcherErr
	}
	return familyErr
}

// needsResume reports whether the recipe's mode starts from an existing checkpoint.
func needsResume(rec recipeModel) bool {
	for _, r := range recipes.List() {
		if r.Model == rec.Model.ValueString() && r.Size == rec.Size.ValueString() && r.Mode == rec.Mode.ValueString() && r.NeedsResumeFrom {
			return true
		}
	}
	return false
}

// recipeOn is the catalog's row for the recipe on the partition's machine profile.
func recipeOn(rec recipeModel, profile string) (recipes.Recipe, error) {
	return recipes.Lookup(rec.Model.ValueString(), rec.Size.ValueString(), rec.Mode.ValueString(), profile)
}

// tasksPerNode is one task per GPU, one for the CPU recipe, as the recipes launch.
func tasksPerNode(mt catalog.MachineType, profile string) int {
	if profile == recipes.ProfileCPU {
		return 1
	}
	return max(mt.GPUCount(), 1)
}

// validatedPath maps a field the catalog's Validate names in its error (the Job's JSON names) to
// the attribute a user sets.
func validatedPath(msg string, custom bool) path.Path {
	if custom {
		for _, m := range []struct {
			field string
			attr  path.Path
		}{
			{"custom.", customPath},
			{"custom:", customPath},
			{"env", customPath.AtName("environment")},
		} {
			if strings.HasPrefix(msg, m.field) {
				if f, ok := strings.CutPrefix(msg, "custom."); ok {
					return customPath.AtName(strings.FieldsFunc(f, func(r rune) bool { return r == ' ' || r == ':' })[0])
				}
				return m.attr
			}
		}
	}
	for _, m := range []struct {
		field string
		attr  path.Path
	}{
		{"time_limit", path.Root("time_limit")},
		{"signal_lead", path.Root("time_limit")},
		{"checkpoint.resume_from", path.Root("checkpoint").AtName("resume_from")},
		{"checkpoint.keep_last", path.Root("checkpoint").AtName("keep_last")},
		{"checkpoint.dir", path.Root("checkpoint").AtName("directory")},
		{"checkpoint", path.Root("checkpoint").AtName("interval")},
		{"nodes", path.Root("nodes")},
		{"max_steps", path.Root("overrides").AtName("max_steps")},
		{"hyperparameter", path.Root("overrides").AtName("hyperparameters")},
		{"env", path.Root("overrides").AtName("env")},
		{"container", path.Root("overrides").AtName("container_image")},
		{"precision", path.Root("overrides").AtName("precision")},
		{"tensorboard_dir", path.Root("tensorboard_dir")},
		{"export_path", path.Root("export_path")},
		{"partition", path.Root("partition")},
		{"name", path.Root("name")},
	} {
		if strings.HasPrefix(msg, m.field) {
			return m.attr
		}
	}
	return path.Root("recipe")
}

func attrName(p path.Path) string { return strings.ReplaceAll(p.String(), "\"", "") }
