package core

import (
	"fmt"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// KindQuotas is the store kind holding quota limits and usage, one record per region and metric
// (key "REGION/METRIC"; region "global" for project-wide metrics). Keeping the ledger in the store means a
// charge made inside an operation's transaction is undone with it, and snapshots and reset cover it.
const KindQuotas = "emulator.quotas"

// Quota is one metric's ledger entry. Limit < 0 means unlimited.
type Quota struct {
	Region string  `json:"region"`
	Metric string  `json:"metric"`
	Limit  float64 `json:"limit"`
	Usage  float64 `json:"usage"`
}

// Quotas is the quota ledger. Handlers charge it when they create capacity-consuming resources and release it
// when they delete them; a charge over the limit fails with Compute's QUOTA_EXCEEDED operation error.
type Quotas struct{ store *Store }

func quotaKey(region, metric string) string { return region + "/" + metric }

// SetLimit sets (or with limit < 0 removes) the limit of region/metric, keeping its usage.
func (q *Quotas) SetLimit(region, metric string, limit float64) {
	_ = q.store.Update(func(tx *Tx) error {
		cur := Quota{Region: region, Metric: metric, Limit: -1}
		_, _ = tx.Get(KindQuotas, quotaKey(region, metric), &cur)
		cur.Limit = limit
		return tx.Put(KindQuotas, quotaKey(region, metric), cur)
	})
}

// Get returns the ledger entry of region/metric (Limit -1 when unlimited).
func (q *Quotas) Get(region, metric string) Quota {
	cur := Quota{Region: region, Metric: metric, Limit: -1}
	_, _ = q.store.Get(KindQuotas, quotaKey(region, metric), &cur)
	return cur
}

// List returns every ledger entry, optionally for one region ("" for all).
func (q *Quotas) List(region string) []Quota {
	prefix := ""
	if region != "" {
		prefix = region + "/"
	}
	var out []Quota
	for _, r := range q.store.List(KindQuotas, prefix) {
		var e Quota
		if r.Decode(&e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// Charge adds n of metric in region, failing with QUOTA_EXCEEDED (an *OpError) when over the limit.
func (q *Quotas) Charge(region, metric string, n float64) error {
	return q.store.Update(func(tx *Tx) error { return q.ChargeTx(tx, region, map[string]float64{metric: n}) })
}

// Release gives back n of metric in region.
func (q *Quotas) Release(region, metric string, n float64) {
	_ = q.store.Update(func(tx *Tx) error { return q.ReleaseTx(tx, region, map[string]float64{metric: n}) })
}

// ChargeTx charges several metrics at once inside tx: all or nothing. Use it from an operation's Apply so a
// failure later in the operation undoes the charge too.
func (q *Quotas) ChargeTx(tx *Tx, region string, amounts map[string]float64) error {
	metrics := make([]string, 0, len(amounts))
	for m := range amounts {
		metrics = append(metrics, m)
	}
	sort.Strings(metrics)
	entries := make([]Quota, len(metrics))
	for i, m := range metrics {
		e := Quota{Region: region, Metric: m, Limit: -1}
		_, _ = tx.Get(KindQuotas, quotaKey(region, m), &e)
		if e.Limit >= 0 && e.Usage+amounts[m] > e.Limit {
			return QuotaExceeded(region, m, e.Limit)
		}
		e.Usage += amounts[m]
		entries[i] = e
	}
	for i, m := range metrics {
		if err := tx.Put(KindQuotas, quotaKey(region, m), entries[i]); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseTx gives back several metrics inside tx (usage never drops below zero).
func (q *Quotas) ReleaseTx(tx *Tx, region string, amounts map[string]float64) error {
	for m, n := range amounts {
		e := Quota{Region: region, Metric: m, Limit: -1}
		if ok, _ := tx.Get(KindQuotas, quotaKey(region, m), &e); !ok {
			continue
		}
		e.Usage -= n
		if e.Usage < 0 {
			e.Usage = 0
		}
		if err := tx.Put(KindQuotas, quotaKey(region, m), e); err != nil {
			return err
		}
	}
	return nil
}

// QuotaExceeded is Compute's QUOTA_EXCEEDED operation error, with quotaInfo details.
func QuotaExceeded(region, metric string, limit float64) *OpError {
	where := "in region " + region
	if region == "global" || region == "" {
		where = "globally"
	}
	msg := fmt.Sprintf("Quota %s exceeded. Limit: %.1f %s.", metric, limit, where)
	lower := strings.ToLower(metric)
	info := &computepb.ErrorDetails{QuotaInfo: &computepb.QuotaExceededInfo{
		MetricName: proto.String("compute.googleapis.com/" + lower),
		LimitName:  proto.String(strings.ReplaceAll(metric, "_", "-") + "-per-project-region"),
		Limit:      proto.Float64(limit),
		Dimensions: map[string]string{"region": region},
	}}
	errInfo := &computepb.ErrorDetails{ErrorInfo: &computepb.ErrorInfo{
		Reason: proto.String("QUOTA_EXCEEDED"), Domain: proto.String("compute.googleapis.com"),
		Metadatas: map[string]string{"quota_limit": strings.ReplaceAll(metric, "_", "-") + "-per-project-region", "quota_limit_value": fmt.Sprintf("%g", limit), "region": region},
	}}
	return NewOpError(403, "QUOTA_EXCEEDED", msg, errInfo, info)
}
