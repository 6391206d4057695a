package tfutil

import "fmt"

// The GPU network set of a hypercompute_network NET, by name: gVNIC VPCs NET-gpu-<i> with one subnet
// NET-gpu-<i>-subnet each (the TCPX/TCPXO GPU VPCs, or the RDMA stack's host VPC), and for RDMA the
// VPC NET-rdma with subnets NET-rdma-sub-<i>. The network resource creates them under these names
// and node partitions find them by the same names, so the convention lives here once.

// GPUNetworkName is the i-th gVNIC GPU VPC of network.
func GPUNetworkName(network string, i int) string { return fmt.Sprintf("%s-gpu-%d", network, i) }

// GPUSubnetName is the subnet of the i-th gVNIC GPU VPC of network.
func GPUSubnetName(network string, i int) string { return fmt.Sprintf("%s-gpu-%d-subnet", network, i) }

// RDMANetworkName is the RDMA VPC of network.
func RDMANetworkName(network string) string { return network + "-rdma" }

// RDMASubnetName is the i-th subnet of network's RDMA VPC.
func RDMASubnetName(network string, i int) string { return fmt.Sprintf("%s-rdma-sub-%d", network, i) }

// GPUNetworkFilter is the Compute list filter matching every GPU VPC of network.
func GPUNetworkFilter(network string) string {
	return fmt.Sprintf("name eq \"^%s-(gpu-[0-7]|rdma)$\"", network)
}

// GPUSubnetFilter is the Compute list filter matching every GPU subnet of network.
func GPUSubnetFilter(network string) string {
	return fmt.Sprintf("name eq \"^%s-(gpu-[0-7]-subnet|rdma-sub-[0-7])$\"", network)
}
