package servicenetworking

import (
	"net/netip"
	"testing"
)

func prefixes(s ...string) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range s {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
}

func TestFirstFree(t *testing.T) {
	pool := netip.MustParsePrefix("10.20.0.0/20")
	cases := []struct {
		name string
		bits int
		used []netip.Prefix
		want string // "" = none free
	}{
		{"empty pool", 29, nil, "10.20.0.0/29"},
		{"after a block", 29, prefixes("10.20.0.0/29"), "10.20.0.8/29"},
		{"skips a larger block and aligns", 26, prefixes("10.20.0.0/29"), "10.20.0.64/26"},
		{"fills a hole", 29, prefixes("10.20.0.0/29", "10.20.0.16/29"), "10.20.0.8/29"},
		{"jumps past a /24", 24, prefixes("10.20.0.0/24", "10.20.1.0/24"), "10.20.2.0/24"},
		{"used outside the pool is ignored", 24, prefixes("10.30.0.0/16"), "10.20.0.0/24"},
		{"whole pool used", 24, prefixes("10.20.0.0/20"), ""},
		{"block larger than the pool", 16, nil, ""},
	}
	for _, c := range cases {
		got, ok := firstFree(pool, c.bits, c.used)
		if c.want == "" {
			if ok {
				t.Errorf("%s: got %s, want none", c.name, got)
			}
			continue
		}
		if !ok || got.String() != c.want {
			t.Errorf("%s: got %v %v, want %s", c.name, got, ok, c.want)
		}
	}
	// Filling a pool block by block hands out every block once, in order, then stops.
	var used []netip.Prefix
	for i := 0; i < 16; i++ {
		p, ok := firstFree(pool, 24, used)
		if !ok {
			t.Fatalf("block %d: none free", i)
		}
		for _, u := range used {
			if u.Overlaps(p) {
				t.Fatalf("block %s overlaps %s", p, u)
			}
		}
		used = append(used, p)
	}
	if p, ok := firstFree(pool, 24, used); ok {
		t.Fatalf("17th /24 of a /20: %s", p)
	}
}

func TestAllocationHost(t *testing.T) {
	a := Allocation{CIDR: "10.20.3.0/24"}
	if got := a.Host(2); got != "10.20.3.2" {
		t.Fatalf("Host(2) = %s", got)
	}
}
