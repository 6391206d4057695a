package recipes

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// The PaLM count by hand: Llama 3.1 8B at 8192 tokens is 6 × 8.03e9 for the
// parameters plus 12 × 32 × 4096 × 8192 for attention.
func TestFLOPsPerTokenPaLM(t *testing.T) {
	got := FLOPsPerToken(8_030_000_000, 32, 4096, 8192)
	want := 48.18e9 + 12.0*32*4096*8192
	if !near(got, want) {
		t.Fatalf("FLOPsPerToken = %g, want %g", got, want)
	}
	// The attention term grows with the sequence; 6N does not.
	if d := FLOPsPerToken(1000, 2, 64, 256) - FLOPsPerToken(1000, 2, 64, 128); !near(d, 12*2*64*128) {
		t.Fatalf("doubling the sequence added %g FLOPs per token, want %d", d, 12*2*64*128)
	}
}

// MFU of Llama 3.1 8B pretraining on two a3-ultra nodes (16 H200) at a
// measured step time: hand-computed against the datasheet's 989 bf16 and the
// measured 793.5.
func TestMFUAgainstCatalogPeaks(t *testing.T) {
	r, err := Lookup(ModelLlama31, "8b", ModePretrain, "a3-ultra")
	if err != nil {
		t.Fatal(err)
	}
	hp, err := ResolveHyperparameters(r, map[string]string{"global_batch": "256", "seq_length": "8192"})
	if err != nil {
		t.Fatal(err)
	}
	const step = 20.0
	flops := 256 * 8192 * (6*8.03e9 + 12.0*32*4096*8192)
	ds, ach, err := MFU(r, hp, "bf16", 2, step)
	if err != nil {
		t.Fatal(err)
	}
	perGPU := flops / step / 16 / 1e12
	if !near(ds, perGPU/989) || !near(ach, perGPU/793.5) {
		t.Fatalf("MFU = %.4f datasheet, %.4f achievable; want %.4f, %.4f", ds, ach, perGPU/989, perGPU/793.5)
	}
	if ds < 0.3 || ds > 0.5 {
		t.Fatalf("a 20 s step of 8B at GBS 256 is about 40%% MFU on 16 H200s, got %.1f%%", 100*ds)
	}
	// fp8: the datasheet's 1,979; no measured fp8 figure, so no achievable MFU.
	ds8, ach8, err := MFU(r, hp, "fp8", 2, step)
	if err != nil || !near(ds8, perGPU/1979) || ach8 != 0 {
		t.Fatalf("fp8 MFU = %g, %g, %v; want %g, 0", ds8, ach8, err, perGPU/1979)
	}
}

func TestMFURefusals(t *testing.T) {
	for _, r := range List() {
		if !r.GPU() {
			if _, _, err := MFU(r, r.Hyperparameters, "fp32", 1, 1); err == nil || !strings.Contains(err.Error(), "measures its own peak") {
				t.Errorf("%s: MFU error = %v, want the CPU trainer's own measurement named", r.Key(), err)
			}
			continue
		}
		// Every GPU recipe has a shape for its FLOPs.
		if _, err := StepFLOPs(r, r.Hyperparameters); err != nil {
			t.Errorf("%s: %v", r.Key(), err)
		}
	}
	r, _ := Lookup(ModelLlama31, "8b", ModePretrain, "a3-ultra")
	if _, _, err := MFU(r, r.Hyperparameters, "bf16", 2, 0); err == nil || !strings.Contains(err.Error(), "positive step time") {
		t.Errorf("zero step time: %v", err)
	}
	hp := map[string]string{"seq_length": "x", "global_batch": "8"}
	if _, err := StepFLOPs(r, hp); err == nil || !strings.Contains(err.Error(), "seq_length") {
		t.Errorf("bad seq_length: %v", err)
	}
}
