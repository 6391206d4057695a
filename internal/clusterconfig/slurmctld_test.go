package clusterconfig_test

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurmcheck"
)

// Every golden shape loads in Debian's real slurmctld, and what slurmctld
// loaded is what was declared: partitions, node counts, GRES, features,
// CPUs and memory from the catalog.
func TestRenderedShapesLoadInSlurmctld(t *testing.T) {
	slurmcheck.Require(t)
	for _, s := range shapes() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			res := validate(t, s.cluster, s.parts)
			if len(res.Partitions) != len(s.parts) {
				t.Errorf("slurmctld loaded %d partitions, want %d", len(res.Partitions), len(s.parts))
			}
			for _, p := range s.parts {
				checkPartition(t, s.cluster, p, res)
			}
			checkCloudConfig(t, s, res)
			for _, prog := range []string{"ResumeProgram", "SuspendProgram", "ResumeFailProgram"} {
				if !slices.ContainsFunc(res.Stubbed, func(s string) bool { return strings.HasPrefix(s, prog+"=") }) {
					t.Errorf("%s was not stubbed (Stubbed=%v); the validator would have run a real program", prog, res.Stubbed)
				}
			}
			if len(res.Warnings) > 0 {
				t.Errorf("slurmctld logged errors for a rendered config: %v", res.Warnings)
			}
		})
	}
}

// checkCloudConfig asserts the cluster-wide settings slurmctld runs with:
// static nodes exempt from power saving, the cloud parameters, JWT auth.
func checkCloudConfig(t *testing.T, s shape, res *slurmcheck.Result) {
	t.Helper()
	var static []string
	gpu := false
	for _, p := range s.parts {
		if n := p.StaticNodeNames(s.cluster.Name); n != "" {
			static = append(static, n)
		}
		m, _ := catalog.Machine(p.MachineType)
		gpu = gpu || m.HasGPU()
	}
	wantExc := "(null)"
	if len(static) > 0 {
		slices.Sort(static)
		wantExc = strings.Join(static, ",")
	}
	wantGres := map[bool]string{true: "gpu", false: "(null)"}[gpu]
	cfg := res.Config
	if cfg["SuspendExcNodes"] != wantExc || cfg["GresTypes"] != wantGres || cfg["AuthAltTypes"] != "auth/jwt" ||
		!strings.HasPrefix(cfg["SlurmctldParameters"], "cloud_dns,enable_configless,idle_on_node_suspend") ||
		!strings.HasPrefix(cfg["PrivateData"], "cloud") || cfg["ClusterName"] != s.cluster.Name {
		t.Errorf("scontrol show config: SuspendExcNodes=%s GresTypes=%s AuthAltTypes=%s SlurmctldParameters=%s PrivateData=%s ClusterName=%s; want SuspendExcNodes=%s GresTypes=%s",
			cfg["SuspendExcNodes"], cfg["GresTypes"], cfg["AuthAltTypes"], cfg["SlurmctldParameters"], cfg["PrivateData"], cfg["ClusterName"], wantExc, wantGres)
	}
}

func validate(t *testing.T, c cc.Cluster, parts []cc.Partition) *slurmcheck.Result {
	t.Helper()
	conf, err := cc.RenderSlurmConf(c, parts)
	if err != nil {
		t.Fatal(err)
	}
	gres, err := cc.RenderGresConf(c, parts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := slurmcheck.Validate(ctx, conf, gres, cc.RenderCgroupConf())
	if err != nil {
		if res != nil {
			t.Logf("slurmctld log:\n%s", res.Log)
		}
		t.Fatalf("rendered config rejected: %v\n%s", err, conf)
	}
	t.Logf("validated in %s", time.Since(start).Round(time.Millisecond))
	return res
}

func checkPartition(t *testing.T, c cc.Cluster, p cc.Partition, res *slurmcheck.Result) {
	t.Helper()
	m, _ := catalog.Machine(p.MachineType)
	got, ok := res.Partition(p.Name)
	if !ok {
		t.Errorf("partition %s missing from scontrol show partition", p.Name)
		return
	}
	if got.TotalNodes != p.TotalNodes() || got.Default != p.Default || got.State != "UP" {
		t.Errorf("partition %s: TotalNodes=%d Default=%v State=%s, want %d %v UP", p.Name, got.TotalNodes, got.Default, got.State, p.TotalNodes(), p.Default)
	}
	if got.TotalCPUs != p.TotalNodes()*m.SlurmCPUs() {
		t.Errorf("partition %s: TotalCPUs=%d, want %d", p.Name, got.TotalCPUs, p.TotalNodes()*m.SlurmCPUs())
	}
	if want := map[bool]string{true: "EXCLUSIVE", false: "NO"}[p.Exclusive]; got.OverSubscribe != want {
		t.Errorf("partition %s: OverSubscribe=%s, want %s", p.Name, got.OverSubscribe, want)
	}
	if got.Nodes != p.AllNodeNames(c.Name) {
		t.Errorf("partition %s: Nodes=%s, want %s", p.Name, got.Nodes, p.AllNodeNames(c.Name))
	}

	wantGres := m.SlurmGres()
	if wantGres == "" {
		wantGres = "(null)"
	}
	wantFeatures := append(m.Features(), p.Features...)
	nodes := res.NodesOf(p.Name)
	if len(nodes) != p.TotalNodes() {
		t.Errorf("partition %s has %d nodes in scontrol show node, want %d", p.Name, len(nodes), p.TotalNodes())
	}
	for _, n := range nodes {
		_, _, ok := p.NodeIndex(c.Name, n.Name)
		if !ok || n.Gres != wantGres || n.CPUs != m.SlurmCPUs() || n.RealMemoryMB != m.SlurmRealMemoryMB() ||
			!slices.Equal(n.Features, wantFeatures) || !strings.Contains(n.State, "CLOUD") {
			t.Errorf("node %s = {Gres %s, CPUs %d, RealMemory %d, Features %v, State %s}, want {%s %d %d %v CLOUD}",
				n.Name, n.Gres, n.CPUs, n.RealMemoryMB, n.Features, n.State, wantGres, m.SlurmCPUs(), m.SlurmRealMemoryMB(), wantFeatures)
			break
		}
	}

	total := 0
	for _, row := range res.Sinfo {
		if row.Partition != p.Name {
			continue
		}
		total += row.Nodes
		if row.Gres != wantGres || row.Features != strings.Join(wantFeatures, ",") || row.Default != p.Default {
			t.Errorf("sinfo row %+v, want GRES %s, features %s, default %v", row, wantGres, strings.Join(wantFeatures, ","), p.Default)
		}
	}
	if total != p.TotalNodes() {
		t.Errorf("sinfo shows %d nodes in %s, want %d (powered-down cloud nodes must be visible)", total, p.Name, p.TotalNodes())
	}
}

// A partition line naming nodes no NodeName declares is what kills a
// running slurmctld on reconfigure; the validator refuses it with
// slurmctld's own words.
func TestSlurmctldRejectsPartitionWithUnknownNodes(t *testing.T) {
	slurmcheck.Require(t)
	s := shapes()[0]
	conf, err := cc.RenderSlurmConf(s.cluster, s.parts)
	if err != nil {
		t.Fatal(err)
	}
	conf = append(conf, []byte("PartitionName=broken Nodes=cpu-missing-[0-3] State=UP\n")...)
	_, err = slurmcheck.Validate(context.Background(), conf, nil, cc.RenderCgroupConf())
	var rej *slurmcheck.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("err = %v, want a RejectedError", err)
	}
	if !strings.Contains(err.Error(), "fatal: Invalid node names in partition broken") ||
		!strings.Contains(err.Error(), `lookup failure for node "cpu-missing-0"`) {
		t.Errorf("error does not carry slurmctld's text: %v", err)
	}
}

// The allowlists hold only keys Slurm 22.05's parser knows: one slurmctld
// run parses them all and must complain about the sentinel key alone.
func TestAllowedSettingsAreKnownToSlurm2205(t *testing.T) {
	if _, err := exec.LookPath("slurmctld"); err != nil {
		t.Skip("slurmctld not installed (run scripts/install-deps.sh)")
	}
	var b strings.Builder
	b.WriteString("ClusterName=keys\n")
	for _, k := range cc.AllowedSlurmSettings() {
		b.WriteString(k + "=1\n")
	}
	b.WriteString("HypercomputeSentinelKey=1\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1")
	for _, k := range cc.AllowedPartitionSettings() {
		b.WriteString(" " + k + "=1")
	}
	b.WriteString(" HypercomputeSentinelPartitionKey=1\n")
	path := t.TempDir() + "/slurm.conf"
	if err := writeFile(path, b.String()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "slurmctld", "-D", "-f", path).CombinedOutput()
	var unknown []string
	for _, line := range strings.Split(string(out), "\n") {
		if _, key, ok := strings.Cut(line, "unrecognized key: "); ok {
			unknown = append(unknown, strings.TrimSpace(key))
		}
	}
	if want := []string{"HypercomputeSentinelKey", "HypercomputeSentinelPartitionKey"}; !slices.Equal(unknown, want) {
		t.Errorf("slurmctld 22.05 reported unrecognized keys %v, want only the sentinels %v; output:\n%s", unknown, want, out)
	}
}
