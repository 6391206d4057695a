package instances

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/netip"
	"sync"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// ipam hands out primary internal addresses from subnet ranges. It keeps the used addresses of every subnet in
// memory (rebuilt from store changes, so snapshots and resets need nothing special) because scanning every
// instance per allocation would make creating N VMs cost O(N²).
//
// An address is marked used the moment it is handed out — before the instance is committed — so concurrent
// inserts never get the same one; the store watcher frees it when the instance disappears, and callers free
// addresses of instances they end up not creating.
type ipam struct {
	s     *Service
	mu    sync.Mutex
	pools map[string]*ipPool // by subnetwork key
}

type ipPool struct {
	used map[uint32]string // address → owner (instance key)
	hint uint32            // no free address below it (within the current range)
}

func newIPAM(s *Service) *ipam { return &ipam{s: s, pools: map[string]*ipPool{}} }

func (a *ipam) pool(subnet string) *ipPool {
	p := a.pools[subnet]
	if p == nil {
		p = &ipPool{used: map[uint32]string{}}
		a.pools[subnet] = p
	}
	return p
}

func ipToU32(ip netip.Addr) uint32 { b := ip.As4(); return binary.BigEndian.Uint32(b[:]) }

func u32ToIP(v uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b)
}

// usableRange is the range instances may get: Compute reserves the network and gateway addresses (the first two)
// and the last two of every primary range.
func usableRange(cidr string) (first, last uint32, err error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return 0, 0, fmt.Errorf("subnetwork range %q is not an IPv4 CIDR", cidr)
	}
	p = p.Masked()
	base := ipToU32(p.Addr())
	size := uint32(1) << (32 - p.Bits())
	if size < 8 {
		return 0, 0, fmt.Errorf("subnetwork range %q is too small", cidr)
	}
	return base + 2, base + size - 3, nil
}

// allocate hands out the lowest free address of cidr in subnet, skipping addresses in skip (static reservations).
func (a *ipam) allocate(subnet, cidr, owner string, skip map[uint32]bool) (string, error) {
	first, last, err := usableRange(cidr)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pool(subnet)
	start := max(first, p.hint)
	for v := start; v <= last && v >= first; v++ {
		if _, taken := p.used[v]; taken || skip[v] {
			continue
		}
		p.used[v] = owner
		p.hint = v + 1
		return u32ToIP(v).String(), nil
	}
	return "", fmt.Errorf("exhausted")
}

// claim marks a caller-chosen address used; it fails when the address is outside the range or taken.
func (a *ipam) claim(subnet, cidr, ip, owner string, skip map[uint32]bool) error {
	first, last, err := usableRange(cidr)
	if err != nil {
		return err
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil || !addr.Is4() {
		return fmt.Errorf("not an IPv4 address")
	}
	v := ipToU32(addr)
	if v < first || v > last {
		return fmt.Errorf("outside the usable range of %s", cidr)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pool(subnet)
	if o, taken := p.used[v]; (taken && o != owner) || skip[v] {
		return fmt.Errorf("already in use")
	}
	p.used[v] = owner
	return nil
}

// release frees ip in subnet if owner holds it.
func (a *ipam) release(subnet, ip, owner string) {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !addr.Is4() {
		return
	}
	v := ipToU32(addr)
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pools[subnet]
	if p == nil || p.used[v] != owner {
		return
	}
	delete(p.used, v)
	if v < p.hint {
		p.hint = v
	}
}

// mark records ip as held by owner (an instance seen in the store, e.g. after a snapshot load).
func (a *ipam) mark(subnet, ip, owner string) {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !addr.Is4() {
		return
	}
	a.mu.Lock()
	a.pool(subnet).used[ipToU32(addr)] = owner
	a.mu.Unlock()
}

// staticReservations lists the addresses static internal address resources hold in subnet, read through get
// (a store or a transaction lister).
func staticReservations(list func(kind, prefix string) []core.Record, subnet string) map[uint32]bool {
	project, _, region := scopePartsOf(subnet)
	if region == "" {
		return nil
	}
	var out map[uint32]bool
	for _, rec := range list(compute.KindAddresses, fmt.Sprintf("projects/%s/regions/%s/", project, region)) {
		var a struct {
			Address    string `json:"address"`
			Subnetwork string `json:"subnetwork"`
		}
		if json.Unmarshal(rec.JSON, &a) != nil || a.Address == "" || core.RelativePath(a.Subnetwork) != subnet {
			continue
		}
		if addr, err := netip.ParseAddr(a.Address); err == nil && addr.Is4() {
			if out == nil {
				out = map[uint32]bool{}
			}
			out[ipToU32(addr)] = true
		}
	}
	return out
}

// scopePartsOf splits a resource key into project, zone and region.
func scopePartsOf(key string) (project, zone, region string) {
	var parts [6]string
	n := 0
	start := 0
	for i := 0; i <= len(key) && n < len(parts); i++ {
		if i == len(key) || key[i] == '/' {
			parts[n] = key[start:i]
			n++
			start = i + 1
		}
	}
	project = parts[1]
	switch parts[2] {
	case "zones":
		zone = parts[3]
	case "regions":
		region = parts[3]
	}
	return
}

// externalIP derives a stable, fake external address for an access config from the instance's id.
func externalIP(id uint64, nic int) string {
	v := uint32(id>>8) ^ uint32(nic)<<20
	return fmt.Sprintf("34.%d.%d.%d", 64+(v>>16)%64, (v>>8)&0xff, 1+v%254)
}
