package clusterconfig_test

import (
	"slices"
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
	for _, bad := range []string{"a-[3-1]", "a-[1-2", "a-[x]", "a-[0-99999999]", "a-[1]b[2]"} {
		if _, err := cc.ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q) accepted", bad)
		}
	}
}

func TestCompressHostlistRoundTrips(t *testing.T) {
	names := []string{"p-7", "p-0", "p-1", "p-2", "q-5", "ctl", "p-1"}
	got := cc.CompressHostlist(names)
	if got != "p-[0-2,7],q-5,ctl" {
		t.Fatalf("CompressHostlist = %q", got)
	}
	back, err := cc.ExpandHostlist(got)
	if err != nil || len(back) != 6 {
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
