package recipes

import (
	"fmt"
	"strconv"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Program goodput: model FLOPs utilisation (MFU), the share of the
// hardware's peak a run turns into model arithmetic.

// FLOPsPerToken is the training FLOPs one token costs a dense decoder, as
// PaLM defines MFU (Chowdhery et al. 2022, "PaLM: Scaling Language Modeling
// with Pathways", arXiv:2204.02311, Appendix B): 6N + 12·L·H·Q·T, where 6N
// is the forward and backward matmuls of the N parameters, and 12·L·H·Q·T
// the attention score and value matmuls of L layers with H heads of size Q
// over a sequence of T tokens. H·Q is the model width (d_model), so the
// attention term is 12·layers·d_model·seq. Megatron's MFU counts the same
// way. Rematerialisation is not counted: MFU is model, not hardware, FLOPs.
func FLOPsPerToken(parameters int64, layers, dModel, seq int) float64 {
	return 6*float64(parameters) + 12*float64(layers)*float64(dModel)*float64(seq)
}

// gpuShapes are the GPU models' layers and width (the models' published
// configs: Llama 3.1 8B 32 × 4096, 70B 80 × 8192, 405B 126 × 16384; Gemma 2
// 9B 42 × 3584, 27B 46 × 4608).
var gpuShapes = map[string]map[string]Architecture{
	ModelLlama31: {"8b": {Layers: 32, DModel: 4096}, "70b": {Layers: 80, DModel: 8192}, "405b": {Layers: 126, DModel: 16384}},
	ModelGemma2:  {"9b": {Layers: 42, DModel: 3584}, "27b": {Layers: 46, DModel: 4608}},
}

// shape is the recipe's layers and width: the CPU model's own
// architecture, else the GPU model's published config.
func (r Recipe) shape() (Architecture, error) {
	if r.Architecture != nil {
		return *r.Architecture, nil
	}
	if a, ok := gpuShapes[r.Model][r.Size]; ok {
		return a, nil
	}
	return Architecture{}, fmt.Errorf("recipe %s has no model shape for its FLOPs count", r.Key())
}

// StepFLOPs is the model FLOPs of one optimizer step of the recipe: tokens
// per step (global_batch × seq_length; for rl the trained rollouts,
// num_prompts_per_step × num_generations_per_prompt sequences) times
// FLOPsPerToken. hp are the job's resolved hyperparameters.
func StepFLOPs(r Recipe, hp map[string]string) (float64, error) {
	a, err := r.shape()
	if err != nil {
		return 0, err
	}
	num := func(k string) (float64, error) {
		f, err := strconv.ParseFloat(hp[k], 64)
		if err != nil || f <= 0 {
			return 0, fmt.Errorf("hyperparameter %s = %q is not a positive number", k, hp[k])
		}
		return f, nil
	}
	seq, err := num("seq_length")
	if err != nil {
		return 0, err
	}
	var seqs float64
	if r.Mode == ModeRL {
		p, err := num("num_prompts_per_step")
		if err != nil {
			return 0, err
		}
		g, err := num("num_generations_per_prompt")
		if err != nil {
			return 0, err
		}
		seqs = p * g
	} else if seqs, err = num("global_batch"); err != nil {
		return 0, err
	}
	return seqs * seq * FLOPsPerToken(r.Parameters, a.Layers, a.DModel, int(seq)), nil
}

// MFU is a GPU job's model FLOPs utilisation at a measured step time, against
// the catalog's datasheet peak (catalog.PeakDenseTFLOPS) and, where one was
// measured, its achievable rate (catalog.AchievableTFLOPS; 0 when none).
// The CPU recipe measures its own node's peak instead (train.py).
func MFU(r Recipe, hp map[string]string, precision string, nodes int, stepSeconds float64) (datasheet, achievable float64, err error) {
	if !r.GPU() {
		return 0, 0, fmt.Errorf("recipe %s runs on CPU: its trainer measures its own peak and reports MFU itself", r.Key())
	}
	if stepSeconds <= 0 || nodes <= 0 {
		return 0, 0, fmt.Errorf("MFU needs a positive step time and node count (got %g s on %d nodes)", stepSeconds, nodes)
	}
	m, err := profileMachine(r.Profile)
	if err != nil {
		return 0, 0, err
	}
	peak, ok := catalog.PeakDenseTFLOPS(m.GPU.Type, precision)
	if !ok {
		return 0, 0, fmt.Errorf("the catalog has no %s peak rate for %s", precision, m.GPU.Type)
	}
	flops, err := StepFLOPs(r, hp)
	if err != nil {
		return 0, 0, err
	}
	rate := flops / stepSeconds / float64(nodes*m.GPUCount()) / 1e12
	datasheet = rate / peak
	if a, ok := catalog.AchievableTFLOPS(m.GPU.Type, precision); ok {
		achievable = rate / a
	}
	return datasheet, achievable, nil
}
