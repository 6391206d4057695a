package clusterconfig_test

import (
	"strconv"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurmcheck"
)

// "Reserved first, then spot, then flex-start" for one GPU family, and a CPU partition over two
// machine types: every node set keeps its own node names and NodeSet, its nodes carry the weight
// of its provisioning (or its own), and each Slurm partition is one PartitionName line over its
// node sets.
func nodeSetShape() shape {
	c := baseCluster("ns")
	return shape{name: "node-sets", cluster: c, parts: []cc.Partition{
		{Name: "a3", MachineType: "a3-highgpu-8g", StaticNodes: 2, Provisioning: cc.ProvisioningReservation, MaxTime: "2-00:00:00", Default: true},
		{Name: "a3-spot", SlurmPartition: "a3", MachineType: "a3-highgpu-8g", MaxDynamicNodes: 4, Provisioning: cc.ProvisioningSpot, MaxTime: "2-00:00:00", Default: true},
		{Name: "a3-flex", SlurmPartition: "a3", MachineType: "a3-highgpu-8g", MaxDynamicNodes: 8, Provisioning: cc.ProvisioningFlexStart, MaxTime: "2-00:00:00", Default: true},
		{Name: "cpu-n2", SlurmPartition: "cpu", MachineType: "n2-standard-8", StaticNodes: 1, Provisioning: cc.ProvisioningStandard, Weight: 5},
		{Name: "cpu-c3", SlurmPartition: "cpu", MachineType: "c3-standard-22", MaxDynamicNodes: 2, Provisioning: cc.ProvisioningStandard},
	}}
}

func TestNodeSetsRenderOnePartitionLine(t *testing.T) {
	s := nodeSetShape()
	b, err := cc.RenderSlurmConf(s.cluster, s.parts)
	if err != nil {
		t.Fatal(err)
	}
	conf := string(b)
	var partitionLines []string
	weights := map[string]string{}
	for _, l := range strings.Split(conf, "\n") {
		if strings.HasPrefix(l, "PartitionName=") {
			partitionLines = append(partitionLines, l)
		}
		if strings.HasPrefix(l, "NodeName=") {
			f := strings.Fields(l)
			for _, kv := range f {
				if w, ok := strings.CutPrefix(kv, "Weight="); ok {
					weights[strings.TrimPrefix(f[0], "NodeName=")] = w
				}
			}
		}
	}
	if len(partitionLines) != 2 ||
		!strings.HasPrefix(partitionLines[0], "PartitionName=a3 Nodes=a3_nodes,a3-flex_nodes,a3-spot_nodes Default=YES OverSubscribe=NO MaxTime=2-00:00:00 ResumeTimeout=1200 ") ||
		!strings.HasPrefix(partitionLines[1], "PartitionName=cpu Nodes=cpu-c3_nodes,cpu-n2_nodes Default=NO ") {
		t.Errorf("PartitionName lines:\n%s\nwant one for a3 over its three node sets and one for cpu over its two", strings.Join(partitionLines, "\n"))
	}
	want := map[string]string{
		"ns-a3-[0-1]": "10", "ns-a3-spot-d[0-3]": "30", "ns-a3-flex-d[0-7]": "40",
		"ns-cpu-n2-0": "5", "ns-cpu-c3-d[0-1]": "20",
	}
	for n, w := range want {
		if weights[n] != w {
			t.Errorf("NodeName=%s has Weight=%q, want %s (all: %v)", n, weights[n], w, weights)
		}
	}

	// A key written before node sets existed (no provisioning, no weight) renders as it did.
	old := cc.Partition{Name: "old", MachineType: "n2-standard-8", StaticNodes: 1}
	b, err = cc.RenderSlurmConf(s.cluster, []cc.Partition{old})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Weight=") || !strings.Contains(string(b), "PartitionName=old Nodes=old_nodes ") {
		t.Errorf("a single partition without provisioning renders differently:\n%s", b)
	}
}

// Debian's slurmctld loads the node sets: each Slurm partition holds every node of its node sets,
// and scontrol shows each node's weight.
func TestNodeSetsLoadInSlurmctld(t *testing.T) {
	slurmcheck.Require(t)
	s := nodeSetShape()
	res := validate(t, s.cluster, s.parts)
	for name, total := range map[string]int{"a3": 14, "cpu": 3} {
		p, ok := res.Partition(name)
		if !ok || p.TotalNodes != total {
			t.Errorf("partition %s: loaded=%v TotalNodes=%d, want %d", name, ok, p.TotalNodes, total)
		}
	}
	if len(res.Partitions) != 2 {
		t.Errorf("slurmctld loaded %d partitions, want 2 (a node set is no partition of its own)", len(res.Partitions))
	}
	for node, w := range map[string]string{"ns-a3-0": "10", "ns-a3-spot-d3": "30", "ns-a3-flex-d0": "40", "ns-cpu-n2-0": "5", "ns-cpu-c3-d1": "20"} {
		n, ok := res.Node(node)
		if !ok || n.Fields["Weight"] != w {
			t.Errorf("node %s: loaded=%v Weight=%q, want %s", node, ok, n.Fields["Weight"], w)
		}
	}
	p, _ := res.Partition("cpu")
	n2, _ := res.Node("ns-cpu-n2-0")
	c3, _ := res.Node("ns-cpu-c3-d0")
	want := min(n2.RealMemoryMB/n2.CPUs, c3.RealMemoryMB/c3.CPUs)
	if got := p.Fields["DefMemPerCPU"]; got != strconv.Itoa(want) {
		t.Errorf("cpu partition DefMemPerCPU=%s, want %d (the smaller of its machine types')", got, want)
	}
}

// Node sets of one Slurm partition must agree on its partition-wide settings; a node set's name
// cannot be a Slurm partition it is not part of.
func TestNodeSetsConflictsRefused(t *testing.T) {
	base := func() []cc.Partition {
		return []cc.Partition{
			{Name: "gpu", MachineType: "a3-highgpu-8g", StaticNodes: 1, MaxTime: "60", Provisioning: cc.ProvisioningReservation},
			{Name: "gpu-spot", SlurmPartition: "gpu", MachineType: "a3-highgpu-8g", MaxDynamicNodes: 2, MaxTime: "60", Provisioning: cc.ProvisioningSpot},
		}
	}
	c := baseCluster("cf")
	if err := cc.Validate(c, base()); err != nil {
		t.Fatalf("agreeing node sets refused: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(ps []cc.Partition) []cc.Partition
		want   []string
	}{
		{"max_time", func(ps []cc.Partition) []cc.Partition { ps[1].MaxTime = "120"; return ps },
			[]string{`partition "gpu-spot" joins Slurm partition "gpu"`, `slurm.max_time is "120" here but "60" in node set "gpu"`}},
		{"default", func(ps []cc.Partition) []cc.Partition { ps[0].Default = true; return ps },
			[]string{`slurm.default is false here but true in node set "gpu"`}},
		{"exclusive", func(ps []cc.Partition) []cc.Partition { ps[1].Exclusive = true; return ps },
			[]string{`slurm.exclusive is true here but false in node set "gpu"`}},
		{"extra", func(ps []cc.Partition) []cc.Partition { ps[1].Extra = map[string]string{"MaxNodes": "4"}; return ps },
			[]string{`slurm.extra is map[MaxNodes:4] here but {} in node set "gpu"`}},
		{"suspend_time", func(ps []cc.Partition) []cc.Partition { ps[0].SuspendTime = 30; return ps },
			[]string{`slurm.suspend_time is unset here but 30 in node set "gpu"`}},
		{"own name is another's partition", func(ps []cc.Partition) []cc.Partition {
			ps[0].SlurmPartition = "batch"
			return ps
		}, []string{`partition "gpu" joins Slurm partition "batch", but node set "gpu-spot" forms a Slurm partition named "gpu"`}},
		{"joins a node set's name", func(ps []cc.Partition) []cc.Partition {
			return append(ps, cc.Partition{Name: "cpu", SlurmPartition: "gpu-spot", MachineType: "n2-standard-8", StaticNodes: 1})
		}, []string{`partition "cpu" joins Slurm partition "gpu-spot", but node set "gpu-spot" of that name is part of Slurm partition "gpu"`}},
		{"two default partitions", func(ps []cc.Partition) []cc.Partition {
			ps[0].Default, ps[1].Default = true, true
			return append(ps, cc.Partition{Name: "cpu", MachineType: "n2-standard-8", StaticNodes: 1, Default: true})
		}, []string{`partitions "cpu", "gpu" are all marked default`}},
		{"weight", func(ps []cc.Partition) []cc.Partition { ps[1].Weight = cc.MaxWeight + 1; return ps },
			[]string{`slurm.weight 1000001 is out of range`}},
		{"slurm partition name", func(ps []cc.Partition) []cc.Partition { ps[1].SlurmPartition = "default"; return ps },
			[]string{`partition "gpu-spot": slurm.partition: partition name "default" is reserved`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := cc.Validate(c, tc.change(base()))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			// The controller's rendering refuses it too: nothing reaches slurmctld.
			if _, err := cc.RenderSlurmConf(c, tc.change(base())); err == nil {
				t.Error("RenderSlurmConf accepted it")
			}
		})
	}
	// Two default node sets of one Slurm partition are one default partition.
	ps := base()
	ps[0].Default, ps[1].Default = true, true
	if err := cc.Validate(c, ps); err != nil {
		t.Errorf("one default Slurm partition over two node sets refused: %v", err)
	}
}

func TestDefaultWeights(t *testing.T) {
	order := []string{cc.ProvisioningReservation, cc.ProvisioningStandard, cc.ProvisioningSpot, cc.ProvisioningFlexStart}
	for i := 1; i < len(order); i++ {
		if cc.DefaultWeight(order[i-1]) >= cc.DefaultWeight(order[i]) {
			t.Errorf("%s weighs %d, not less than %s's %d", order[i-1], cc.DefaultWeight(order[i-1]), order[i], cc.DefaultWeight(order[i]))
		}
	}
	if cc.DefaultWeight("") != 0 {
		t.Error("an unknown provisioning model has a weight")
	}
}
