package catalog

import (
	"math"
	"testing"
	"time"
)

func TestReliabilityTable(t *testing.T) {
	// Every GPU profile used for multi-node training has a figure and a
	// source; its machine type exists and has one GPU count.
	for _, p := range []string{"a3-high", "a3-mega", "a3-ultra", "a4", "a4x"} {
		r, ok := ReliabilityFor(p)
		if !ok {
			t.Errorf("%s: no reliability figure", p)
			continue
		}
		if r.GPUMTBIHours <= 0 || r.Source == "" {
			t.Errorf("%s: %+v", p, r)
		}
		if _, err := NodeMTBI(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	// 16,384 GPUs × 54 days × 24 h / 419 interruptions; an a3-mega VM has 8
	// GPUs, so one VM is interrupted every 50,677 / 8 ≈ 6,334.6 h.
	m, err := NodeMTBI("a3-mega")
	if err != nil {
		t.Fatal(err)
	}
	if want := 16384 * 54 * 24 / 419.0 / 8; math.Abs(m.Hours()-want) > 1e-6 {
		t.Errorf("a3-mega node MTBI %.3f h, want %.3f h", m.Hours(), want)
	}
	// g2 has no published large-job record and mixes GPU counts.
	if _, err := NodeMTBI("g2"); err == nil {
		t.Error("g2 has a reliability figure nobody published")
	}
	if _, err := ProfileGPUsPerNode("g2"); err == nil {
		t.Error("g2 machine types have 1-8 GPUs; a single count was returned")
	}
	if n, err := ProfileGPUsPerNode("a4x"); err != nil || n != 4 {
		t.Errorf("a4x GPUs per node %d, %v; want 4", n, err)
	}
	if math.Abs(MetaRSCGPUMTBIHours-8089.6) > 1e-9 {
		t.Errorf("Meta figure %v, want 1,024 × 7.9 = 8,089.6 GPU-hours", MetaRSCGPUMTBIHours)
	}
}

func TestRecoveryRegimes(t *testing.T) {
	man, ok := RecoveryFor(RecoveryManual)
	if !ok {
		t.Fatal("no manual regime")
	}
	// Without a spare, manual recovery is issue 14's R = 30 min.
	if got := man.Detect + man.Repair + man.Restart; got != 30*time.Minute {
		t.Errorf("manual recovery without a spare %v, want 30m", got)
	}
	auto, ok := RecoveryFor(RecoveryAutomatic)
	if !ok {
		t.Fatal("no automatic regime")
	}
	// With a spare, automatic recovery is HyperPod's "under 2 min" at most.
	if got := auto.Detect + auto.Swap + auto.Restart; got > 2*time.Minute {
		t.Errorf("automatic recovery with a spare %v, want ≤ 2m", got)
	}
	if auto.Detect >= man.Detect {
		t.Error("automatic detection is not faster than a person")
	}
	if _, ok := RecoveryFor("magic"); ok {
		t.Error("unknown regime found")
	}
	if len(RecoveryNames()) != 2 {
		t.Errorf("regimes %v", RecoveryNames())
	}
}

func TestCheckpointStorage(t *testing.T) {
	mt, _ := Machine("a3-megagpu-8g")
	// 16 × 375 GB local SSD devices in parallel.
	if got := mt.LocalSSDWriteMBps(); got != 16*LocalSSDWriteMBpsPerDevice {
		t.Errorf("a3-mega local SSD %v MB/s", got)
	}
	n2, _ := Machine("n2-standard-8")
	if n2.LocalSSDWriteMBps() != 0 {
		t.Error("a machine without bundled local SSD has local SSD throughput")
	}
}
