package providerdata

import "sync"

// PlannedPartitions records the partitions hypercompute_node_partition planned in one Terraform
// operation, per cluster, so a health policy or a recipe job that names a partition can refuse a
// name the cluster does not have at plan, and still plan when the partition is created in the
// same apply. Terraform plans a resource after those it references: a policy or a job that names
// its partition by reference (hypercompute_node_partition.gpu.name) plans after the partition
// registered here. One configured provider (one Data) serves every resource of an operation, and
// a new operation configures a new one, so the record never outlives its operation.
type PlannedPartitions struct {
	mu    sync.Mutex
	names map[string]map[string]bool // cluster id → partition names
}

// Plan records that the partition name of the cluster (its id,
// projects/{project}/zones/{zone}/clusters/{name}) is planned in this operation.
func (p *PlannedPartitions) Plan(cluster, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.names == nil {
		p.names = map[string]map[string]bool{}
	}
	if p.names[cluster] == nil {
		p.names[cluster] = map[string]bool{}
	}
	p.names[cluster][name] = true
}

// Planned reports whether a partition of that name was planned for the cluster in this operation.
func (p *PlannedPartitions) Planned(cluster, name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.names[cluster][name]
}
