package recipes

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Recipe is one row of the catalog: a model at a size, trained in a mode on
// a machine profile, with the defaults the public recipe for that
// combination publishes. GPU rows carry parallelism, precision and the
// container; the CPU row (tiny-gpt) carries its architecture instead.
type Recipe struct {
	Model   string `json:"model"`
	Size    string `json:"size"`
	Mode    string `json:"mode"`
	Profile string `json:"profile"`

	// Nodes is the recipe's default node count; MinNodes the fewest it
	// runs on (the parallelism must fit).
	Nodes    int `json:"nodes"`
	MinNodes int `json:"min_nodes"`

	// Parallelism (GPU recipes): tensor, pipeline, context; data
	// parallelism is what is left of the GPUs (DataParallel at Nodes).
	TensorParallel   int `json:"tensor_parallel,omitempty"`
	PipelineParallel int `json:"pipeline_parallel,omitempty"`
	ContextParallel  int `json:"context_parallel,omitempty"`
	// VirtualPipeline is the interleaved pipeline stages per rank (0: none).
	VirtualPipeline int `json:"virtual_pipeline,omitempty"`
	// FSDP: Megatron FSDP shards parameters over the data-parallel ranks.
	FSDP bool `json:"fsdp,omitempty"`

	// Precision is bf16 or fp8 (fp8 only on profiles whose GPUs have it).
	Precision   string `json:"precision"`
	MicroBatch  int    `json:"micro_batch"`
	GlobalBatch int    `json:"global_batch"`
	SeqLength   int    `json:"seq_length"`

	// Container is the NeMo / Megatron-Bridge image (GPU recipes), imported
	// with enroot and run with pyxis.
	Container string `json:"container,omitempty"`
	// Launcher names the program the batch script starts.
	Launcher string `json:"launcher"`
	// NeedsResumeFrom: the mode starts from an existing checkpoint
	// (continued pretraining), so checkpoint.resume_from is required.
	NeedsResumeFrom bool `json:"needs_resume_from"`

	// Hyperparameters are the defaults a job's hyperparameters override;
	// only these keys are accepted.
	Hyperparameters map[string]string `json:"hyperparameters"`

	// Architecture of the CPU model (tiny-gpt); nil for GPU recipes, whose
	// architecture is the container's named model config.
	Architecture *Architecture `json:"architecture,omitempty"`

	// Parameters is the model's parameter count (the published size of the
	// checkpoint the container's model config builds; computed from the
	// architecture for tiny-gpt).
	Parameters int64 `json:"parameters"`
	// CheckpointBytesPerParameter is what a full checkpoint stores per
	// parameter: weights plus optimizer state (see checkpointsize.go).
	CheckpointBytesPerParameter int `json:"checkpoint_bytes_per_parameter"`
	// MaxSteps is the recipe's default training length (the source's
	// max_steps), used when a job sets none.
	MaxSteps int `json:"max_steps"`

	// Source says where the defaults are published.
	Source string `json:"source"`
}

// Architecture is a decoder-only transformer's shape.
type Architecture struct {
	Vocab  int `json:"vocab"`
	DModel int `json:"d_model"`
	Layers int `json:"n_layer"`
	Heads  int `json:"n_head"`
}

// Key names a recipe the way users write it.
func (r Recipe) Key() string {
	return r.Model + "/" + r.Size + "/" + r.Mode + "@" + r.Profile
}

// GPU reports whether the recipe runs on GPUs.
func (r Recipe) GPU() bool { return r.Profile != ProfileCPU }

func (r Recipe) clone() Recipe {
	c := r
	c.Hyperparameters = make(map[string]string, len(r.Hyperparameters))
	for k, v := range r.Hyperparameters {
		c.Hyperparameters[k] = v
	}
	if r.Architecture != nil {
		a := *r.Architecture
		c.Architecture = &a
	}
	return c
}

var table = buildTable()

func buildTable() []Recipe {
	all := append(cpuRecipes(), gpuRecipes()...)
	seen := map[string]bool{}
	for _, r := range all {
		if seen[r.Key()] {
			panic("recipes: duplicate recipe " + r.Key())
		}
		seen[r.Key()] = true
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Key() < all[j].Key() })
	return all
}

// List returns every recipe, sorted by model, size, mode and profile.
func List() []Recipe {
	out := make([]Recipe, len(table))
	for i, r := range table {
		out[i] = r.clone()
	}
	return out
}

// Lookup finds the recipe for a model, size, mode and machine profile. Its
// error names the valid choices at the first level that does not match.
func Lookup(model, size, mode, profile string) (Recipe, error) {
	var ofModel, ofSize, ofMode []Recipe
	for _, r := range table {
		if r.Model == model {
			ofModel = append(ofModel, r)
		}
	}
	if len(ofModel) == 0 {
		return Recipe{}, fmt.Errorf("model %q is not in the recipe catalog; models: %s", model, choices(table, func(r Recipe) string { return r.Model }))
	}
	for _, r := range ofModel {
		if r.Size == size {
			ofSize = append(ofSize, r)
		}
	}
	if len(ofSize) == 0 {
		return Recipe{}, fmt.Errorf("model %s has no size %q; sizes: %s", model, size, choices(ofModel, func(r Recipe) string { return r.Size }))
	}
	for _, r := range ofSize {
		if r.Mode == mode {
			ofMode = append(ofMode, r)
		}
	}
	if len(ofMode) == 0 {
		return Recipe{}, fmt.Errorf("%s %s has no mode %q; modes: %s%s", model, size, mode, choices(ofSize, func(r Recipe) string { return r.Mode }), noModeReason(model, mode))
	}
	for _, r := range ofMode {
		if r.Profile == profile {
			return r.clone(), nil
		}
	}
	return Recipe{}, fmt.Errorf("%s %s %s has no recipe for machine profile %q; profiles: %s", model, size, mode, profile, choices(ofMode, func(r Recipe) string { return r.Profile }))
}

// noModeReason says why a model lacks a mode, where the catalog knows.
func noModeReason(model, mode string) string {
	if mode != ModeRL {
		return ""
	}
	if model == ModelTinyGPT {
		return ". " + cpuNoRL
	}
	return ". NeMo-RL publishes no GRPO recipe for " + model + " at this size, and the catalog holds only published defaults"
}

// Models lists the catalog's model names.
func Models() []string { return distinct(table, func(r Recipe) string { return r.Model }) }

// Modes lists every mode.
func Modes() []string {
	return []string{ModePretrain, ModeContinuedPretrain, ModeSFT, ModeRL}
}

func distinct(rs []Recipe, f func(Recipe) string) []string {
	var out []string
	for _, r := range rs {
		if v := f(r); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func choices(rs []Recipe, f func(Recipe) string) string {
	return strings.Join(distinct(rs, f), ", ")
}
