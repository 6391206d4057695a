package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Training precisions a recipe runs in.
const (
	PrecisionBF16 = "bf16"
	PrecisionFP8  = "fp8"
	// PrecisionFP32 is the CPU recipe's: no reduced-precision kernels.
	PrecisionFP32 = "fp32"
)

// Precisions lists every training precision the catalog knows.
func Precisions() []string { return []string{PrecisionBF16, PrecisionFP8, PrecisionFP32} }

// trainingPrecisions: the precisions Google publishes GPU training recipes
// for, per machine profile (AI-Hypercomputer/gpu-recipes, training/: FP8
// (Transformer Engine current scaling) recipes exist for a3mega, a3ultra, a4
// and a4x; every a3high recipe is BF16). The H100s of A3 High do have FP8
// tensor cores; what the profile lacks is a published, supported FP8
// recipe on its TCPX network stack, so the catalog offers bf16 only there.
// Profiles without an entry (CPU machines, GPUs without a recipe) train in
// fp32 only.
var trainingPrecisions = map[string][]string{
	"a3-high":  {PrecisionBF16},
	"a3-mega":  {PrecisionBF16, PrecisionFP8},
	"a3-ultra": {PrecisionBF16, PrecisionFP8},
	"a4":       {PrecisionBF16, PrecisionFP8},
	"a4x":      {PrecisionBF16, PrecisionFP8},
}

// TrainingPrecisions lists the precisions recipes run in on a machine
// profile; any profile not listed (CPU machines) runs fp32 only.
func TrainingPrecisions(profile string) []string {
	if p, ok := trainingPrecisions[profile]; ok {
		return slices.Clone(p)
	}
	return []string{PrecisionFP32}
}

// ValidateTrainingPrecision says whether recipes run in precision on the
// profile, naming the ones they do.
func ValidateTrainingPrecision(profile, precision string) error {
	if !slices.Contains(Precisions(), precision) {
		return fmt.Errorf("precision %q is not one of %s", precision, strings.Join(Precisions(), ", "))
	}
	ok := TrainingPrecisions(profile)
	if !slices.Contains(ok, precision) {
		return fmt.Errorf("machine profile %s has no %s training recipe; it runs %s", profile, precision, strings.Join(ok, ", "))
	}
	return nil
}

// PeakDenseTFLOPS is one GPU's peak dense (no sparsity) tensor throughput,
// in TFLOP/s, for a training precision: NVIDIA's datasheets (H100 SXM and
// H200: 989 BF16, 1,979 FP8; B200 (HGX): 2,250 BF16, 4,500 FP8; GB200 (per
// Blackwell GPU of the superchip): 2,500 BF16, 5,000 FP8). Recipes use it to
// turn a checkpoint interval in seconds into steps before the run measures
// its own step time.
func PeakDenseTFLOPS(gpuType, precision string) (float64, bool) {
	t, ok := peakTFLOPS[gpuType]
	if !ok {
		return 0, false
	}
	switch precision {
	case PrecisionBF16:
		return t[0], true
	case PrecisionFP8:
		return t[1], true
	}
	return 0, false
}

// AchievableTFLOPS is one GPU's measured dense matmul rate for a training
// precision, where one was measured: the realistic ceiling program goodput
// (MFU) is read against next to the datasheet peak. H200 bf16: 793.5
// TFLOP/s on an 8192² matmul (a real H200, driver 580.159.04, CUDA 13.0,
// 2026-12-04: 80% of the 989 datasheet figure). Nothing else is measured
// yet, so other GPUs and precisions report none rather than a guess.
func AchievableTFLOPS(gpuType, precision string) (float64, bool) {
	t, ok := achievableTFLOPS[gpuType][precision]
	return t, ok
}

var achievableTFLOPS = map[string]map[string]float64{
	"nvidia-h200-141gb": {PrecisionBF16: 793.5},
}

var peakTFLOPS = map[string][2]float64{
	"nvidia-h100-80gb":      {989, 1979},
	"nvidia-h100-mega-80gb": {989, 1979},
	"nvidia-h200-141gb":     {989, 1979},
	"nvidia-b200":           {2250, 4500},
	"nvidia-gb200":          {2500, 5000},
}
