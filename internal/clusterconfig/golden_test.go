package clusterconfig_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current rendering")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/clusterconfig -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended):\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func TestGoldenSlurmAndGresConf(t *testing.T) {
	for _, s := range shapes() {
		t.Run(s.name, func(t *testing.T) {
			conf, err := cc.RenderSlurmConf(s.cluster, s.parts)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, s.name+".slurm.conf", conf)
			gres, err := cc.RenderGresConf(s.cluster, s.parts)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, s.name+".gres.conf", gres)

			// Deterministic: the same input renders the same bytes, and the
			// order partitions are given in does not matter.
			reversed := append([]cc.Partition(nil), s.parts...)
			for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
				reversed[i], reversed[j] = reversed[j], reversed[i]
			}
			again, err := cc.RenderSlurmConf(s.cluster, reversed)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(conf, again) {
				t.Error("rendering depends on the order of the partitions")
			}
		})
	}
}

func TestGoldenCgroupMountsLauncherNode(t *testing.T) {
	golden(t, "cgroup.conf", cc.RenderCgroupConf())

	var full shape
	for _, s := range shapes() {
		if s.name == "multi-partition" {
			full = s
		}
	}
	fstab, err := cc.RenderMountTable(full.cluster.Mounts)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "mounts.fstab", fstab)

	launcher, err := cc.RenderLauncher(agentX86)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "launcher.sh", launcher)

	for _, tc := range []struct {
		file string
		role cc.Role
		part *cc.Partition
	}{
		{"node-controller.json", cc.RoleController, nil},
		{"node-login.json", cc.RoleLogin, nil},
		{"node-compute.json", cc.RoleCompute, &full.parts[0]},
	} {
		n, err := cc.NewNode(full.cluster, tc.role, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		b, err := cc.RenderNodeConfig(n)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, tc.file, b)
	}
}

func writeFile(path, body string) error { return os.WriteFile(path, []byte(body), 0o644) }
