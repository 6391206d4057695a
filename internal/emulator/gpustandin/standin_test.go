package gpustandin

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// run executes a rendered stand-in as the agent does.
func run(t *testing.T, machineType string, f Fault, tool string, args ...string) string {
	t.Helper()
	tools, ok := Tools(machineType, "vm-0", f)
	if !ok {
		t.Fatalf("%s has no GPU tools", machineType)
	}
	p := filepath.Join(t.TempDir(), tool)
	if err := os.WriteFile(p, tools[tool], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(p, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return string(out)
}

// firstGPU is a -q log's header and first GPU block, with what differs from VM to VM (time, bus
// id, GPU count) blanked.
func firstGPU(log string) string {
	log = regexp.MustCompile(`(?m)^(Timestamp|Attached GPUs)(\s+: ).*$`).ReplaceAllString(log, "${1}${2}X")
	log = regexp.MustCompile(`(?m)^GPU [0-9A-F:.]+$`).ReplaceAllString(log, "GPU X")
	head, rest, _ := strings.Cut(log, "GPU X\n")
	block, _, _ := strings.Cut(rest, "GPU X\n")
	return head + "GPU X\n" + strings.TrimRight(block, "\n")
}

// The stand-in prints `nvidia-smi -q -d ECC` and `-q -d ROW_REMAPPER` line for line as a real
// H200 (driver 580) did, and a fault changes only the values the driver would.
func TestNvidiaSMIQAsRealH200(t *testing.T) {
	real := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "agent", "testdata", "health", name))
		if err != nil {
			t.Fatal(err)
		}
		return firstGPU(string(b))
	}
	for d, sample := range map[string]string{"ECC": "h200-nvidia-smi-q-d-ecc.txt", "ROW_REMAPPER": "h200-nvidia-smi-q-d-row-remapper.txt"} {
		if got, want := firstGPU(run(t, "a3-ultragpu-8g", Fault{}, NvidiaSMI, "-q", "-d", d)), real(sample); got != want {
			t.Errorf("-q -d %s:\n%s\nthe real H200 printed:\n%s", d, got, want)
		}
	}
	f := Fault{RemappedRowsPending: true, UnrepairableMemory: true}
	q := run(t, "a3-ultragpu-8g", f, NvidiaSMI, "-q")
	for _, want := range []string{
		"        Pending                                        : Yes\n",
		"        Remapping Failure Occurred                     : No\n",
		"        Unrepairable Memory                            : Yes\n",
		"        Uncorrectable Error                            : 1\n",
	} {
		if !strings.Contains(firstGPU(q), want) {
			t.Errorf("-q with %+v lacks %q", f, want)
		}
	}
	// Only GPU 0 is faulty.
	if n := strings.Count(q, "Unrepairable Memory                            : Yes"); n != 1 {
		t.Errorf("%d GPUs report unrepairable memory, want 1", n)
	}
	if !strings.Contains(run(t, "a3-ultragpu-8g", Fault{RemappingFailure: true}, NvidiaSMI, "-q", "-d", "ROW_REMAPPER"), "Remapping Failure Occurred                     : Yes") {
		t.Error("a remapping failure is not printed")
	}
}

// Without NVLink peers (an L4) nvidia-smi nvlink -e prints nothing, as on the real single-GPU H200.
func TestNvidiaSMINVLinkPeers(t *testing.T) {
	if out := run(t, "g2-standard-12", Fault{}, NvidiaSMI, "nvlink", "-e"); out != "" {
		t.Errorf("an L4 VM printed NVLink counters %q", out)
	}
	if out := run(t, "a3-ultragpu-8g", Fault{}, NvidiaSMI, "nvlink", "-e"); !strings.Contains(out, "Link 0: Replay Errors: 0") {
		t.Errorf("an 8-GPU VM printed %q", out)
	}
	if err := CheckFault("g2-standard-12", Fault{NVLinkErrors: 3}); err == nil || !strings.Contains(err.Error(), "no NVLink peers") {
		t.Errorf("NVLink errors on an L4: %v", err)
	}
	if err := CheckFault("a3-ultragpu-8g", Fault{NVLinkErrors: 3, UnrepairableMemory: true}); err != nil {
		t.Error(err)
	}
}
