package tfutil

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// QuotaShortfalls compares a resource's quota need, together with the needs of the other
// resources planned with it in this operation (providerdata.PlannedQuota), with what the region
// has left (one regions.get, a read). It returns one line per metric that does not fit, naming
// the other resources when they are part of the sum; a metric the region does not list is not
// limited.
func QuotaShortfalls(ctx context.Context, p *providerdata.Data, need providerdata.QuotaNeed, others []providerdata.QuotaNeed) ([]string, error) {
	reg, err := p.Clients.Regions.Get(ctx, &computepb.GetRegionRequest{Project: need.Project, Region: need.Region})
	if reg, err = Lookup("region", need.Region, reg, err); err != nil {
		return nil, fmt.Errorf("reading the quotas of region %s: %w", need.Region, err)
	}
	return Shortfalls(reg.GetQuotas(), need, others), nil
}

// Shortfalls is QuotaShortfalls for quotas already read.
func Shortfalls(quotas []*computepb.Quota, need providerdata.QuotaNeed, others []providerdata.QuotaNeed) []string {
	have := map[string]*computepb.Quota{}
	for _, q := range quotas {
		have[q.GetMetric()] = q
	}
	var short []string
	for _, metric := range slices.Sorted(maps.Keys(need.Metrics)) {
		q, ok := have[metric]
		if !ok || need.Metrics[metric] <= 0 {
			continue
		}
		total := need.Metrics[metric]
		var parts []string
		for _, o := range others {
			if v := o.Metrics[metric]; v > 0 {
				total += v
				parts = append(parts, fmt.Sprintf("%s for %s", Num(v), o.What))
			}
		}
		avail := q.GetLimit() - q.GetUsage()
		if avail >= total {
			continue
		}
		needs := Num(total)
		if len(parts) > 0 {
			needs = fmt.Sprintf("%s with the other resources planned with it (%s for %s, %s)", Num(total), Num(need.Metrics[metric]), need.What, strings.Join(parts, ", "))
		}
		short = append(short, fmt.Sprintf("%s needs %s, %s available (limit %s, in use %s)",
			metric, needs, Num(max(avail, 0)), Num(q.GetLimit()), Num(q.GetUsage())))
	}
	return short
}

// Num writes a quota amount: whole numbers without a fraction.
func Num(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}
