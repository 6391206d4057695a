package goodput

import (
	"math"
	"strings"
	"testing"
)

func TestYoungDaly(t *testing.T) {
	tests := []struct {
		name    string
		c, m    float64
		wantSec float64
	}{
		// √(2·50·10,000) = √1,000,000 = 1,000 s.
		{"round numbers", 50, 10000, 1000},
		// √(2·8·57,600) = √921,600 = 960 s: an 8 s async pause, 16 h MTBF.
		{"async pause", 8, 57600, 960},
		// √(2·60·10,800) = √1,296,000 ≈ 1,138.42 s: a 1 min checkpoint, 3 h MTBF.
		{"llama3-scale mtbf", 60, 10800, 1138.42},
		// √(2·300·3,600) = √2,160,000 ≈ 1,469.69 s: a 5 min checkpoint, 1 h MTBF.
		{"slow checkpoint", 300, 3600, 1469.69},
		{"free checkpoint", 0, 3600, 0},
		{"negative cost", -1, 3600, 0},
		{"never fails", 60, math.Inf(1), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := YoungDaly(tc.c, tc.m).Seconds()
			if math.Abs(got-tc.wantSec) > 0.01 {
				t.Errorf("YoungDaly(%v, %v) = %.3f s, want %.2f s", tc.c, tc.m, got, tc.wantSec)
			}
		})
	}
}

func TestWaste(t *testing.T) {
	// C=50, T=1,000, M=10,000, R=100: 50/1,000 + 1,000/20,000 + 100/10,000
	// = 0.05 + 0.05 + 0.01 = 0.11.
	if got := Waste(50, 1000, 10000, 100); math.Abs(got-0.11) > 1e-12 {
		t.Errorf("Waste = %v, want 0.11", got)
	}
	// At T* the two checkpoint terms are equal (C/T* = T*/(2M) = √(C/(2M))):
	// C=8, M=57,600 → T*=960, 8/960 = 960/115,200 = 1/120.
	if got := Waste(8, 960, 57600, 0); math.Abs(got-2.0/120) > 1e-12 {
		t.Errorf("Waste at T* = %v, want 1/60", got)
	}
	// T* minimises it: any other interval wastes more.
	best := Waste(8, 960, 57600, 0)
	for _, T := range []float64{480, 900, 1020, 1920} {
		if Waste(8, T, 57600, 0) <= best {
			t.Errorf("interval %v s wastes no more than T* = 960 s", T)
		}
	}
}

func TestJobMTBF(t *testing.T) {
	// Llama 3's record is 419 interruptions in 54 days on 16,384 H100s, so a
	// job on 2,048 a3-mega VMs (8 H100 each = 16,384 GPUs) is interrupted
	// every 54 × 24 / 419 ≈ 3.0931 h.
	got, err := JobMTBF("a3-mega", 2048)
	if err != nil {
		t.Fatal(err)
	}
	if want := 54 * 24 / 419.0; math.Abs(got.Hours()-want) > 1e-6 {
		t.Errorf("JobMTBF(a3-mega, 2048) = %.4f h, want %.4f h", got.Hours(), want)
	}
	// 1,024 GPUs = 128 nodes: 16× longer, ≈ 49.489 h.
	got, _ = JobMTBF("a3-mega", 128)
	if math.Abs(got.Hours()-49.4893) > 1e-3 {
		t.Errorf("JobMTBF(a3-mega, 128) = %.4f h, want ≈ 49.4893 h", got.Hours())
	}
	// A4X VMs carry 4 GPUs: the same per-GPU figure gives twice the per-node MTBF.
	a4x, _ := JobMTBF("a4x", 128)
	if math.Abs(a4x.Hours()-2*got.Hours()) > 1e-3 {
		t.Errorf("a4x 128 nodes: %.4f h, want twice a3-mega's %.4f h", a4x.Hours(), got.Hours())
	}
	viaMachine, err := JobMTBFForMachine("a3-megagpu-8g", 128)
	if err != nil || viaMachine != got {
		t.Errorf("JobMTBFForMachine = %v, %v; want %v", viaMachine, err, got)
	}
	for _, bad := range []struct {
		profile string
		nodes   int
		want    string
	}{
		{"a3-mega", 0, "nodes must be at least 1"},
		{"g2", 4, `no published reliability figure for profile "g2"`},
		{"nope", 4, `profile "nope"`},
	} {
		if _, err := JobMTBF(bad.profile, bad.nodes); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("JobMTBF(%q, %d) error %v, want %q", bad.profile, bad.nodes, err, bad.want)
		}
	}
	if _, err := JobMTBFForMachine("a9-nonsense", 1); err == nil {
		t.Error("unknown machine type accepted")
	}
}
