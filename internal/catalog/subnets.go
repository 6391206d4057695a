package catalog

// SubnetReservedAddresses is how many addresses of every subnet primary range Compute keeps for
// itself (Google's "Reserved IP addresses in IPv4 subnet ranges": the network and default gateway
// addresses, the second-to-last address and the broadcast address), so no VM ever gets them. The
// emulator's address allocator skips the same four.
const SubnetReservedAddresses = 4

// Smallest and largest subnet primary ranges Compute accepts (prefix lengths).
const (
	MinSubnetPrefixLength = 8
	MaxSubnetPrefixLength = 29
)

// SubnetUsableAddresses is how many VM addresses a primary range of the prefix length holds:
// 2^(32-bits) − SubnetReservedAddresses (a /24 holds 252, a /21 2,044). Each VM takes one address
// on every subnet it has a NIC in, so this is also the most VMs that subnet can hold.
func SubnetUsableAddresses(bits int) int {
	if bits < MinSubnetPrefixLength || bits > MaxSubnetPrefixLength {
		return 0
	}
	return 1<<(32-bits) - SubnetReservedAddresses
}
