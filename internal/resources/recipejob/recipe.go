package recipejob

import (
	"fmt"
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

// tasksPerNode is one task per GPU, one on a CPU machine, as the recipes launch.
func tasksPerNode(mt catalog.MachineType) int { return max(mt.GPUCount(), 1) }

// validatedPath maps a field the catalog's Validate names in its error (the Job's JSON names) to
// the attribute a user sets.
func validatedPath(msg string) path.Path {
	for _, m := range []struct {
		field string
		attr  path.Path
	}{
		{"checkpoint.resume_from", path.Root("checkpoint").AtName("resume_from")},
		{"checkpoint.keep_last", path.Root("checkpoint").AtName("keep_last")},
		{"checkpoint.dir", path.Root("checkpoint").AtName("directory")},
		{"checkpoint", path.Root("checkpoint").AtName("interval")},
		{"nodes", path.Root("nodes")},
		{"max_steps", path.Root("overrides").AtName("max_steps")},
		{"hyperparameter", path.Root("overrides").AtName("hyperparameters")},
		{"env", path.Root("overrides").AtName("env")},
		{"container", path.Root("overrides").AtName("container_image")},
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

// defaultMaxSteps is the recipe's default training length; 0 when it has none.
func defaultMaxSteps(r recipes.Recipe) int {
	if v, ok := r.Hyperparameters["max_steps"]; ok {
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil {
			return n
		}
	}
	return 0
}
