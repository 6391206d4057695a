package providerdata

import (
	"maps"
	"slices"
	"sync"
)

// QuotaNeed is what one planned resource takes from a region's quota when it is applied: the
// VMs it creates, by quota metric.
type QuotaNeed struct {
	Project, Region string
	// What names the resource in messages ("partition gpu", "cluster ml's controller and login VMs").
	What    string
	Metrics map[string]float64
}

// PlannedQuota sums the quota needs of the resources planned in one Terraform operation, so a
// plan-time quota check can count every partition of a blueprint against the one regional
// quota. Terraform plans each resource on its own, but one configured provider (one Data) serves
// every resource of an operation, so the needs planned so far are known here: the last of them to
// plan sees the sum (which one that is follows Terraform's order). Once the operation applies
// anything (Applying), later plans are the apply's own re-plans of each resource, made after what
// was applied before them already shows in the quota's usage: they count only their own need, or
// they would count a created VM twice.
type PlannedQuota struct {
	mu       sync.Mutex
	applying bool
	needs    map[string]QuotaNeed
}

// Plan records the need of the resource key (a resource's id: a re-plan of it replaces its
// earlier need) and returns the needs of the other resources planned so far in the same project
// and region, sorted by What; none once the operation started applying.
func (q *PlannedQuota) Plan(key string, need QuotaNeed) []QuotaNeed {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.applying {
		return nil
	}
	if q.needs == nil {
		q.needs = map[string]QuotaNeed{}
	}
	q.needs[key] = need
	var others []QuotaNeed
	for _, k := range slices.Sorted(maps.Keys(q.needs)) {
		if o := q.needs[k]; k != key && o.Project == need.Project && o.Region == need.Region {
			others = append(others, o)
		}
	}
	slices.SortFunc(others, func(a, b QuotaNeed) int {
		if a.What < b.What {
			return -1
		}
		if a.What > b.What {
			return 1
		}
		return 0
	})
	return others
}

// Applying records that the operation creates VMs from now on (a Create or Update of a resource
// that does).
func (q *PlannedQuota) Applying() {
	q.mu.Lock()
	q.applying = true
	q.needs = nil
	q.mu.Unlock()
}
