package agent

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func readHealthSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "health", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseGPUQuery(t *testing.T) {
	rows, err := parseGPUQuery(readHealthSample(t, "nvidia-smi-query-h100.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 {
		t.Fatalf("%d GPUs parsed, the sample lists 7", len(rows))
	}
	if rows[2].Index != 2 || rows[2].Name != "NVIDIA H100 80GB HBM3" || rows[2].UncorrectedECC != 3 {
		t.Errorf("GPU 2 parsed as %+v", rows[2])
	}
	rows, err = parseGPUQuery(readHealthSample(t, "nvidia-smi-query-l4-na.csv"))
	if err != nil || len(rows) != 1 || rows[0].UncorrectedECC != -1 {
		t.Errorf("[N/A] ECC parsed as %+v, %v", rows, err)
	}
	if _, err := parseGPUQuery("0, NVIDIA H100, GPU-x\n"); err == nil {
		t.Error("a line with a missing field was accepted")
	}
}

func TestParseXIDs(t *testing.T) {
	got := parseXIDs(readHealthSample(t, "dmesg-xid.txt"))
	want := []xidEvent{{Device: "PCI:0000:04:00", XID: 79}, {Device: "PCI:0000:05:00", XID: 48}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("XIDs %+v, want %+v", got, want)
	}
}

func TestParseDCGMDiag(t *testing.T) {
	bad, err := parseDCGMDiag(readHealthSample(t, "dcgmi-diag-r2-pass.json"))
	if err != nil || len(bad) != 0 {
		t.Errorf("a passing diag gave %+v, %v", bad, err)
	}
	bad, err = parseDCGMDiag(readHealthSample(t, "dcgmi-diag-r2-fail.json"))
	if err != nil || len(bad) != 1 {
		t.Fatalf("a failing diag gave %+v, %v", bad, err)
	}
	if b := bad[0]; b.Test != "GPU Memory" || b.GPUs != "1" || b.Status != "Fail" || b.Warning == "" {
		t.Errorf("failure parsed as %+v", b)
	}
	if _, err := parseDCGMDiag(`{"version":"3"}`); err == nil {
		t.Error("JSON without the diagnostic object was accepted")
	}
}

func TestParseAllReducePerf(t *testing.T) {
	r, err := parseAllReducePerf(readHealthSample(t, "all_reduce_perf-a3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows != 4 || r.MaxBusBW != 97.59 || r.AvgBusBW != 84.9263 || r.WrongResults != 0 {
		t.Errorf("parsed %+v", r)
	}
	if _, err := parseAllReducePerf("# nThread 1\n# Avg bus bandwidth : 1\n"); err == nil {
		t.Error("a run without a table was accepted")
	}
}

func TestBadNodesOfPairs(t *testing.T) {
	// b fails with both partners; a-c passes, so only b is bad.
	got := badNodesOfPairs(map[[2]string]bool{{"a", "b"}: false, {"b", "c"}: false, {"a", "c"}: true})
	if !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("bad nodes %v, want [b]", got)
	}
}

func TestParseNVLinkErrors(t *testing.T) {
	w, ok := parseNVLinkErrors(readHealthSample(t, "nvidia-smi-nvlink-e.txt"))
	if !ok || w != (nvlinkErrors{GPU: 1, Link: 0, Kind: "Recovery Errors", Count: 12}) {
		t.Errorf("worst counter %+v (%v)", w, ok)
	}
	if _, ok := parseNVLinkErrors("GPU 0: NVIDIA L4 (UUID: GPU-x)\n"); ok {
		t.Error("output without counters gave one")
	}
}
