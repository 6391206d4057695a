package providerdata

import (
	"strings"
	"sync"
)

// PlannedNetworks records what the networks and clusters planned in one Terraform operation will
// be, so a partition's plan can check its nodes against subnets that do not exist yet: a
// blueprint planned from nothing plans its network, then its cluster, then its partitions
// (Terraform follows the references), all through one configured provider. A network records the
// primary range each of its subnets will have, a cluster the network and subnet its VMs will use.
// What is recorded here wins over what the API says, since it is what the apply makes.
type PlannedNetworks struct {
	mu       sync.Mutex
	subnets  map[string]string
	clusters map[string]ClusterNetwork
}

// ClusterNetwork is the network and primary subnetwork of a cluster's VMs, in any form a
// Compute reference takes (a self link, or projects/P/...). Creating says the cluster does not
// exist yet, so there is no controller to read its other partitions from.
type ClusterNetwork struct {
	Network, Subnetwork string
	Creating            bool
}

// resourceKey reduces a self link or relative name to projects/P/..., so every form of one
// reference is one key.
func resourceKey(ref string) string {
	if i := strings.Index(ref, "projects/"); i >= 0 {
		return ref[i:]
	}
	return ref
}

// PlanSubnets records the planned primary ranges by subnetwork (self link or
// projects/P/regions/R/subnetworks/N).
func (p *PlannedNetworks) PlanSubnets(ranges map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.subnets == nil {
		p.subnets = map[string]string{}
	}
	for k, v := range ranges {
		p.subnets[resourceKey(k)] = v
	}
}

// SubnetRange is the primary range a network planned in this operation gives the subnetwork.
func (p *PlannedNetworks) SubnetRange(subnetwork string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.subnets[resourceKey(subnetwork)]
	return r, ok
}

// PlanCluster records the network of the cluster id (projects/P/zones/Z/clusters/N).
func (p *PlannedNetworks) PlanCluster(id string, n ClusterNetwork) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clusters == nil {
		p.clusters = map[string]ClusterNetwork{}
	}
	p.clusters[id] = ClusterNetwork{Network: resourceKey(n.Network), Subnetwork: resourceKey(n.Subnetwork), Creating: n.Creating}
}

// Cluster is the network a cluster planned in this operation uses, as projects/P/... names.
func (p *PlannedNetworks) Cluster(id string) (ClusterNetwork, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.clusters[id]
	return n, ok
}
