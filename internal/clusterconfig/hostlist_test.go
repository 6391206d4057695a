package clusterconfig_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func TestExpandHostlist(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{"", nil},
		{"c-a3-3", []string{"c-a3-3"}},
		{"c-a3-[0-2,7],c-cpu-1", []string{"c-a3-0", "c-a3-1", "c-a3-2", "c-a3-7", "c-cpu-1"}},
		{"n[01-03]", []string{"n01", "n02", "n03"}},
		{"a-[1-2],a-1", []string{"a-1", "a-2"}},
	} {
		got, err := cc.ExpandHostlist(tc.expr)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ExpandHostlist(%q) = %v, %v; want %v", tc.expr, got, err, tc.want)
		}
	}
	for _, bad := range []string{"a-[3-1]", "a-[1-2", "a-[x]", "a-[0-99999999]", "a-[1]b[2]", "n[1-2]-[1-2]", "n[1,3-4]x"} {
		if _, err := cc.ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q) accepted", bad)
		}
	}
}

func TestCompressHostlistRoundTrips(t *testing.T) {
	names := []string{"p-7", "p-0", "p-1", "p-2", "q-5", "ctl", "p-1", "p-d1", "p-d0", "p-d3", "p-01"}
	got := cc.CompressHostlist(names)
	if got != "p-[0-2,7],p-d[0-1,3],q-5,ctl,p-01" {
		t.Fatalf("CompressHostlist = %q", got)
	}
	back, err := cc.ExpandHostlist(got)
	if err != nil || len(back) != 10 {
		t.Fatalf("expand(%q) = %v, %v", got, back, err)
	}
	if s := cc.CompressHostlist(nil); s != "" {
		t.Errorf("CompressHostlist(nil) = %q", s)
	}
	big := make([]string, 1000)
	for i := range big {
		big[i] = cc.NodeName("c-a3mega", i)
	}
	if s := cc.CompressHostlist(big); s != "c-a3mega-[0-999]" {
		t.Errorf("1000 nodes compress to %q", s)
	}
}

func TestDrainReport(t *testing.T) {
	v := cc.FormatDrained("d1", []string{"p-3", "p-2"})
	if v != "d1 p-[2-3]" {
		t.Fatalf("FormatDrained = %q", v)
	}
	id, nodes, err := cc.ParseDrained(v)
	if err != nil || id != "d1" || !slices.Equal(nodes, []string{"p-2", "p-3"}) {
		t.Fatalf("ParseDrained = %q %v %v", id, nodes, err)
	}
	if id, nodes, err := cc.ParseDrained("d2"); err != nil || id != "d2" || len(nodes) != 0 {
		t.Fatalf("empty report = %q %v %v", id, nodes, err)
	}
}

// ExpandHostlist reads hostlists as Slurm itself does: the expansions of `scontrol show hostnames`
// (less its repeats, which ExpandHostlist drops), and a refusal wherever scontrol refuses.
func TestExpandHostlistAgreesWithScontrol(t *testing.T) {
	scontrol, err := exec.LookPath("scontrol")
	if err != nil {
		t.Skip("scontrol is not installed")
	}
	// scontrol wants a configuration source even to expand names; a minimal file does.
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("ClusterName=hostlist\nSlurmctldHost=localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostnames := func(expr string) ([]string, error) {
		cmd := exec.Command(scontrol, "show", "hostnames", expr)
		cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, err
		}
		// scontrol exits 0 on a bad hostlist; it prints nothing and complains on stderr.
		if len(strings.TrimSpace(string(out))) == 0 {
			return nil, fmt.Errorf("scontrol: %s", strings.TrimSpace(stderr.String()))
		}
		var names []string
		for _, n := range strings.Fields(string(out)) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		return names, nil
	}
	for _, expr := range []string{
		"c-a3-3", "c-a3-[0-2,7],c-cpu-1", "n[01-03]", "n[098-101]", "a-[1-2],a-1", "hc-a3mega-[0-63]", cc.CompressHostlist([]string{"p-0", "p-1", "p-5", "q-2", "ctl"}),
	} {
		want, err := hostnames(expr)
		if err != nil {
			t.Fatalf("scontrol show hostnames %q: %v", expr, err)
		}
		got, err := cc.ExpandHostlist(expr)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ExpandHostlist(%q) = %v, %v; scontrol says %v", expr, got, err, want)
		}
	}
	// Slurm 22.05 takes no suffix after a range ("n[1-2]x").
	for _, bad := range []string{"a-[3-1]", "a-[x]", "n[1,3-4]x,m"} {
		if _, err := hostnames(bad); err == nil {
			t.Errorf("scontrol accepts %q; the test's premise is wrong", bad)
		}
		if _, err := cc.ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q) accepted what scontrol refuses", bad)
		}
	}
}
