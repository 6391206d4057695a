package network

import (
	"fmt"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Every resource the network owns has a name derived from the network's, so Read, import and a
// second apply after a crash find them without any state beyond the network's name.
type names struct{ base string }

func (n names) network() string      { return n.base }
func (n names) subnet() string       { return n.base + "-subnet" }
func (n names) fwInternal() string   { return n.base + "-allow-internal" }
func (n names) fwIAPSSH() string     { return n.base + "-allow-iap-ssh" }
func (n names) router() string       { return n.base + "-router" }
func (n names) nat() string          { return n.base + "-nat" }
func (n names) psaRange() string     { return n.base + "-psa" }
func (n names) gpuNet(i int) string  { return tfutil.GPUNetworkName(n.base, i) }
func (n names) gpuSub(i int) string  { return tfutil.GPUSubnetName(n.base, i) }
func (n names) gpuFW(i int) string   { return fmt.Sprintf("%s-gpu-%d-internal", n.base, i) }
func (n names) rdmaNet() string      { return tfutil.RDMANetworkName(n.base) }
func (n names) rdmaSub(i int) string { return tfutil.RDMASubnetName(n.base, i) }

const (
	serviceNetworking  = "services/servicenetworking.googleapis.com"
	maxGPUSubnetsTotal = 8
)

func networkURL(project, name string) string {
	return tfutil.ComputeV1 + tfutil.NetworkID(project, name)
}
func subnetID(project, region, name string) string {
	return fmt.Sprintf("projects/%s/regions/%s/subnetworks/%s", project, region, name)
}
