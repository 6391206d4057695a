package providerdata

import (
	"sort"
	"sync"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// PlannedPartitions records the partitions (node sets) hypercompute_node_partition planned in one
// Terraform operation, per cluster, so a health policy or a recipe job that names a partition can
// refuse a name the cluster does not have at plan, and still plan when the partition is created in
// the same apply, and so node sets that join one Slurm partition can be checked against each other
// before anything exists. Terraform plans a resource after those it references: a policy or a job
// that names its partition by reference (hypercompute_node_partition.gpu.name) plans after the
// partition registered here. One configured provider (one Data) serves every resource of an
// operation, and a new operation configures a new one, so the record never outlives its operation.
type PlannedPartitions struct {
	mu    sync.Mutex
	names map[string]map[string]cc.Partition // cluster id → node set name → its Slurm side as planned
}

// Plan records that the partition name of the cluster (its id,
// projects/{project}/zones/{zone}/clusters/{name}) is planned in this operation.
func (p *PlannedPartitions) Plan(cluster, name string) {
	p.PlanNodeSet(cluster, cc.Partition{Name: name})
}

// PlanNodeSet records a planned node set with its Slurm partition and partition-wide settings
// (a later record of the same name replaces the earlier one).
func (p *PlannedPartitions) PlanNodeSet(cluster string, set cc.Partition) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.names == nil {
		p.names = map[string]map[string]cc.Partition{}
	}
	if p.names[cluster] == nil {
		p.names[cluster] = map[string]cc.Partition{}
	}
	p.names[cluster][set.Name] = set
}

// Planned reports whether a partition (node set) of that name was planned for the cluster in this
// operation.
func (p *PlannedPartitions) Planned(cluster, name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.names[cluster][name]
	return ok
}

// PlannedSlurm reports whether a node set planned for the cluster in this operation forms or
// joins the Slurm partition name.
func (p *PlannedPartitions) PlannedSlurm(cluster, name string) bool {
	for _, s := range p.NodeSets(cluster) {
		if s.SlurmName() == name {
			return true
		}
	}
	return false
}

// NodeSets lists the node sets planned for the cluster, sorted by name.
func (p *PlannedPartitions) NodeSets(cluster string) []cc.Partition {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []cc.Partition
	for _, s := range p.names[cluster] {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
