package compute

import (
	"fmt"
	"net/netip"
)

// parseSubnetCIDR checks an IPv4 range the way subnetworks accept it: canonical (host bits zero), /8 to /29,
// outside loopback, link-local, multicast and 0.0.0.0/8.
func parseSubnetCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() {
		return netip.Prefix{}, fmt.Errorf("%s is not a valid IPv4 CIDR range", s)
	}
	if p.Masked() != p {
		return netip.Prefix{}, fmt.Errorf("%s has host bits set; the range starts at %s", s, p.Masked())
	}
	if p.Bits() < 8 || p.Bits() > 29 {
		return netip.Prefix{}, fmt.Errorf("%s: the prefix length must be between /8 and /29", s)
	}
	for _, reserved := range []string{"0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4", "240.0.0.0/4"} {
		if p.Overlaps(netip.MustParsePrefix(reserved)) {
			return netip.Prefix{}, fmt.Errorf("%s overlaps the reserved range %s", s, reserved)
		}
	}
	return p, nil
}

// gatewayOf is the first host address of a subnet range, which Compute uses as the gateway.
func gatewayOf(p netip.Prefix) string { return p.Addr().Next().String() }

// prefixAt returns the aligned prefix of the given length that starts at a.
func prefixAt(a netip.Addr, bits int) netip.Prefix { return netip.PrefixFrom(a, bits).Masked() }

// lastAddr is the last address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// nextBlock is the first address after p.
func nextBlock(p netip.Prefix) (netip.Addr, bool) {
	l := lastAddr(p)
	n := l.Next()
	return n, n.IsValid() && n.Is4()
}
