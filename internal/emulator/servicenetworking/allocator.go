package servicenetworking

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Block sizes the producers take per instance. Filestore's follow its tier (catalog's DirectPeeringPrefix:
// /29 Basic, /26 Zonal/Regional/Enterprise, /24 High Scale), for private service access as for direct
// peering. Managed Lustre takes a /24: the real service sizes its reservation by capacity and documents
// nothing smaller, and a /20 allocated range (the usual size) still holds sixteen instances.
const LustreBlockPrefix = 24

// directPool is where a DIRECT_PEERING block is picked when the request names none: a private range that
// default and auto-mode subnets (10.128.0.0/9) never use.
var directPool = netip.MustParsePrefix("172.16.0.0/12")

// Allocation is one IP block a producer instance holds on a consumer network.
type Allocation struct {
	Project string `json:"project"` // the network's project ID
	Network string `json:"network"` // the network's name
	// Owner is the producer resource holding the block ("projects/p/locations/l/instances/i").
	Owner string `json:"owner"`
	// Service is the producer API ("file.googleapis.com", "lustre.googleapis.com").
	Service string `json:"service"`
	// Range is the allocated range the block was taken from; empty for a DIRECT_PEERING block.
	Range string `json:"range,omitempty"`
	CIDR  string `json:"cidr"`
}

// Prefix is the block.
func (a Allocation) Prefix() netip.Prefix { return netip.MustParsePrefix(a.CIDR) }

// Host returns the n-th address of the block (n=2 is the first address a producer hands out: .0 is the
// network and .1 the gateway, as on Google Cloud).
func (a Allocation) Host(n int) string {
	return addr(u32(a.Prefix().Addr()) + uint32(n)).String()
}

func allocationKey(n NetworkRef, owner string) string { return n.Key() + "/allocations/" + owner }

func allocations(r Reader, n NetworkRef) []Allocation {
	var out []Allocation
	for _, rec := range r.List(KindAllocations, n.Key()+"/allocations/") {
		var a Allocation
		if rec.Decode(&a) == nil {
			out = append(out, a)
		}
	}
	return out
}

// Connected reports whether the network has a servicenetworking.googleapis.com connection.
func Connected(r Reader, n NetworkRef) bool {
	ok, _ := r.Get(KindConnections, connectionKey(n, DefaultService), nil)
	return ok
}

// ConnectedRanges returns the allocated ranges attached to the network's servicenetworking.googleapis.com
// connection, in the connection's order; ranges whose address disappeared are left out.
func ConnectedRanges(r Reader, n NetworkRef) []Range {
	var c connectionRecord
	if ok, _ := r.Get(KindConnections, connectionKey(n, DefaultService), &c); !ok {
		return nil
	}
	var out []Range
	for _, name := range c.Ranges {
		if rg, err := lookupRange(r, n, name); err == nil {
			out = append(out, rg)
		}
	}
	return out
}

// NotConnectedMessage is the error text for a producer instance asked for on a network without private
// service access.
func NotConnectedMessage(n NetworkRef) string {
	return fmt.Sprintf("Private service access is required but not configured for network '%s': reserve an allocated IP range "+
		"(a global address with purpose VPC_PEERING) and connect it to servicenetworking.googleapis.com first.", n.Key())
}

// CheckPrivateServiceAccess is the synchronous check a producer makes before accepting an instance on
// network n: the network must exist and be connected, and rangeName (when given) must be one of the
// connection's allocated ranges. networkField and rangeField name the request fields in the 400s.
func CheckPrivateServiceAccess(r Reader, n NetworkRef, rangeName, networkField, rangeField string) *core.APIError {
	if !n.Exists(r) {
		return core.GoogleError(http.StatusBadRequest, "%s: network '%s' does not exist.", networkField, n.Key())
	}
	if !Connected(r, n) {
		return &core.APIError{Code: http.StatusBadRequest, Status: "FAILED_PRECONDITION", Message: NotConnectedMessage(n)}
	}
	if rangeName == "" {
		return nil
	}
	for _, rg := range ConnectedRanges(r, n) {
		if rg.Name == rangeName {
			return nil
		}
	}
	return core.GoogleError(http.StatusBadRequest, "%s: '%s' is not an allocated IP range connected to network '%s' by private service access.", rangeField, rangeName, n.Key())
}

// BlockRequest asks for a block of PrefixLength bits for Owner.
type BlockRequest struct {
	Network      NetworkRef
	Owner        string
	Service      string
	PrefixLength int
	// Range restricts the search to one connected range (Filestore's reservedIpRange); empty means any.
	Range string
}

// AllocatePSA takes a free block from the network's connected ranges, first fit in the connection's range
// order, and records it in tx (an operation's Apply, so a failed operation gives it back). An owner that
// already holds a block gets it again. Errors are *core.OpError: FAILED_PRECONDITION without a connection,
// RESOURCE_EXHAUSTED when no block is free.
func AllocatePSA(tx *core.Tx, req BlockRequest) (Allocation, error) {
	if a, ok := AllocationOf(tx, req.Network, req.Owner); ok {
		return a, nil
	}
	if !Connected(tx, req.Network) {
		return Allocation{}, failedPrecondition("%s", NotConnectedMessage(req.Network))
	}
	var used []netip.Prefix
	for _, a := range allocations(tx, req.Network) {
		used = append(used, a.Prefix())
	}
	var tried []string
	for _, rg := range ConnectedRanges(tx, req.Network) {
		if req.Range != "" && rg.Name != req.Range {
			continue
		}
		tried = append(tried, rg.Name+" ("+rg.Prefix.String()+")")
		if p, ok := firstFree(rg.Prefix, req.PrefixLength, used); ok {
			a := Allocation{Project: req.Network.Project, Network: req.Network.Name, Owner: req.Owner, Service: req.Service, Range: rg.Name, CIDR: p.String()}
			return a, tx.Put(KindAllocations, allocationKey(req.Network, req.Owner), a)
		}
	}
	if req.Range != "" && len(tried) == 0 {
		return Allocation{}, failedPrecondition("Allocated IP range '%s' is not connected to network '%s' by private service access.", req.Range, req.Network.Key())
	}
	return Allocation{}, core.NewOpError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED",
		fmt.Sprintf("No free /%d block is left in the allocated IP ranges %s of network '%s'. Add a range to the private service connection or free one.",
			req.PrefixLength, strings.Join(tried, ", "), req.Network.Key()))
}

// CheckDirectRange validates a DIRECT_PEERING reserved range asked for synchronously: a private IPv4 CIDR of
// the given prefix length that overlaps neither the network's subnets, its allocated ranges, nor another
// producer's block. The error is the message for a 400.
func CheckDirectRange(r Reader, n NetworkRef, cidr string, prefixLength int) error {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return fmt.Errorf("'%s' is not an IPv4 CIDR block", cidr)
	}
	if p.Bits() != prefixLength {
		return fmt.Errorf("'%s' must be a /%d block", cidr, prefixLength)
	}
	if p.Masked() != p {
		return fmt.Errorf("'%s' is not aligned: use %s", cidr, p.Masked())
	}
	if !p.Addr().IsPrivate() {
		return fmt.Errorf("'%s' is not in a private (RFC 1918) address range", cidr)
	}
	for _, u := range directUsed(r, n) {
		if u.Overlaps(p) {
			return fmt.Errorf("'%s' overlaps %s, which is already in use on network '%s'", cidr, u, n.Key())
		}
	}
	return nil
}

// ReserveDirect records a DIRECT_PEERING block for req.Owner: cidr when given (checked again, as the network
// may have changed since the request), else the first free block of req.PrefixLength in 172.16.0.0/12.
func ReserveDirect(tx *core.Tx, req BlockRequest, cidr string) (Allocation, error) {
	if a, ok := AllocationOf(tx, req.Network, req.Owner); ok {
		return a, nil
	}
	var p netip.Prefix
	if cidr != "" {
		if err := CheckDirectRange(tx, req.Network, cidr, req.PrefixLength); err != nil {
			return Allocation{}, core.NewOpError(http.StatusBadRequest, "INVALID_ARGUMENT", "reservedIpRange: "+err.Error()+".")
		}
		p = netip.MustParsePrefix(cidr)
	} else {
		var ok bool
		if p, ok = firstFree(directPool, req.PrefixLength, directUsed(tx, req.Network)); !ok {
			return Allocation{}, core.NewOpError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED",
				fmt.Sprintf("No free /%d block is left in %s for network '%s'.", req.PrefixLength, directPool, req.Network.Key()))
		}
	}
	a := Allocation{Project: req.Network.Project, Network: req.Network.Name, Owner: req.Owner, Service: req.Service, CIDR: p.String()}
	return a, tx.Put(KindAllocations, allocationKey(req.Network, req.Owner), a)
}

// directUsed is everything a direct-peering block must not overlap.
func directUsed(r Reader, n NetworkRef) []netip.Prefix {
	used := append(subnetRanges(r, n), peeringRanges(r, n)...)
	for _, a := range allocations(r, n) {
		used = append(used, a.Prefix())
	}
	return used
}

// AllocationOf returns the block owner holds on the network.
func AllocationOf(r Reader, n NetworkRef, owner string) (Allocation, bool) {
	var a Allocation
	ok, err := r.Get(KindAllocations, allocationKey(n, owner), &a)
	return a, ok && err == nil
}

// Release gives back owner's block on the network and reports whether there was one.
func Release(tx *core.Tx, n NetworkRef, owner string) bool {
	return tx.Delete(KindAllocations, allocationKey(n, owner))
}

// firstFree returns the lowest block of the given size inside pool that overlaps nothing in used.
// It jumps past each overlapping prefix, so it runs in O(len(used)²) whatever the pool's size.
func firstFree(pool netip.Prefix, bits int, used []netip.Prefix) (netip.Prefix, bool) {
	pool = pool.Masked()
	if !pool.Addr().Is4() || bits < pool.Bits() || bits > 32 {
		return netip.Prefix{}, false
	}
	size := uint64(1) << (32 - bits)
	cur := uint64(u32(pool.Addr()))
	end := cur + uint64(1)<<(32-pool.Bits())
	used = slices.Clone(used)
	for cur+size <= end {
		cand := netip.PrefixFrom(addr(uint32(cur)), bits)
		next := uint64(0)
		for _, u := range used {
			if u.Addr().Is4() && u.Overlaps(cand) {
				last := uint64(u32(u.Masked().Addr())) + uint64(1)<<(32-u.Bits())
				next = max(next, last)
			}
		}
		if next == 0 {
			return cand, true
		}
		cur = (next + size - 1) / size * size
	}
	return netip.Prefix{}, false
}

func u32(a netip.Addr) uint32 { return binary.BigEndian.Uint32(a.AsSlice()) }

func addr(v uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b)
}

// ReleaseOwner gives back every block owner holds, whatever network it is on (the network may be gone or
// be named differently than when the block was taken), and reports how many there were.
func ReleaseOwner(tx *core.Tx, owner string) int {
	n := 0
	for _, rec := range tx.List(KindAllocations, "") {
		var a Allocation
		if rec.Decode(&a) == nil && a.Owner == owner && tx.Delete(KindAllocations, rec.Key) {
			n++
		}
	}
	return n
}

// OwnerAllocations returns the blocks owner holds, on any network.
func OwnerAllocations(r Reader, owner string) []Allocation {
	var out []Allocation
	for _, rec := range r.List(KindAllocations, "") {
		var a Allocation
		if rec.Decode(&a) == nil && a.Owner == owner {
			out = append(out, a)
		}
	}
	return out
}
