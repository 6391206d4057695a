package clusterconfig_test

import (
	"reflect"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func TestCheckMetadataSize(t *testing.T) {
	checkErr(t, "small", cc.CheckMetadataSize(map[string]string{"startup-script": "#!/bin/sh", "hypercompute-node": "{}"}), "")
	checkErr(t, "value at the limit", cc.CheckMetadataSize(map[string]string{"k": strings.Repeat("x", 262144)}), "")
	checkErr(t, "value over the limit", cc.CheckMetadataSize(map[string]string{"hypercompute-cluster": strings.Repeat("x", 262145)}),
		`metadata value of "hypercompute-cluster" is 262145 bytes; Compute Engine allows at most 262144 bytes per value`)
	checkErr(t, "total over the limit", cc.CheckMetadataSize(map[string]string{
		"a": strings.Repeat("x", 262000), "b": strings.Repeat("x", 262000), "c": strings.Repeat("x", 300),
	}), "metadata keys and values total 524303 bytes (largest: a 262000 bytes, b 262000 bytes, c 300 bytes); Compute Engine allows less than 524288 bytes")
	checkErr(t, "bad key", cc.CheckMetadataSize(map[string]string{"hypercompute.node": "x"}), `metadata key "hypercompute.node" is invalid`)
}

// A 1,000-node partition renders compactly: hostlist ranges, never a line
// per node, and every metadata value stays far below the limits.
func TestLargePartitionRendersCompactly(t *testing.T) {
	c := baseCluster("big")
	p := cc.Partition{Name: "a3mega", MachineType: "a3-megagpu-8g", StaticNodes: 500, MaxDynamicNodes: 1500}
	conf, err := cc.RenderSlurmConf(c, []cc.Partition{p})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(conf), "\nNodeName="); n != 2 {
		t.Errorf("%d NodeName lines for one partition, want 2 (static and dynamic ranges)", n)
	}
	if len(conf) > 4096 {
		t.Errorf("slurm.conf for 2,000 nodes is %d bytes", len(conf))
	}
	cluster, err := cc.EncodeCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	part, err := cc.EncodePartition(c.Name, p)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]string{cc.ClusterKey: string(cluster), cc.PartitionKey(p.Name): string(part)}
	if err := cc.CheckMetadataSize(items); err != nil {
		t.Fatal(err)
	}
	if len(part) > 1024 {
		t.Errorf("partition value is %d bytes; it must not grow with the node count", len(part))
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, s := range shapes() {
		b, err := cc.EncodeCluster(s.cluster)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cc.DecodeCluster(b)
		if err != nil {
			t.Fatal(err)
		}
		want := s.cluster
		want.Schema = cc.SchemaVersion
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: cluster round trip\n got %+v\nwant %+v", s.name, got, want)
		}
		for _, p := range s.parts {
			b, err := cc.EncodePartition(s.cluster.Name, p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cc.DecodePartition(s.cluster.Name, b)
			p.Schema = cc.SchemaVersion
			if err != nil || !reflect.DeepEqual(got, p) {
				t.Errorf("%s: partition round trip: %v\n got %+v\nwant %+v", s.name, err, got, p)
			}
		}
	}
	// A newer provider's extra fields are ignored; a newer schema is refused.
	b, _ := cc.EncodeCluster(baseCluster("ml"))
	newer := strings.Replace(string(b), `"schema": 1`, `"schema": 1, "future_field": true`, 1)
	if _, err := cc.DecodeCluster([]byte(newer)); err != nil {
		t.Errorf("unknown field refused: %v", err)
	}
	_, err := cc.DecodeCluster([]byte(strings.Replace(string(b), `"schema": 1`, `"schema": 2`, 1)))
	checkErr(t, "newer schema", err, "newer than this build understands")
	_, err = cc.DecodePartition("ml", []byte("{"))
	checkErr(t, "bad json", err, "partition config is not valid JSON")
}

func TestNodeConfig(t *testing.T) {
	s := shapes()[3] // a4x-arm64
	n, err := cc.NewNode(s.cluster, cc.RoleCompute, &s.parts[0])
	if err != nil {
		t.Fatal(err)
	}
	if n.Agent != agentARM || n.Partition != "gb200" || n.NodeSet != "gb200_nodes" || n.SlurmctldPort != 6817 {
		t.Errorf("A4X compute node = %+v; it must run the arm64 agent", n)
	}
	ctl, err := cc.NewNode(s.cluster, cc.RoleController, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ctl.Agent != agentX86 || ctl.ConfigKeys[0] != cc.ClusterKey || len(ctl.ConfigKeyPrefixes) != 2 {
		t.Errorf("controller node = %+v", ctl)
	}
	b, err := cc.RenderNodeConfig(n)
	if err != nil {
		t.Fatal(err)
	}
	back, err := cc.DecodeNode(b)
	if err != nil || !reflect.DeepEqual(back, n) {
		t.Errorf("node round trip: %v\n got %+v\nwant %+v", err, back, n)
	}
	_, err = cc.NewNode(s.cluster, cc.RoleCompute, nil)
	checkErr(t, "compute without partition", err, "needs its partition")
	_, err = cc.NewNode(s.cluster, cc.RoleLogin, &s.parts[0])
	checkErr(t, "login with partition", err, "belongs to no partition")
	_, err = cc.NewNode(s.cluster, "worker", nil)
	checkErr(t, "bad role", err, `role "worker"`)
	_, err = cc.DecodeNode([]byte(`{"schema":1,"role":"compute","cluster":"ml"}`))
	checkErr(t, "compute config without partition", err, "names no partition")
}

func TestHash(t *testing.T) {
	s := shapes()[6]
	h1, err := cc.Hash(s.cluster, s.parts)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := cc.Hash(s.cluster, []cc.Partition{s.parts[2], s.parts[0], s.parts[1]})
	if h1 != h2 || len(h1) != 64 {
		t.Errorf("hash %q vs %q: must be stable and hex SHA-256", h1, h2)
	}
	parts := append([]cc.Partition(nil), s.parts...)
	parts[1].MaxDynamicNodes++
	if h3, _ := cc.Hash(s.cluster, parts); h3 == h1 {
		t.Error("hash ignores a partition change")
	}
	c := s.cluster
	c.Slurm.Prolog = "#!/bin/sh\ntrue\n"
	if h4, _ := cc.Hash(c, s.parts); h4 == h1 {
		t.Error("hash ignores the prolog script")
	}
	if cc.HashFiles(map[string][]byte{"a": []byte("bc")}) == cc.HashFiles(map[string][]byte{"ab": []byte("c")}) {
		t.Error("file framing is ambiguous")
	}
	files, _ := cc.RenderFiles(c, s.parts)
	for _, p := range []string{"/etc/slurm/slurm.conf", "/etc/slurm/gres.conf", "/etc/slurm/cgroup.conf", "/etc/slurm/prolog.d/50-cluster-prolog.sh"} {
		if _, ok := files[p]; !ok {
			t.Errorf("RenderFiles lacks %s", p)
		}
	}
}

func TestProgramWrappers(t *testing.T) {
	w := cc.ProgramWrappers(baseCluster("ml"))
	want := "#!/bin/sh\n# generated by hypercompute; do not edit.\nexec /var/lib/hypercompute/bin/hypercompute-agent resume \"$@\"\n"
	if got := string(w["/var/lib/hypercompute/bin/hypercompute-resume"]); got != want {
		t.Errorf("resume wrapper = %q", got)
	}
	if len(w) != 3 {
		t.Errorf("wrappers = %v", w)
	}
}
