package network

import (
	"fmt"
	"math/bits"
	"net/netip"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

const (
	defaultGPUCIDR = "192.168.0.0/16"
	// defaultGPUSubnetPrefix keeps the /24 GPU subnets (252 nodes) networks were made with before
	// the size was an attribute.
	defaultGPUSubnetPrefix = 24
	// maxRDMASubnets is the most subnets an RDMA VPC gets (gpu_networks.subnet_count's bound).
	maxRDMASubnets = 8
)

// gpuSlots is how a stack's GPU subnets share gpu_networks.cidr: one slot each, the slots the
// largest subnet count of the stack needs rounded up to a power of two, so base splits evenly.
// Each subnet starts at its slot's first address and may grow to the whole slot. The slot count
// does not depend on the RDMA subnet_count, so adding or removing RDMA subnets moves no other one.
func gpuSlots(spec catalog.NICStackSpec) int {
	n := spec.GPUVPCs
	if spec.NetworkProfileRequired {
		n = spec.HostGVNICVPCs + maxRDMASubnets
	}
	return 1 << bits.Len(uint(n-1))
}

// slotBits is the prefix length of one slot of base for the stack: the largest GPU subnet the
// base range holds (a /16 gives tcpxo's 8 subnets a /19 each, tcpx's 4 a /18, rdma's 16 slots a /20).
func slotBits(spec catalog.NICStackSpec, base netip.Prefix) int {
	return base.Bits() + bits.Len(uint(gpuSlots(spec)-1))
}

// gpuLayout places the stack's GPU subnets in base, gVNIC subnets first, each a /prefix at the
// start of its slot. Growing prefix (a smaller number) keeps every subnet's start address, so
// Compute expands each range in place (expandIpCidrRange) while VMs use it; and no two subnets
// overlap, which a VM's NICs require of the subnets they sit in.
func gpuLayout(stack catalog.NICStack, base string, subnetCount, prefix int) (gvnic, rdma []string, err error) {
	spec, ok := catalog.NICStackInfo(stack)
	if !ok || stack == catalog.NICNone {
		return nil, nil, fmt.Errorf("unknown GPU NIC stack %q", stack)
	}
	p, err := netip.ParsePrefix(base)
	if err != nil {
		return nil, nil, err
	}
	slot := slotBits(spec, p)
	if slot > catalog.MaxSubnetPrefixLength {
		return nil, nil, fmt.Errorf("%s split into the %s stack's %d GPU subnet slots gives each a /%d, smaller than Compute's smallest subnet (/%d); use a wider range",
			base, stack, gpuSlots(spec), slot, catalog.MaxSubnetPrefixLength)
	}
	if prefix < slot {
		return nil, nil, prefixError{base: base, stack: stack, slots: gpuSlots(spec), slot: slot, prefix: prefix}
	}
	gv, rd := spec.GPUVPCs, 0
	if spec.NetworkProfileRequired {
		gv, rd = spec.HostGVNICVPCs, subnetCount
	}
	a := p.Addr().As4()
	start := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	at := func(i int) string {
		v := start + uint32(i)<<(32-slot)
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), prefix).String()
	}
	for i := range gv {
		gvnic = append(gvnic, at(i))
	}
	for i := range rd {
		rdma = append(rdma, at(gv+i))
	}
	return gvnic, rdma, nil
}

// prefixError is a subnet_prefix_length too short for its slot: the fix is either attribute, so
// the plan reports it on subnet_prefix_length with both named.
type prefixError struct {
	base        string
	stack       catalog.NICStack
	slots, slot int
	prefix      int
}

func (e prefixError) Error() string {
	return fmt.Sprintf("a /%d GPU subnet does not fit: gpu_networks.cidr %s holds the %s stack's %d GPU subnet slots of a /%d each (%d addresses); use a prefix length of %d or more, or a wider gpu_networks.cidr",
		e.prefix, e.base, e.stack, e.slots, e.slot, catalog.SubnetUsableAddresses(e.slot), e.slot)
}
