package nodepartition

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurmcheck"
)

// oneMachinePerProfile picks a machine type of every profile of the catalog (a3-high, a3-mega,
// a3-ultra, a4, a4x, g2, n2, c2, c3, e2), so a new family cannot slip past the Slurm check.
func oneMachinePerProfile() []catalog.MachineType {
	seen := map[string]bool{}
	var out []catalog.MachineType
	for _, m := range catalog.Machines() {
		if !seen[m.Profile] {
			seen[m.Profile] = true
			out = append(out, m)
		}
	}
	return out
}

// The partitions this resource writes, one per machine profile of the catalog, are accepted by
// Debian's real slurmctld with the declared nodes, GRES and features.
func TestRenderedPartitionsOfEveryFamilyLoadInSlurmctld(t *testing.T) {
	slurmcheck.Require(t)
	cluster := cc.Cluster{
		Name:       "fam",
		Controller: cc.Controller{Hostname: cc.ControllerName("fam"), Address: "10.0.0.2"},
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: "10.0.1.2", Share: "/home"}},
		Agents: []cc.AgentRef{
			{Version: "0.1.0", URL: "https://example.com/a", SHA256: strings.Repeat("ab", 32)},
			{Version: "0.1.0", Arch: catalog.ArchARM, URL: "https://example.com/b", SHA256: strings.Repeat("cd", 32)},
		},
	}
	ref := cc.ClusterID{Project: "p", Zone: "us-central1-a", Name: cluster.Name}
	var parts []cc.Partition
	for i, m := range oneMachinePerProfile() {
		name := strings.ReplaceAll(m.Profile, "-", "_")
		d := &desired{cluster: ref, name: name, prefix: cc.NodeNamePrefix(ref.Name, name), machine: m, project: "p", zone: "us-central1-a",
			static: 2, dynamic: 6, model: modelStandard,
			slurm: slurmOptions{isDefault: i == 0, exclusive: m.HasGPU(), maxTime: "2-00:00:00", features: []string{"fam-" + m.Family}}}
		parts = append(parts, d.partition(templatePath("p", templateName(d.prefix, []byte(name)))))
	}
	if len(parts) < 10 {
		t.Fatalf("only %d machine profiles in the catalog", len(parts))
	}
	conf, err := cc.RenderSlurmConf(cluster, parts)
	if err != nil {
		t.Fatal(err)
	}
	gres, err := cc.RenderGresConf(cluster, parts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := slurmcheck.Validate(ctx, conf, gres, cc.RenderCgroupConf())
	if err != nil {
		t.Fatalf("slurmctld rejected the partitions: %v\n%s", err, conf)
	}
	for _, p := range parts {
		m, _ := catalog.Machine(p.MachineType)
		got, ok := res.Partition(p.Name)
		if !ok {
			t.Errorf("partition %s (%s) missing from scontrol show partition", p.Name, m.Name)
			continue
		}
		if got.TotalNodes != p.TotalNodes() || got.Nodes != p.AllNodeNames(cluster.Name) {
			t.Errorf("partition %s: %d nodes %s, want %d %s", p.Name, got.TotalNodes, got.Nodes, p.TotalNodes(), p.AllNodeNames(cluster.Name))
		}
		wantGres := m.SlurmGres()
		if wantGres == "" {
			wantGres = "(null)"
		}
		wantFeatures := append(m.Features(), p.Features...)
		nodes := res.NodesOf(p.Name)
		if len(nodes) != p.TotalNodes() {
			t.Errorf("partition %s: slurmctld has %d nodes, want %d", p.Name, len(nodes), p.TotalNodes())
		}
		for _, n := range nodes {
			if n.Gres != wantGres || n.CPUs != m.SlurmCPUs() || !slices.Equal(n.Features, wantFeatures) {
				t.Errorf("node %s: Gres %s CPUs %d Features %v; want %s %d %v", n.Name, n.Gres, n.CPUs, n.Features, wantGres, m.SlurmCPUs(), wantFeatures)
				break
			}
		}
	}
	t.Logf("slurmctld loaded %d partitions, %d nodes", len(res.Partitions), len(res.Nodes))
	if len(res.Warnings) > 0 {
		t.Errorf("slurmctld logged errors: %v", res.Warnings)
	}
}
