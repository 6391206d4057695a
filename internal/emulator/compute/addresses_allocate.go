package compute

import (
	"fmt"
	"net/netip"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Pools the emulator allocates from: private service access ranges from RFC 1918 space, external addresses
// from a block of Google's public space.
var (
	peeringPools = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16")}
	externalPool = netip.MustParsePrefix("34.128.0.0/10")
)

// allocateAddress fills a.address (or checks the requested one) so it overlaps nothing else.
func allocateAddress(tx *core.Tx, a *computepb.Address, kind, netKey, subKey string) error {
	list := func(k string) []core.Record { return tx.List(k, "") }
	switch {
	case a.GetPurpose() == "VPC_PEERING":
		if !tx.Exists(KindNetworks, netKey) {
			return core.OpNotFound(netKey)
		}
		taken := takenRanges(list, netKey)
		bits := int(a.GetPrefixLength())
		if a.Address != nil {
			p := netip.PrefixFrom(netip.MustParseAddr(a.GetAddress()), bits)
			if p.Masked() != p {
				return core.NewOpError(400, "INVALID_USAGE", fmt.Sprintf("Invalid value for field 'resource.address': '%s'. The address must be the start of a /%d range.", a.GetAddress(), bits))
			}
			for _, t := range taken {
				if t.prefix.Overlaps(p) {
					return core.NewOpError(400, "INVALID_USAGE", fmt.Sprintf("Requested range %s conflicts with %s.", p, t.what))
				}
			}
			return nil
		}
		for _, pool := range peeringPools {
			if p, ok := firstFree(pool, bits, taken); ok {
				a.Address = proto.String(p.Addr().String())
				return nil
			}
		}
		return core.NewOpError(400, "IP_SPACE_EXHAUSTED", fmt.Sprintf("No free /%d range is left in the network's private address space.", bits))
	case a.GetAddressType() == "INTERNAL" && subKey != "":
		var sub computepb.Subnetwork
		if ok, _ := tx.Get(KindSubnetworks, subKey, &sub); !ok {
			return core.OpNotFound(subKey)
		}
		subnet := netip.MustParsePrefix(sub.GetIpCidrRange())
		used := usedAddresses(tx, kind)
		if a.Address != nil {
			ip := netip.MustParseAddr(a.GetAddress())
			if !subnet.Contains(ip) {
				return core.NewOpError(400, "INVALID_USAGE", fmt.Sprintf("Requested internal IP address %s is outside the subnetwork range %s.", ip, subnet))
			}
			if used[ip] {
				return core.NewOpError(400, "IP_IN_USE_BY_ANOTHER_RESOURCE", fmt.Sprintf("IP '%s' is already being used by another resource.", ip))
			}
			return nil
		}
		// The network, gateway and the last two addresses of a subnet are reserved.
		for ip := subnet.Addr().Next().Next(); subnet.Contains(ip) && ip != lastAddr(subnet).Prev(); ip = ip.Next() {
			if !used[ip] {
				a.Address = proto.String(ip.String())
				return nil
			}
		}
		return core.NewOpError(400, "IP_SPACE_EXHAUSTED", "The subnetwork has no free internal IP addresses.")
	case a.GetAddressType() == "INTERNAL":
		// PRIVATE_SERVICE_CONNECT: one address outside anything else in the network.
		if !tx.Exists(KindNetworks, netKey) {
			return core.OpNotFound(netKey)
		}
		if a.Address == nil {
			p, ok := firstFree(peeringPools[0], 32, takenRanges(list, netKey))
			if !ok {
				return core.NewOpError(400, "IP_SPACE_EXHAUSTED", "No free internal address is left.")
			}
			a.Address = proto.String(p.Addr().String())
		}
		return nil
	default:
		if a.Address != nil {
			return nil
		}
		used := usedAddresses(tx, KindGlobalAddresses)
		for ip, u := range usedAddresses(tx, KindAddresses) {
			used[ip] = u
		}
		for ip := externalPool.Addr().Next(); externalPool.Contains(ip); ip = ip.Next() {
			if !used[ip] {
				a.Address = proto.String(ip.String())
				return nil
			}
		}
		return core.NewOpError(400, "IP_SPACE_EXHAUSTED", "No external address is left.")
	}
}

func usedAddresses(tx *core.Tx, kind string) map[netip.Addr]bool {
	used := map[netip.Addr]bool{}
	for _, rec := range tx.List(kind, "") {
		var a computepb.Address
		if rec.Decode(&a) == nil {
			if ip, err := netip.ParseAddr(a.GetAddress()); err == nil {
				used[ip] = true
			}
		}
	}
	return used
}

// firstFree returns the lowest aligned /bits block of pool that overlaps none of taken.
func firstFree(pool netip.Prefix, bits int, taken []takenRange) (netip.Prefix, bool) {
	if bits < pool.Bits() {
		return netip.Prefix{}, false
	}
	cand := prefixAt(pool.Addr(), bits)
	for pool.Contains(cand.Addr()) {
		var clash *netip.Prefix
		for _, t := range taken {
			if t.prefix.Overlaps(cand) {
				clash = &t.prefix
				break
			}
		}
		if clash == nil {
			return cand, true
		}
		// Jump past whichever of the two blocks ends later.
		end := lastAddr(cand)
		if l := lastAddr(*clash); end.Less(l) {
			end = l
		}
		next := end.Next()
		if !next.IsValid() || !next.Is4() {
			return netip.Prefix{}, false
		}
		cand = prefixAt(next, bits)
		if cand.Addr().Less(next) {
			n, ok := nextBlock(cand)
			if !ok {
				return netip.Prefix{}, false
			}
			cand = prefixAt(n, bits)
		}
	}
	return netip.Prefix{}, false
}
