package catalog

import (
	"fmt"
	"strings"
)

// NICStack names the GPU-to-GPU network stack of a machine type.
type NICStack string

const (
	// NICNone: no dedicated GPU network (general purpose machines, G2).
	NICNone NICStack = "none"
	// NICTCPX: GPUDirect-TCPX (A3 High): 4 extra gVNIC VPCs, MTU 8244.
	NICTCPX NICStack = "tcpx"
	// NICTCPXO: GPUDirect-TCPXO (A3 Mega): 8 extra gVNIC VPCs, MTU 8244.
	NICTCPXO NICStack = "tcpxo"
	// NICRDMA: RoCE over CX-7 NICs (A3 Ultra, A4, A4X): one RDMA VPC on the
	// <zone>-vpc-roce profile with one subnet per GPU NIC, plus a second
	// gVNIC VPC for host traffic.
	NICRDMA NICStack = "rdma"
)

// NIC types of networkInterfaces[].nicType (gcp-apis.md).
const (
	NICTypeGVNIC = "GVNIC"
	NICTypeMRDMA = "MRDMA"
)

// RDMA network profile name pattern (gcp-apis.md): the profile restricts a
// VPC to one zone and to RDMA NICs.
const rdmaProfileSuffix = "-vpc-roce"

// RDMANetworkProfile returns the RDMA network profile name for a zone, e.g.
// us-central1-b-vpc-roce. Whether the zone has one is Zone.HasRDMAProfile.
func RDMANetworkProfile(zone string) string { return zone + rdmaProfileSuffix }

// NICStackSpec is how a NIC stack is wired: the network resource validates
// gpu_networks with it, the partition resource attaches NICs by it.
type NICStackSpec struct {
	Stack NICStack
	// GPUVPCs is the number of VPCs that carry GPU traffic, created in
	// addition to the cluster's primary network.
	GPUVPCs int
	// SubnetsPerVPC is the number of subnets in each GPU VPC. 0 means "one
	// per GPU NIC of the machine type" (the RDMA VPC); see Subnets.
	SubnetsPerVPC int
	// NICType is the nicType of the GPU NICs.
	NICType string
	// MTU is the MTU of the GPU VPCs.
	MTU int
	// HostGVNICVPCs is the number of extra gVNIC VPCs (besides the primary
	// network) the machine needs for host traffic; the RDMA machines have 2
	// gVNICs: the primary network and one more.
	HostGVNICVPCs int
	// HostMTU is the MTU the host gVNIC VPCs should use (0: no requirement).
	HostMTU int
	// NetworkProfileRequired: the GPU VPC must be created with the zone's
	// RDMA network profile (RDMANetworkProfile), which also pins the VPC and
	// its subnets to that zone.
	NetworkProfileRequired bool
	// NICsPerGPUVPC is the NICs one VM attaches to each GPU VPC: one for
	// TCPX/TCPXO; for RDMA one per subnet (0 = Subnets).
	NICsPerGPUVPC int
	// NCCLEnvScript is the shell snippet jobs source to configure NCCL for
	// this stack (empty for NICNone).
	NCCLEnvScript string
}

// Subnets returns how many subnets each GPU VPC needs for a machine type.
func (s NICStackSpec) Subnets(m MachineType) int {
	if s.SubnetsPerVPC > 0 {
		return s.SubnetsPerVPC
	}
	return m.GPUNICCount
}

// TotalNICs returns the NICs one VM of m has with this stack: the primary
// network, the host gVNICs and the GPU NICs.
func (s NICStackSpec) TotalNICs(m MachineType) int {
	return 1 + s.HostGVNICVPCs + m.GPUNICCount
}

// Compute allows at most nic0..nic7 on ordinary machines; A3 Mega (9 NICs)
// and the RDMA machines (10 NICs) are the documented exceptions, so no cap is
// enforced here beyond what each machine type declares.

// ncclEnvTCPX: TCPX has no env profile file; these are the variables Google's
// A3 High guide sets (socket interfaces eth1-eth4, control on eth0).
var ncclEnvTCPX = strings.Join([]string{
	"export LD_LIBRARY_PATH=/var/lib/tcpx/lib64:${LD_LIBRARY_PATH}",
	"export NCCL_SOCKET_IFNAME=eth0",
	"export NCCL_GPUDIRECTTCPX_CTRL_DEV=eth0",
	"export NCCL_GPUDIRECTTCPX_SOCKET_IFNAME=eth1,eth2,eth3,eth4",
	"export NCCL_GPUDIRECTTCPX_TX_BINDINGS=\"eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177\"",
	"export NCCL_GPUDIRECTTCPX_RX_BINDINGS=\"eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191\"",
	"export NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX=/run/tcpx",
	"export NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS=50000",
	"export NCCL_GPUDIRECTTCPX_FORCE_ACK=0",
	"export NCCL_CROSS_NIC=0",
	"export NCCL_ALGO=Ring",
	"export NCCL_PROTO=Simple",
	"export NCCL_NSOCKS_PERTHREAD=4",
	"export NCCL_SOCKET_NTHREADS=1",
	"export NCCL_DYNAMIC_CHUNK_SIZE=524288",
	"export NCCL_P2P_NET_CHUNKSIZE=524288",
	"export NCCL_P2P_PCI_CHUNKSIZE=524288",
	"export NCCL_P2P_NVL_CHUNKSIZE=1048576",
	"export NCCL_BUFFSIZE=4194304",
	"export NCCL_NET_GDR_LEVEL=PIX",
	"export NCCL_P2P_PXN_LEVEL=0",
}, "\n") + "\n"

// ncclEnvTCPXO: the plugin ships its own env profile (hardware-and-field.md).
const ncclEnvTCPXO = "export LD_LIBRARY_PATH=/var/lib/tcpxo/lib64:${LD_LIBRARY_PATH}\n" +
	"source /var/lib/tcpxo/lib64/nccl-env-profile.sh\n" +
	"export NCCL_FASTRAK_CTRL_DEV=enp0s12\n" +
	"export NCCL_FASTRAK_IFNAME=enp6s0,enp7s0,enp13s0,enp14s0,enp134s0,enp135s0,enp141s0,enp142s0\n" +
	"export NCCL_SOCKET_IFNAME=enp0s12\n" +
	"export NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY=/dev/aperture_devices\n"

// ncclEnvRDMA: the gIB plugin's env script (hardware-and-field.md).
const ncclEnvRDMA = "export LD_LIBRARY_PATH=/usr/local/gib/lib64:${LD_LIBRARY_PATH}\n" +
	"source /usr/local/gib/scripts/set_nccl_env.sh\n"

var nicStacks = map[NICStack]NICStackSpec{
	NICNone: {Stack: NICNone},
	NICTCPX: {
		Stack: NICTCPX, GPUVPCs: 4, SubnetsPerVPC: 1, NICsPerGPUVPC: 1,
		NICType: NICTypeGVNIC, MTU: 8244, NCCLEnvScript: ncclEnvTCPX,
	},
	NICTCPXO: {
		Stack: NICTCPXO, GPUVPCs: 8, SubnetsPerVPC: 1, NICsPerGPUVPC: 1,
		NICType: NICTypeGVNIC, MTU: 8244, NCCLEnvScript: ncclEnvTCPXO,
	},
	NICRDMA: {
		Stack: NICRDMA, GPUVPCs: 1, SubnetsPerVPC: 0, NICsPerGPUVPC: 0,
		NICType: NICTypeMRDMA, MTU: 8896,
		HostGVNICVPCs: 1, HostMTU: 8896,
		NetworkProfileRequired: true, NCCLEnvScript: ncclEnvRDMA,
	},
}

// NICStackInfo returns how a NIC stack is wired.
func NICStackInfo(s NICStack) (NICStackSpec, bool) {
	spec, ok := nicStacks[s]
	return spec, ok
}

// NICStacks lists the stacks that carry GPU traffic (NICNone excluded).
func NICStacks() []NICStack { return []NICStack{NICTCPX, NICTCPXO, NICRDMA} }

// ParseNICStack accepts a stack name as users write it ("tcpx", "TCPXO",
// "rdma", "none" or "").
func ParseNICStack(s string) (NICStack, error) {
	v := NICStack(strings.ToLower(strings.TrimSpace(s)))
	if v == "" {
		return NICNone, nil
	}
	if _, ok := nicStacks[v]; ok {
		return v, nil
	}
	return "", fmt.Errorf("GPU NIC stack %q is not known; use one of none, tcpx, tcpxo, rdma", s)
}
