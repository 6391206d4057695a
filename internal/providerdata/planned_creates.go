package providerdata

import "sync"

// PlannedCreates records the creates planned in one Terraform operation by what each would own
// (a resource type, a cluster and a name: a metadata key on the cluster's controller), so that a
// second resource of the same configuration that would own the same thing fails at plan instead
// of both reporting success over one object. One configured provider (one Data) serves every
// resource of an operation — Terraform configures the provider anew for each walk, plan and
// apply alike — so the creates planned so far are known here.
//
// Only creates count: a resource with prior state is planned once with it and, when it must be
// replaced, once more without it, so an update and a create of one owner are the same resource as
// often as they are two. Each resource instance plans its create once per walk, and the apply
// walk plans each create again just before it runs, where a name left unknown at plan is known.
type PlannedCreates struct {
	mu      sync.Mutex
	planned map[string]bool
}

// Plan records a planned create of owner and reports whether it is the first of this operation;
// false means another resource of the configuration already plans to create owner.
func (p *PlannedCreates) Plan(owner string) (first bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.planned[owner] {
		return false
	}
	if p.planned == nil {
		p.planned = map[string]bool{}
	}
	p.planned[owner] = true
	return true
}
