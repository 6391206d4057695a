package agent

import (
	"context"
	"regexp"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// withYes turns the value of a "key : No" line of real nvidia-smi -q text into Yes, keeping the
// driver's alignment; it fails the test when the key is not there, so the variant is the real format.
func withYes(t *testing.T, text, key string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^(\s+` + regexp.QuoteMeta(key) + `\s+: )No$`)
	if !re.MatchString(text) {
		t.Fatalf("%q : No is not in the sample", key)
	}
	return re.ReplaceAllString(text, "${1}Yes")
}

func TestParseMemoryRepairRealH200(t *testing.T) {
	full := readHealthSample(t, "h200-nvidia-smi-q.txt")
	ecc := readHealthSample(t, "h200-nvidia-smi-q-d-ecc.txt")
	remap := readHealthSample(t, "h200-nvidia-smi-q-d-row-remapper.txt")
	healthy := gpuMemoryRepair{BusID: "00000000:00:06.0"}
	for name, outs := range map[string][]string{"-q": {full}, "-q -d ROW_REMAPPER + ECC": {remap, ecc}} {
		got, err := parseMemoryRepair(outs...)
		if err != nil || len(got) != 1 || got[0] != healthy {
			t.Errorf("%s: %+v, %v; want one healthy GPU %+v", name, got, err, healthy)
		}
	}
	// The full log has other "Pending" keys (ECC Mode, clocks, ...): only the Remapped Rows one counts.
	if ids, vals, err := parseNvidiaSMIQ(full); err != nil || len(ids) != 1 || vals[0]["ECC Mode/Pending"] != "Enabled" ||
		vals[0]["Remapped Rows/Pending"] != "No" || vals[0]["Product Name"] != "NVIDIA H200" {
		t.Errorf("sections of the real log: %v %v", ids, err)
	}
	for _, c := range []struct {
		text, key string
		want      gpuMemoryRepair
	}{
		{remap, "Pending", gpuMemoryRepair{RowRemapPending: true}},
		{remap, "Remapping Failure Occurred", gpuMemoryRepair{RowRemapFailure: true}},
		{ecc, "Channel Repair Pending", gpuMemoryRepair{ChannelRepairPending: true}},
		{ecc, "TPC Repair Pending", gpuMemoryRepair{TPCRepairPending: true}},
		{ecc, "Unrepairable Memory", gpuMemoryRepair{UnrepairableMemory: true}},
	} {
		got, err := parseMemoryRepair(withYes(t, c.text, c.key))
		c.want.BusID = healthy.BusID
		if err != nil || len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: Yes parsed as %+v, %v; want %+v", c.key, got, err, c.want)
		}
	}
	// ECC Mode's "Pending : Enabled" in the full log is not a pending remap.
	if got, _ := parseMemoryRepair(withYes(t, full, "Unrepairable Memory")); len(got) != 1 || !got[0].UnrepairableMemory || got[0].RowRemapPending {
		t.Errorf("full log with unrepairable memory: %+v", got)
	}
	if _, err := parseMemoryRepair("No devices were found\n"); err == nil {
		t.Error("output without a GPU was accepted")
	}
}

// The two memory checks on the real H200 outputs: healthy passes; a pending repair fails
// remapped_rows only, unrepairable memory or a remapping failure fails unrepairable_memory only.
func TestMemoryRepairChecksRealH200(t *testing.T) {
	ecc := readHealthSample(t, "h200-nvidia-smi-q-d-ecc.txt")
	remap := readHealthSample(t, "h200-nvidia-smi-q-d-row-remapper.txt")
	runner := func(remap, ecc string) *healthRunner {
		return &healthRunner{gpus: 1, tool: func(_ context.Context, name string, args ...string) (string, error) {
			switch strings.Join(append([]string{name}, args...), " ") {
			case "nvidia-smi -q -d ROW_REMAPPER":
				return remap, nil
			case "nvidia-smi -q -d ECC":
				return ecc, nil
			}
			return "", nil
		}}
	}
	rows, mem := cc.HealthCheckSpec{Name: cc.CheckRemappedRows}, cc.HealthCheckSpec{Name: cc.CheckUnrepairableMemory}
	for _, c := range []struct {
		name              string
		remap, ecc        string
		wantRows, wantMem string
	}{
		{"healthy", remap, ecc, "", ""},
		{"remap pending", withYes(t, remap, "Pending"), ecc, "GPU 00000000:00:06.0: remapped rows pending (a GPU reset applies it)", ""},
		{"TPC repair pending", remap, withYes(t, ecc, "TPC Repair Pending"), "TPC repair pending", ""},
		{"remapping failure", withYes(t, remap, "Remapping Failure Occurred"), ecc, "", "GPU 00000000:00:06.0: row remapping failure occurred"},
		{"unrepairable", remap, withYes(t, ecc, "Unrepairable Memory"), "", "unrepairable memory"},
	} {
		r := runner(c.remap, c.ecc)
		for _, k := range []struct {
			spec cc.HealthCheckSpec
			want string
		}{{rows, c.wantRows}, {mem, c.wantMem}} {
			got := r.check(context.Background(), k.spec)
			if k.want == "" && got != "" || k.want != "" && !strings.Contains(got, k.want) {
				t.Errorf("%s, %s: evidence %q, want %q", c.name, k.spec.Name, got, k.want)
			}
		}
	}
}

// The real H200's empty `nvidia-smi nvlink -e` is "no links": the check neither fails nor passes
// unseen, it reports itself skipped; text it cannot read fails.
func TestNVLinkNoLinksRealH200(t *testing.T) {
	empty := readHealthSample(t, "h200-nvidia-smi-nvlink-e.txt")
	if empty != "" {
		t.Fatalf("the captured output is %q, want empty", empty)
	}
	for _, c := range []struct{ out, fail, skip string }{
		{empty, "", "not applicable: nvidia-smi nvlink -e lists no NVLink links"},
		{"GPU 0: NVIDIA H200 (UUID: GPU-86061e99-a805-167b-b9c4-1fb517ebbd85)\n", "", "not applicable"},
		{"NVLink is not supported by this build\n", "printed no link error counters", ""},
	} {
		r := &healthRunner{gpus: 1, tool: fakeTools(t, map[string]string{"nvidia-smi nvlink": c.out})}
		got := r.run(context.Background(), []cc.HealthCheckSpec{{Name: cc.CheckNVLink}})
		switch {
		case c.fail != "" && (len(got) != 1 || !strings.Contains(got[0].Evidence, c.fail)):
			t.Errorf("%q: failures %+v, want %q", c.out, got, c.fail)
		case c.fail == "" && len(got) != 0:
			t.Errorf("%q failed: %+v", c.out, got)
		case c.skip != "" && (len(r.skipped) != 1 || r.skipped[0].Check != cc.CheckNVLink || !strings.Contains(r.skipped[0].Why, c.skip)):
			t.Errorf("%q: skipped %+v, want %q", c.out, r.skipped, c.skip)
		case c.skip == "" && len(r.skipped) != 0:
			t.Errorf("%q: skipped %+v", c.out, r.skipped)
		}
	}
}
